/**
 * Leveraged contracts (issue #11 §2): the pair, its index price, long or short, at market or with a
 * limit price, lots and leverage from the pair's settings, margin and fee shown before confirming,
 * optional take-profit and stop-loss; then the open positions with live P/L, risk rate and
 * liquidation price (refreshed every 2 s), pending limit orders, and the history. A risk
 * disclosure is accepted once per browser before the form shows. Hidden when PRODUCT_LEVER is off.
 */
import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { formatAmount, formatMoney, formatPrice } from "../../../lib/format.ts";
import { useProducts } from "../../../lib/products.ts";
import { toast } from "../../../lib/toast.ts";
import { EmptyState, ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { useCancel, useClose, useCloseAll, useDeal, usePositions, useSetStops, useSubmit, type LeverPosition } from "../api.ts";
import { capPriceOf, lotsOffered, preview, snapLots, stepLots } from "../math.ts";
import s from "./lever.module.css";

const RISK_KEY = "lever_risk_accepted";
/** BTC (spec §9 default coin id 1) and ETH: the pairs seeded with contract settings. */
const PAIRS = [
  { id: 1, name: "BTC" },
  { id: 2, name: "ETH" },
];

const reasonText: Record<NonNullable<LeverPosition["close_reason"]>, () => string> = {
  user: m.lever_reason_user,
  profit: m.lever_reason_profit,
  loss: m.lever_reason_loss,
  liquidation: m.lever_reason_liquidation,
  cap: m.lever_reason_cap,
  revoked: m.lever_reason_revoked,
};

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
  const coinName = PAIRS.find((p) => p.id === coin)?.name ?? "";
  return (
    <div className={s.page}>
      {off ? (
        <div className={s.card} data-testid="lever-off">
          <p className={s.text}>{m.lever_off_existing()}</p>
          <Link to="/transfer" className="btn btn-small">{m.lever_transfer_out()}</Link>
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
      <Positions status={tab} />
    </div>
  );
}

function OrderForm({ coin, coinName }: { coin: number; coinName: string }) {
  const deal = useDeal(coin);
  const submit = useSubmit();
  const [type, setType] = useState<1 | 2>(1);
  const [limit, setLimit] = useState(false);
  const [target, setTarget] = useState("");
  // Until the user picks, the pair's smallest lot count (a multiple of its step).
  const [lotsPicked, setLots] = useState<string | null>(null);
  const [multiple, setMultiple] = useState(10);
  const [tp, setTp] = useState("");
  const [sl, setSl] = useState("");
  const [busy, setBusy] = useState(false);
  if (deal.error) return <ErrorState message={deal.error.message} onRetry={deal.reload} />;
  if (!deal.data) return <SkeletonBlock height={260} />;
  const d = deal.data;
  const lots = lotsPicked ?? String(d.min_share);
  const price = limit ? target : (d.index_price ?? "");
  const lotsOk = lotsOffered(lots, d.min_share, d.max_share, d.share_step);
  const shown = lotsOk ? preview(price, lots, d.lever_share_num, multiple, d.lever_trade_fee) : null;
  const priceDecimals = d.index_price?.split(".")[1]?.length ?? 2;
  const capPrice = type === 1 ? capPriceOf(price, priceDecimals) : null;
  const capText = shown ? (type === 1 && capPrice ? m.lever_cap_long({ value: formatMoney(shown.value, "USDT"), price: formatPrice(capPrice) }) : m.lever_cap_short({ value: formatMoney(shown.value, "USDT") })) : "";
  const send = (e: FormEvent) => {
    e.preventDefault();
    if (!shown) return;
    openConfirm({
      title: m.lever_confirm_title(),
      message: `${type === 1 ? m.lever_long() : m.lever_short()} ${lots} × ${multiple}× ${coinName}/USDT · ${m.lever_margin()} ${formatAmount(shown.margin, 8)} · ${m.lever_fee()} ${formatAmount(shown.fee, 8)} USDT · ${capText}`,
      confirmText: type === 1 ? m.lever_open_long() : m.lever_open_short(),
      cancelText: m.lever_cancel(),
      onConfirm: () => {
        setBusy(true);
        submit({ currency_id: coin, type, share: Number(lots), multiple, target_price: limit ? target : undefined, stop_profit: tp || undefined, stop_loss: sl || undefined })
          .then(() => toast.success(m.lever_opened()))
          .catch(() => undefined)
          .finally(() => setBusy(false));
      },
    });
  };
  return (
    <form className={s.card} onSubmit={send} data-testid="lever-form">
      <div className={s.row}>
        <span className={s.muted}>{m.lever_index()}</span>
        <strong data-testid="lever-index">{d.index_price === null ? "--" : formatPrice(d.index_price)}</strong>
      </div>
      <div className={s.row}>
        <span className={s.muted}>{m.lever_available()}</span>
        <span data-testid="lever-balance">{formatMoney(d.lever_balance, "USDT")} USDT</span>
        <Link to="/transfer" className="btn btn-small">{m.lever_transfer()}</Link>
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
      <div className={s.row} data-testid="lever-preview">
        <span className={s.muted}>{m.lever_margin()}</span>
        <span>{formatAmount(shown?.margin, 8)}</span>
        <span className={s.muted}>{m.lever_fee()} ({d.lever_trade_fee}%)</span>
        <span>{formatAmount(shown?.fee, 8)}</span>
      </div>
      {shown && <p className={s.muted} data-testid="lever-cap-note">{capText}</p>}
      <button type="submit" className={`btn btn-block ${type === 1 ? s.longBtn : s.shortBtn}`} disabled={busy || !shown} data-testid="lever-submit">
        {type === 1 ? m.lever_open_long() : m.lever_open_short()}
      </button>
    </form>
  );
}

function Positions({ status }: { status: 1 | 2 | 4 }) {
  const list = usePositions(status);
  const close = useClose();
  const closeAll = useCloseAll();
  const cancel = useCancel();
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (!list.data) return <SkeletonBlock height={120} />;
  const rows = list.data.message.data;
  if (rows.length === 0) return <EmptyState text={m.lever_empty()} />;
  return (
    <div data-testid={`lever-list-${status}`}>
      {status === 2 && (
        <button type="button" className="btn btn-small" onClick={() => void closeAll().then(() => toast.success(m.lever_closed())).catch(() => undefined)} data-testid="lever-close-all">
          {m.lever_close_all()}
        </button>
      )}
      {rows.map((p) => (
        <div key={p.id} className={s.card} data-testid={`lever-position-${p.id}`}>
          <div className={s.row}>
            <strong className={p.type === 1 ? s.up : s.down}>{p.type === 1 ? m.lever_long() : m.lever_short()} {p.multiple}×</strong>
            <span>{p.symbol_name} · {p.share} {m.lever_lots()}</span>
            {p.close_reason && <span className={s.muted}>{reasonText[p.close_reason]()}</span>}
          </div>
          <dl className={s.grid}>
            <dt>{m.lever_open_price()}</dt><dd>{formatPrice(p.open_price ?? p.target_price)}</dd>
            {status === 4 && <><dt>{m.lever_close_price()}</dt><dd>{formatPrice(p.close_price)}</dd></>}
            {status === 2 && <><dt>{m.lever_index()}</dt><dd>{formatPrice(p.index_price)}</dd></>}
            <dt>{m.lever_margin()}</dt><dd>{formatMoney(p.margin, "USDT")}</dd>
            <dt>{m.lever_pnl()}</dt><dd className={p.profit?.startsWith("-") ? s.down : s.up} data-testid="lever-pnl">{formatMoney(p.profit, "USDT")}</dd>
            {status === 2 && <><dt>{m.lever_risk()}</dt><dd>{p.risk_rate === null ? "--" : `${p.risk_rate}%`}</dd></>}
            {status === 2 && <><dt>{m.lever_force()}</dt><dd data-testid="lever-force">{formatPrice(p.force_price)}</dd></>}
            {status !== 4 && <><dt>{m.lever_gain_cap()}</dt><dd data-testid="lever-gain-cap">{formatMoney(p.gain_cap, "USDT")} USDT</dd></>}
            {status === 2 && p.cap_price !== null && <><dt>{m.lever_cap_price()}</dt><dd data-testid="lever-cap-price">{formatPrice(p.cap_price)}</dd></>}
            <dt>{m.lever_fee()}</dt><dd>{formatMoney(p.trade_fee, "USDT")}{p.close_fee ? ` + ${formatMoney(p.close_fee, "USDT")}` : ""}</dd>
            <dt>{m.lever_overnight()}</dt><dd>{formatMoney(p.overnight_fee, "USDT")}</dd>
            <dt>{m.lever_tp()}</dt><dd>{formatPrice(p.stop_profit)}</dd>
            <dt>{m.lever_sl()}</dt><dd>{formatPrice(p.stop_loss)}</dd>
          </dl>
          {status === 2 && (
            <div className={s.toggle}>
              <StopsEditor position={p} />
              <button type="button" className="btn btn-small" onClick={() => void close(p.id).then(() => toast.success(m.lever_closed())).catch(() => undefined)} data-testid="lever-close">
                {m.lever_close()}
              </button>
            </div>
          )}
          {status === 1 && (
            <button type="button" className="btn btn-small" onClick={() => void cancel(p.id).then(() => toast.success(m.lever_cancelled())).catch(() => undefined)} data-testid="lever-cancel">
              {m.lever_cancel()}
            </button>
          )}
        </div>
      ))}
    </div>
  );
}

function StopsEditor({ position }: { position: LeverPosition }) {
  const setStops = useSetStops();
  const [open, setOpen] = useState(false);
  const [tp, setTp] = useState(position.stop_profit ?? "");
  const [sl, setSl] = useState(position.stop_loss ?? "");
  if (!open) {
    return (
      <button type="button" className="btn btn-small" onClick={() => setOpen(true)} data-testid="lever-stops">
        {m.lever_set_stops()}
      </button>
    );
  }
  return (
    <form
      className={s.pair2}
      onSubmit={(e) => {
        e.preventDefault();
        void setStops(position.id, tp, sl)
          .then(() => {
            toast.success(m.lever_saved());
            setOpen(false);
          })
          .catch(() => undefined);
      }}
    >
      <input className="input" inputMode="decimal" aria-label={m.lever_tp()} placeholder={m.lever_tp()} value={tp} onChange={(e) => setTp(e.target.value.trim())} />
      <input className="input" inputMode="decimal" aria-label={m.lever_sl()} placeholder={m.lever_sl()} value={sl} onChange={(e) => setSl(e.target.value.trim())} />
      <button type="submit" className="btn btn-small btn-primary">{m.lever_save()}</button>
    </form>
  );
}
