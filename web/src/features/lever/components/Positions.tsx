/**
 * One list of positions (trading, pending or history) with what each can do. Closing is never one
 * tap (issue #16 §3): "Close position" and "Close all positions" open a dialog showing each
 * position (pair, direction, lots, open price), the index now, the expected P/L, the close fee and
 * what returns to the lever balance, as the server computes them at that index (refreshed every
 * 2 s while the dialog is open). The TP/SL editor has only "Save TP/SL" and "Cancel"; the close
 * button is hidden while it is open. A closed position links to its check (/lever/verify: the
 * index tick that closed it and the rule it met, issue #20 §3).
 */
import { useState } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatExact, formatMoney, formatMoneyMoved, formatPrice } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { Modal } from "../../../components/Modal.tsx";
import { EmptyState, ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useCancel, useClose, useCloseAll, usePositions, useSetStops, type LeverPosition } from "../api.ts";
import { sumUsdt } from "../math.ts";
import s from "./lever.module.css";

const reasonText: Record<NonNullable<LeverPosition["close_reason"]>, () => string> = {
  user: m.lever_reason_user,
  profit: m.lever_reason_profit,
  loss: m.lever_reason_loss,
  liquidation: m.lever_reason_liquidation,
  cap: m.lever_reason_cap,
  revoked: m.lever_reason_revoked,
};

/** A signed USDT amount by the one amount rule: "+1.50 USDT", "-0.30 USDT", "0.00 USDT". */
const signed = (v: string | null) => {
  if (v === null) return "--";
  return `${v.startsWith("-") || formatExact(v) === "0" ? "" : "+"}${formatMoneyMoved(v, "USDT")} USDT`;
};
/** Red for a loss, green for a gain, neither for zero or unknown. */
const tone = (v: string | null) => (v === null || formatExact(v) === "0" ? undefined : v.startsWith("-") ? s.down : s.up);

export function Positions({ status }: { status: 1 | 2 | 4 }) {
  const list = usePositions(status);
  const cancel = useCancel();
  // Which close is being confirmed: one position's id, or all of them.
  const [closing, setClosing] = useState<number | "all" | null>(null);
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (!list.data) return <SkeletonBlock height={120} />;
  const rows = list.data.message.data;
  if (rows.length === 0) return <EmptyState text={m.lever_empty()} />;
  // The dialog follows the live rows (P/L at the index, refreshed every 2 s).
  const toClose = closing === "all" ? rows.filter((p) => p.status === 2) : rows.filter((p) => p.id === closing && p.status === 2);
  return (
    <div data-testid={`lever-list-${status}`}>
      {status === 2 && (
        <button type="button" className={`btn btn-small btn-outline ${s.closeAll}`} onClick={() => setClosing("all")} data-testid="lever-close-all">
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
            <dt>{m.lever_margin()}</dt><dd>{formatMoney(p.margin, "USDT")} USDT</dd>
            <dt>{m.lever_pnl()}</dt><dd className={p.profit?.startsWith("-") ? s.down : s.up} data-testid="lever-pnl">{formatMoney(p.profit, "USDT")} USDT</dd>
            {p.net_profit !== null && <><dt>{m.lever_net_pnl()}</dt><dd className={p.net_profit.startsWith("-") ? s.down : s.up} data-testid="lever-net-pnl">{formatMoney(p.net_profit, "USDT")} USDT</dd></>}
            {status === 2 && <><dt>{m.lever_risk()}</dt><dd>{p.risk_rate === null ? "--" : `${p.risk_rate}%`}</dd></>}
            {status === 2 && <><dt>{m.lever_force()}</dt><dd data-testid="lever-force">{formatPrice(p.force_price)}</dd></>}
            {status !== 4 && <><dt>{m.lever_gain_cap()}</dt><dd data-testid="lever-gain-cap">{formatMoney(p.gain_cap, "USDT")} USDT</dd></>}
            {status === 2 && p.cap_price !== null && <><dt>{m.lever_cap_price()}</dt><dd data-testid="lever-cap-price">{formatPrice(p.cap_price)}</dd></>}
            <dt>{m.lever_fee()}</dt><dd>{formatMoneyMoved(p.trade_fee, "USDT")}{p.close_fee ? ` + ${formatMoneyMoved(p.close_fee, "USDT")}` : ""} USDT</dd>
            <dt>{m.lever_overnight()}</dt><dd>{formatMoneyMoved(p.overnight_fee, "USDT")} USDT</dd>
            <dt>{m.lever_tp()}</dt><dd>{formatPrice(p.stop_profit)}</dd>
            <dt>{m.lever_sl()}</dt><dd>{formatPrice(p.stop_loss)}</dd>
          </dl>
          {status === 4 && p.status === 4 && (
            <Link to={`/lever/verify?id=${p.id}`} className={s.verifyLink} data-testid="lever-verify-link">
              {m.lever_verify_link()} ›
            </Link>
          )}
          {status === 2 && <PositionActions position={p} onClose={() => setClosing(p.id)} />}
          {status === 1 && (
            <button type="button" className="btn btn-small" onClick={() => void cancel(p.id).then(() => toast.success(m.lever_cancelled())).catch(() => undefined)} data-testid="lever-cancel">
              {m.lever_cancel()}
            </button>
          )}
        </div>
      ))}
      {closing !== null && <CloseConfirm all={closing === "all"} positions={toClose} onDone={() => setClosing(null)} />}
    </div>
  );
}

/** A trading position's buttons: "Set TP/SL" and "Close position"; the editor replaces both while open. */
function PositionActions({ position, onClose }: { position: LeverPosition; onClose: () => void }) {
  const [editing, setEditing] = useState(false);
  if (editing) return <StopsEditor position={position} onDone={() => setEditing(false)} />;
  return (
    <div className={s.toggle}>
      <button type="button" className="btn btn-small btn-outline" onClick={() => setEditing(true)} data-testid="lever-stops">
        {m.lever_set_stops()}
      </button>
      <button type="button" className={`btn btn-small btn-outline ${s.closeBtn}`} onClick={onClose} data-testid="lever-close">
        {m.lever_close()}
      </button>
    </div>
  );
}

function StopsEditor({ position, onDone }: { position: LeverPosition; onDone: () => void }) {
  const setStops = useSetStops();
  const [tp, setTp] = useState(position.stop_profit ?? "");
  const [sl, setSl] = useState(position.stop_loss ?? "");
  const [busy, setBusy] = useState(false);
  return (
    <form
      className={s.stopsForm}
      data-testid="lever-stops-form"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        void setStops(position.id, tp, sl)
          .then(() => {
            toast.success(m.lever_saved());
            onDone();
          })
          .catch(() => undefined)
          .finally(() => setBusy(false));
      }}
    >
      <div className={s.pair2}>
        <label className={s.field}>
          <span>{m.lever_tp()}</span>
          <input className="input" inputMode="decimal" value={tp} onChange={(e) => setTp(e.target.value.trim())} data-testid="lever-stops-tp" />
        </label>
        <label className={s.field}>
          <span>{m.lever_sl()}</span>
          <input className="input" inputMode="decimal" value={sl} onChange={(e) => setSl(e.target.value.trim())} data-testid="lever-stops-sl" />
        </label>
      </div>
      <div className={s.toggle}>
        <button type="button" className="btn btn-small btn-ghost" onClick={onDone} disabled={busy} data-testid="lever-stops-cancel">
          {m.lever_stops_discard()}
        </button>
        <button type="submit" className="btn btn-small btn-primary" disabled={busy} data-testid="lever-stops-save">
          {m.lever_save()}
        </button>
      </div>
    </form>
  );
}

function CloseConfirm({ all, positions, onDone }: { all: boolean; positions: LeverPosition[]; onDone: () => void }) {
  const close = useClose();
  const closeAll = useCloseAll();
  const [busy, setBusy] = useState(false);
  const go = () => {
    setBusy(true);
    const done = all
      ? closeAll().then((r) => {
          if (r.failed.length === 0) toast.success(m.lever_closed_n({ count: r.closed.length }));
          else toast.error(r.failed.map((f) => `#${f.id}: ${f.message}`).join("\n"));
        })
      : close(positions[0]!.id).then(() => toast.success(m.lever_closed()));
    void done
      .catch(() => undefined)
      .finally(() => {
        setBusy(false);
        onDone();
      });
  };
  const pnl = sumUsdt(positions.map((p) => p.profit));
  const payout = sumUsdt(positions.map((p) => p.payout_now));
  return (
    <Modal
      title={all ? m.lever_close_all_title({ count: positions.length }) : m.lever_close_title()}
      onClose={onDone}
      busy={busy}
      testId="lever-close-confirm"
      dismiss={{ text: m.lever_keep_open(), testId: "lever-close-keep" }}
      actions={
        <button type="button" className={`btn ${s.shortBtn}`} onClick={go} disabled={busy || positions.length === 0} data-testid="lever-close-go">
          {busy && <Spinner size={16} />}
          {all ? m.lever_close_all() : m.lever_close()}
        </button>
      }
    >
      {positions.length === 0 ? (
        <p className={s.text}>{m.lever_close_nothing()}</p>
      ) : (
        <>
          {positions.map((p) => (
            <dl key={p.id} className={s.terms} data-testid="lever-close-position">
              <div>
                <dt>{m.lever_position()}</dt>
                <dd>
                  <span className={p.type === 1 ? s.up : s.down}>{p.type === 1 ? m.lever_long() : m.lever_short()} {p.multiple}×</span> {p.symbol_name}
                </dd>
              </div>
              <div>
                <dt>{m.lever_lots()}</dt>
                <dd>{m.lever_lots_of({ lots: String(p.share), size: p.lever_share_num, coin: p.symbol_name.split("/")[0] ?? "" })}</dd>
              </div>
              <div>
                <dt>{m.lever_open_price()}</dt>
                <dd>{formatPrice(p.open_price)} USDT</dd>
              </div>
              <div>
                <dt>{m.lever_index_now()}</dt>
                <dd data-testid="lever-close-index">{formatPrice(p.index_price)} USDT</dd>
              </div>
              <div>
                <dt>{m.lever_expected_pnl()}</dt>
                <dd className={tone(p.profit)} data-testid="lever-close-pnl">{signed(p.profit)}</dd>
              </div>
              <div>
                <dt>{m.lever_net_pnl()}</dt>
                <dd className={tone(p.net_profit)} data-testid="lever-close-net">{signed(p.net_profit)}</dd>
              </div>
              <div>
                <dt>{m.lever_close_fee()}</dt>
                <dd>{p.close_fee_now === null ? "--" : `${formatMoneyMoved(p.close_fee_now, "USDT")} USDT`}</dd>
              </div>
              {!all && (
                <div className={s.termsTotal}>
                  <dt>{m.lever_payout()}</dt>
                  <dd data-testid="lever-close-payout">{p.payout_now === null ? "--" : `${formatMoneyMoved(p.payout_now, "USDT")} USDT`}</dd>
                </div>
              )}
            </dl>
          ))}
          {all && (
            <dl className={`${s.terms} ${s.totals}`} data-testid="lever-close-totals">
              <div>
                <dt>{m.lever_expected_pnl()}</dt>
                <dd className={tone(pnl)} data-testid="lever-close-total-pnl">{signed(pnl)}</dd>
              </div>
              <div>
                <dt>{m.lever_payout()}</dt>
                <dd data-testid="lever-close-payout">{payout === null ? "--" : `${formatMoneyMoved(payout, "USDT")} USDT`}</dd>
              </div>
            </dl>
          )}
          <p className={s.note}>{m.lever_close_note()}</p>
        </>
      )}
    </Modal>
  );
}
