/**
 * /legal/index, the C2C market (spec §2, §4): buy and sell tabs, the coin menu (USDT first, every
 * is_legal coin) and the on-shelf adverts, best price first. The buy tab lists `type=sell` adverts
 * (the merchant sells, the user buys) and the sell tab `type=buy` adverts. Tapping an advert opens
 * the order dialog; anyone may look, ordering needs a login.
 */
import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { useSession } from "../../../lib/session.ts";
import { LoadMoreFoot } from "../../../components/LoadMoreFoot.tsx";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useAdverts, useC2cConfig, useLegalCoins, type C2cAdvert, type C2cType } from "../api.ts";
import { qtyDecimals } from "../math.ts";
import { C2cGate, C2cNav, cny, MerchantAvatar, PayKinds } from "./common.tsx";
import { OrderDialog } from "./OrderDialog.tsx";
import s from "./c2c.module.css";
import { formatExact } from "../../../lib/format.ts";

export default function MarketPage() {
  return (
    <C2cGate>
      <Market />
    </C2cGate>
  );
}

function Market() {
  const [params, setParams] = useSearchParams();
  const session = useSession();
  const navigate = useNavigate();
  const loggedIn = session.token !== "";
  // The user's side: "buy" lists the merchants' sell adverts.
  const side: "buy" | "sell" = params.get("side") === "sell" ? "sell" : "buy";
  const advertType: C2cType = side === "buy" ? "sell" : "buy";
  const coins = useLegalCoins();
  const coinList = coins.data ?? [];
  const wanted = Number(params.get("coin") ?? "");
  const coin = coinList.find((c) => c.id === wanted) ?? coinList[0];
  const config = useC2cConfig();
  // The advert being ordered (and the amount typed) live in the URL, so coming back from adding a
  // receiving account (/legal/payment?back=…) reopens the same order with the same amount.
  const openId = loggedIn ? Number(params.get("advert") ?? "") || null : null;
  const openAmount = params.get("amount") ?? "";

  const setParam = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    next.set(key, value);
    setParams(next, { replace: true });
  };

  const here = (extra: Record<string, string> = {}) => {
    const next = new URLSearchParams({ side, ...(coin ? { coin: String(coin.id) } : {}), ...extra });
    return `/legal/index?${next.toString()}`;
  };
  const take = (ad: C2cAdvert) => {
    // A guest logs in first and comes back to this advert's order dialog.
    if (!loggedIn) {
      navigate(`/login?redirect=${encodeURIComponent(here({ advert: String(ad.id) }))}`);
      return;
    }
    setParams(new URLSearchParams(here({ advert: String(ad.id) }).split("?")[1]), { replace: true });
  };
  const close = () => setParams(new URLSearchParams(here().split("?")[1]), { replace: true });

  return (
    <div className={s.page} data-testid="c2c-market">
      {loggedIn && <C2cNav here="market" />}
      <div className={s.sideTabs} role="tablist" aria-label={m.c2c_side()}>
        {(["buy", "sell"] as const).map((k) => (
          <button key={k} type="button" role="tab" aria-selected={side === k} className={side === k ? `active ${k === "buy" ? s.buyTab : s.sellTab}` : ""} onClick={() => setParam("side", k)} data-testid={`c2c-tab-${k}`}>
            {k === "buy" ? m.c2c_tab_buy() : m.c2c_tab_sell()}
          </button>
        ))}
      </div>
      {coins.error && !coins.data ? (
        <ErrorState message={coins.error.message} onRetry={coins.reload} />
      ) : !coin ? (
        coins.loading ? <SkeletonList rows={4} avatar /> : <EmptyState />
      ) : (
        <>
          <div className={s.coinMenu} role="radiogroup" aria-label={m.c2c_coin()}>
            {coinList.map((c) => (
              <button key={c.id} type="button" role="radio" aria-checked={c.id === coin.id} className={c.id === coin.id ? "active" : ""} onClick={() => setParam("coin", String(c.id))} data-testid={`c2c-coin-${c.name}`}>
                {c.name}
              </button>
            ))}
          </div>
          {config.data?.restricted_until_tomorrow && (
            <p className={`${s.notice} ${s.noticeBad}`} role="status" data-testid="c2c-restricted">
              {m.c2c_restricted({ count: config.data.cancels_today })}
            </p>
          )}
          <AdvertList key={`${advertType}-${coin.id}`} type={advertType} coinId={coin.id} coinName={coin.name} onTake={take} />
          {openId !== null && (
            <LiveOrderDialog
              type={advertType}
              coinId={coin.id}
              advertId={openId}
              amount={openAmount}
              scale={qtyDecimals(coin.scale)}
              onClose={close}
              returnPath={(amount) => here({ advert: String(openId), ...(amount ? { amount } : {}) })}
            />
          )}
        </>
      )}
    </div>
  );
}

/**
 * The order dialog on the advert as the market list has it now (the list is refreshed while the
 * dialog is open, from the same cache): a changed price shows in place, the typed amount stays.
 * An advert that left the list (sold out, taken off) keeps its last copy; the server then refuses.
 */
function LiveOrderDialog({
  type,
  coinId,
  advertId,
  amount,
  scale,
  onClose,
  returnPath,
}: {
  type: C2cType;
  coinId: number;
  advertId: number;
  amount: string;
  scale: number;
  onClose: () => void;
  returnPath: (amount: string) => string;
}) {
  const list = useAdverts(type, coinId);
  const [last, setLast] = useState<C2cAdvert | null>(null);
  const live = list.items.find((a) => a.id === advertId) ?? null;
  if (live !== null && live !== last) setLast(live);
  const advert = live ?? last;
  if (!advert) return null;
  return <OrderDialog advert={advert} scale={scale} onClose={onClose} initialAmount={amount} returnPath={returnPath} />;
}

function AdvertList({ type, coinId, coinName, onTake }: { type: C2cType; coinId: number; coinName: string; onTake: (ad: C2cAdvert) => void }) {
  const list = useAdverts(type, coinId);
  if (list.loading) return <SkeletonList rows={4} avatar />;
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (list.items.length === 0) return <EmptyState text={m.c2c_no_adverts({ coin: coinName })} />;
  // The user's action on this list: buying from sell adverts, selling to buy adverts.
  const userBuys = type === "sell";
  return (
    <>
      <ul className={s.adverts}>
        {list.items.map((ad) => (
          <li key={ad.id} className={s.advert} data-testid="c2c-advert" data-id={ad.id}>
            <div className={s.advertHead}>
              <MerchantAvatar name={ad.seller_name} color={ad.bgcolor} />
              <span className={s.advertName}>
                <strong data-testid="advert-merchant">{ad.seller_name}</strong>
                <small className="muted">{m.c2c_deals({ count: ad.deal_count })}</small>
              </span>
            </div>
            <div className={s.advertBody}>
              <div className={s.advertNumbers}>
                <span className={s.advertPrice}>
                  <small className="muted">{m.c2c_price()}</small>
                  <strong className="num" data-testid="advert-price">{cny(ad.price)}</strong>
                </span>
                <span className={s.advertLine}>
                  <span className="muted">{m.c2c_available()}</span>
                  <span className="num" data-testid="advert-available">{formatExact(ad.surplus_number)} {ad.currency_name}</span>
                </span>
                <span className={s.advertLine}>
                  <span className="muted">{m.c2c_limits()}</span>
                  <span className="num" data-testid="advert-limits">{cny(ad.min_money)} – {cny(ad.max_money)}</span>
                </span>
                <PayKinds kinds={ad.pay_kinds} />
              </div>
              <button
                type="button"
                className={`btn btn-small ${userBuys ? s.btnBuy : s.btnSell}`}
                disabled={ad.own}
                onClick={() => onTake(ad)}
                data-testid="advert-take"
                aria-label={`${userBuys ? m.c2c_buy_coin({ coin: ad.currency_name }) : m.c2c_sell_coin({ coin: ad.currency_name })} · ${ad.seller_name}`}
              >
                {ad.own ? m.c2c_own_advert() : userBuys ? m.c2c_buy() : m.c2c_sell()}
              </button>
            </div>
          </li>
        ))}
      </ul>
      <LoadMoreFoot count={list.items.length} hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} loadMore={list.loadMore} />
    </>
  );
}
