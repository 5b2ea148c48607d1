/**
 * Leveraged contracts (issue #11 §2, #16 §3): the pair, its index price, long or short, at market
 * or with a limit price, lots and leverage from the pair's settings, optional take-profit and
 * stop-loss; before confirming, everything the open charges and risks (margin, fee, overnight fee
 * per day, maintenance rate, liquidation price) on the form and again, with units, in the confirm
 * dialog (OpenConfirm), computed from the price the server will use; then the open positions with
 * live P/L, risk rate and liquidation price (refreshed every 2 s), pending limit orders, and the
 * history (Positions). A risk disclosure is accepted once per browser before the form shows.
 * Hidden when PRODUCT_LEVER is off.
 */
import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { formatMoney, formatPrice, formatMoneyMoved } from "../../../lib/format.ts";
import { useProducts } from "../../../lib/products.ts";
import { toast } from "../../../lib/toast.ts";
import { ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { ProductSwitch } from "../../../components/ProductSwitch.tsx";
import { LoginCta } from "../../../components/LoginCta.tsx";
import { loginPath, navigateTo } from "../../../lib/nav.ts";
import { useLoggedIn } from "../../../lib/session.ts";
import { useDeal, useSubmit } from "../api.ts";
import { capPriceOf, lotsOffered, openTerms, priceAt, snapLots, stepLots } from "../math.ts";
import { OpenConfirm, type OpenSummary } from "./OpenConfirm.tsx";
import { Positions } from "./Positions.tsx";
import s from "./lever.module.css";

const RISK_KEY = "lever_risk_accepted";
/** BTC (spec §9 default coin id 1) and ETH: the pairs seeded with contract settings. */
const PAIRS = [
  { id: 1, name: "BTC" },
  { id: 2, name: "ETH" },
];

export default function LeverPage() {
  const products = useProducts();
  const [accepted, setAccepted] = useState(() => localStorage.getItem(RISK_KEY) === "1");
  // Switched off: no new positions, but what an owner already has stays visible and closable.
  if (products && !products.lever) return <LeverDesk off />;
  if (!accepted) {
    return (
      <div className={s.page}>
        <div className={s.card} data-testid="lever-risk">
          <h2 className={s.title}>{m.lever_risk_title()}</h2>
          <p className={s.text}>{m.lever_risk_text()}</p>
          <button
            type="button"
            className="btn btn-primary btn-block"
            data-testid="lever-risk-accept"
            onClick={() => {
              localStorage.setItem(RISK_KEY, "1");
              setAccepted(true);
            }}
          >
            {m.lever_risk_accept()}
          </button>
        </div>
      </div>
    );
  }
  return <LeverDesk />;
}

function LeverDesk({ off = false }: { off?: boolean }) {
  const [coin, setCoin] = useState(1);
  const [tab, setTab] = useState<1 | 2 | 4>(2);
  // Open to guests (issue #26): the terms and the index are public; positions are the user's own.
  const loggedIn = useLoggedIn();
  const coinName = PAIRS.find((p) => p.id === coin)?.name ?? "";
  return (
    <div className={s.page}>
      <ProductSwitch />
      {off ? (
        <div className={s.card} data-testid="lever-off">
          <p className={s.text}>{m.lever_off_existing()}</p>
          <Link to="/transfer?from=lever&to=change" className="btn btn-small" data-testid="lever-transfer-out">{m.lever_transfer_out()}</Link>
        </div>
      ) : (
        <>
          <div className={s.pairs} role="tablist" aria-label={m.lever_pair()}>
            {PAIRS.map((p) => (
              <button key={p.id} type="button" role="tab" aria-selected={coin === p.id} className={coin === p.id ? s.tabOn : s.tab} onClick={() => setCoin(p.id)} data-testid={`lever-pair-${p.name}`}>
                {p.name}/USDT
              </button>
            ))}
          </div>
          <OrderForm key={coin} coin={coin} coinName={coinName} />
        </>
      )}
      <div className={s.pairs} role="tablist">
        {([2, 1, 4] as const).map((t) => (
          <button key={t} type="button" role="tab" aria-selected={tab === t} className={tab === t ? s.tabOn : s.tab} onClick={() => setTab(t)} data-testid={`lever-tab-${t}`}>
            {t === 2 ? m.lever_tab_positions() : t === 1 ? m.lever_tab_pending() : m.lever_tab_history()}
          </button>
        ))}
      </div>
      {loggedIn ? <Positions status={tab} /> : <LoginCta text={m.login_to_see_positions()} testId="lever-positions-login" />}
    </div>
  );
}

function OrderForm({ coin, coinName }: { coin: number; coinName: string }) {
  const deal = useDeal(coin);
  const submit = useSubmit();
  const loggedIn = useLoggedIn();
  const [type, setType] = useState<1 | 2>(1);
  const [limit, setLimit] = useState(false);
  const [target, setTarget] = useState("");
  // Until the user picks, the pair's smallest lot count (a multiple of its step).
  const [lotsPicked, setLots] = useState<string | null>(null);
  const [multiple, setMultiple] = useState(10);
  const [tp, setTp] = useState("");
  const [sl, setSl] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [confirmError, setConfirmError] = useState("");
  const [busy, setBusy] = useState(false);
  if (deal.error && !deal.data) return <ErrorState message={deal.error.message} onRetry={deal.reload} />;
  if (!deal.data) return <SkeletonBlock height={260} />;
  const d = deal.data;
  const lots = lotsPicked ?? String(d.min_share);
  // A market open is priced at the index the server has when it arrives; this is the latest one
  // the screen has (refreshed every 2 s), and the one the open confirms.
  const price = limit ? target : (d.index_price ?? "");
  const lotsOk = lotsOffered(lots, d.min_share, d.max_share, d.share_step);
  const priceDecimals = d.index_price?.split(".")[1]?.length ?? 2;
  const terms = lotsOk
    ? openTerms({
        direction: type,
        price,
        lots,
        lotSize: d.lever_share_num,
        leverage: multiple,
        feePercent: d.lever_trade_fee,
        overnightPercent: d.overnight_fee,
        maintenancePercent: d.maintenance_rate,
        priceDecimals,
      })
    : null;
  const capPrice = type === 1 ? capPriceOf(price, priceDecimals) : null;
  const capText = terms ? (type === 1 && capPrice ? m.lever_cap_long({ value: formatMoney(terms.value, "USDT"), price: formatPrice(capPrice) }) : m.lever_cap_short({ value: formatMoney(terms.value, "USDT") })) : "";
  const summary: OpenSummary | null = terms
    ? {
        coinName,
        type,
        limit,
        price,
        lots,
        lotSize: d.lever_share_num,
        multiple,
        feePercent: d.lever_trade_fee,
        overnightPercent: d.overnight_fee,
        maintenancePercent: d.maintenance_rate,
        tolerancePercent: d.price_tolerance,
        tp: tp && priceAt(tp, priceDecimals),
        sl: sl && priceAt(sl, priceDecimals),
        terms,
        capText,
      }
    : null;
  const send = (e: FormEvent) => {
    e.preventDefault();
    if (!loggedIn) return navigateTo(loginPath());
    if (!terms) return;
    setConfirmError("");
    setConfirming(true);
  };
  const go = () => {
    if (!summary || busy) return;
    setBusy(true);
    setConfirmError("");
    submit({
      currency_id: coin,
      type,
      share: Number(lots),
      multiple,
      target_price: limit ? target : undefined,
      // the index the table showed when "Open" was tapped: the server refuses the open if its own moved further
      index_price: limit ? undefined : price,
      stop_profit: tp || undefined,
      stop_loss: sl || undefined,
    })
      .then(() => {
        toast.success(m.lever_opened());
        setConfirming(false);
      })
      .catch((err: unknown) => {
        if (err instanceof ApiFailure && err.code === "price_moved") {
          // The dialog stays, with the new index's figures and the server's message; the user confirms again or not.
          setConfirmError(err.message);
          deal.reload();
          return;
        }
        setConfirming(false);
        // 997/998/999 are the API client's (a dialog or the login screen); anything else is told here.
        if (err instanceof ApiFailure && err.kind !== "997" && err.kind !== "998" && err.kind !== "999") toast.error(err.message);
      })
      .finally(() => setBusy(false));
  };
  const usdt = (v: string | undefined) => (v === undefined ? "--" : `${formatMoneyMoved(v, "USDT")} USDT`);
  return (
    <form className={s.card} onSubmit={send} data-testid="lever-form">
      <div className={s.row}>
        <span className={s.muted}>{m.lever_index()}</span>
        <strong data-testid="lever-index">{d.index_price === null ? "--" : formatPrice(d.index_price)}</strong>
      </div>
      <div className={s.row}>
        <span className={s.muted}>{m.lever_available()}</span>
        <span data-testid="lever-balance">{formatMoney(d.lever_balance, "USDT")} USDT</span>
        <Link to="/transfer?from=change&to=lever" className="btn btn-small" data-testid="lever-transfer-in">{m.lever_transfer()}</Link>
      </div>
      <div className={s.toggle}>
        <button type="button" className={type === 1 ? s.longOn : s.tab} onClick={() => setType(1)} data-testid="lever-long">{m.lever_long()}</button>
        <button type="button" className={type === 2 ? s.shortOn : s.tab} onClick={() => setType(2)} data-testid="lever-short">{m.lever_short()}</button>
      </div>
      <div className={s.toggle}>
        <button type="button" className={!limit ? s.tabOn : s.tab} onClick={() => setLimit(false)}>{m.lever_market()}</button>
        <button type="button" className={limit ? s.tabOn : s.tab} onClick={() => setLimit(true)} data-testid="lever-limit">{m.lever_limit()}</button>
      </div>
      {limit && (
        <label className={s.field}>
          <span>{m.lever_target()}</span>
          <input className="input" inputMode="decimal" value={target} onChange={(e) => setTarget(e.target.value.trim())} data-testid="lever-target" />
        </label>
      )}
      <label className={s.field}>
        <span>
          {m.lever_lots()}{" "}
          <small className={s.muted}>
            {m.lever_lot_size({ size: d.lever_share_num, coin: coinName })} · {d.min_share}–{d.max_share}
            {d.share_step > 1 && <> · {m.lever_lots_step({ step: d.share_step })}</>}
          </small>
        </span>
        <span className={s.toggle}>
          <button type="button" className="btn btn-small" aria-label={m.lever_lots_less()} onClick={() => setLots(stepLots(lots, d.min_share, d.max_share, d.share_step, -1))} data-testid="lever-lots-less">−</button>
          <input
            className="input"
            inputMode="numeric"
            value={lots}
            aria-invalid={!lotsOk}
            onChange={(e) => setLots(e.target.value.replace(/\D/g, ""))}
            onBlur={() => {
              if (!lotsOk) setLots(snapLots(lots, d.min_share, d.max_share, d.share_step));
            }}
            data-testid="lever-lots"
          />
          <button type="button" className="btn btn-small" aria-label={m.lever_lots_more()} onClick={() => setLots(stepLots(lots, d.min_share, d.max_share, d.share_step, 1))} data-testid="lever-lots-more">+</button>
        </span>
        {!lotsOk && <small className={s.down} data-testid="lever-lots-bad">{m.lever_lots_bad({ min: d.min_share, max: d.max_share, step: d.share_step })}</small>}
      </label>
      <label className={s.field}>
        <span>{m.lever_leverage()}</span>
        <select className="input" value={multiple} onChange={(e) => setMultiple(Number(e.target.value))} data-testid="lever-multiple">
          {d.multiples.map((x) => (
            <option key={x} value={x}>{x}×</option>
          ))}
        </select>
      </label>
      <div className={s.pair2}>
        <label className={s.field}>
          <span>{m.lever_tp()} <small className={s.muted}>{m.lever_optional()}</small></span>
          <input className="input" inputMode="decimal" value={tp} onChange={(e) => setTp(e.target.value.trim())} data-testid="lever-tp" />
        </label>
        <label className={s.field}>
          <span>{m.lever_sl()} <small className={s.muted}>{m.lever_optional()}</small></span>
          <input className="input" inputMode="decimal" value={sl} onChange={(e) => setSl(e.target.value.trim())} data-testid="lever-sl" />
        </label>
      </div>
      <dl className={s.terms} data-testid="lever-preview">
        <div>
          <dt>{m.lever_margin()}</dt>
          <dd>{usdt(terms?.margin)}</dd>
        </div>
        <div>
          <dt>{m.lever_fee_open({ percent: d.lever_trade_fee })}</dt>
          <dd>{usdt(terms?.fee)}</dd>
        </div>
        <div>
          <dt>{m.lever_overnight_day({ percent: d.overnight_fee })}</dt>
          <dd data-testid="lever-preview-overnight">{usdt(terms?.overnightPerDay)}</dd>
        </div>
        <div>
          <dt>{m.lever_maintenance()}</dt>
          <dd>{d.maintenance_rate}%</dd>
        </div>
        <div>
          <dt>{m.lever_force()}</dt>
          <dd data-testid="lever-preview-liquidation">{!terms ? "--" : terms.liquidation === null ? m.lever_none() : `${formatPrice(terms.liquidation)} USDT`}</dd>
        </div>
      </dl>
      {terms && <p className={s.muted} data-testid="lever-cap-note">{capText}</p>}
      <button type="submit" className={`btn btn-block ${type === 1 ? s.longBtn : s.shortBtn}`} disabled={busy || !terms} data-testid="lever-submit">
        {type === 1 ? m.lever_open_long() : m.lever_open_short()}
      </button>
      {confirming && summary && <OpenConfirm o={summary} busy={busy} error={confirmError} onCancel={() => setConfirming(false)} onConfirm={go} />}
    </form>
  );
}
