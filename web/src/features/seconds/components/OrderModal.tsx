/**
 * One contract (spec §2 /trade order modal): a circular countdown while it runs (status 1),
 * "settling" once its time is up until the final record arrives (status 2), then the result net of
 * the fee with "settlement finished" (status 3). Below: direction, amount, fee, open price, the
 * expected gain or loss at the current index net of the fee (or the result before and after the
 * fee), the entry and exit tick ids, and once settled a link to the contract's check
 * (/trade/verify: both ticks with their neighbours and the result recomputed in the browser).
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { decimalsOf } from "../../../lib/amount.ts";
import { PLACEHOLDER, formatPrice, formatMoneyMoved } from "../../../lib/format.ts";
import { Modal } from "../../../components/Modal.tsx";
import { Spinner } from "../../../components/States.tsx";
import type { PairRow, SecondsOrder } from "../api.ts";
import { useIndexPrice } from "../hooks.ts";
import { liveResult, netResult, phaseOf, remainingShare, secondsLeft } from "../logic.ts";
import { signedResult } from "../display.ts";
import s from "./seconds.module.css";
import { Fact } from "../../../components/KvRow.tsx";

export function OrderModal({ order, pairs, serverNow, onClose }: { order: SecondsOrder; pairs: PairRow[]; serverNow: number; onClose: () => void }) {
  const pair = pairs.find((p) => p.id === order.match_id) ?? null;
  const { index } = useIndexPrice(pair);
  const { phase, remainMs } = phaseOf(order, serverNow);
  const up = order.type === 1;
  const live = phase === "running" || phase === "settling" ? liveResult(order, index, decimalsOf(order.number)) : null;
  // Net of the fee paid at acceptance both ways, as the form showed before confirming.
  const final = phase === "settled" ? signedResult(netResult(order.fact_profits, order.fee), order.currency_name) : null;
  const gross = phase === "settled" ? signedResult(order.fact_profits, order.currency_name) : null;
  const expected = live ? signedResult(netResult(live.amount, order.fee), order.currency_name) : signedResult(null, order.currency_name);
  const left = secondsLeft(remainMs);
  const share = remainingShare(order, remainMs);
  const R = 44;
  const C = 2 * Math.PI * R;

  return (
    <Modal
      title={`${order.symbol_name} · ${up ? m.sec_up() : m.sec_down()}`}
      onClose={onClose}
      testId="order-modal"
      actions={
        <button type="button" className="btn btn-primary" onClick={onClose} data-testid="order-modal-close">
          {m.close()}
        </button>
      }
    >
      <div className={s.modalTop} data-testid="order-modal-state" data-phase={phase}>
        {phase === "running" ? (
          <div className={s.ring} role="timer" aria-label={m.sec_seconds_left({ seconds: left })}>
            <svg viewBox="0 0 100 100" width="112" height="112" aria-hidden="true">
              <circle cx="50" cy="50" r={R} className={s.ringTrack} />
              <circle cx="50" cy="50" r={R} className={s.ringFill} strokeDasharray={C} strokeDashoffset={C * (1 - share)} transform="rotate(-90 50 50)" />
            </svg>
            <span className={`${s.ringText} num`} data-testid="order-modal-countdown">
              {left}
              <small>s</small>
            </span>
          </div>
        ) : phase === "settling" ? (
          <div className={s.modalSettling} role="status">
            <Spinner size={28} />
            <p>{m.sec_settling()}</p>
          </div>
        ) : phase === "settled" && final ? (
          <div className={s.modalFinal} role="status">
            <span className={`${s.finalAmount} num ${final.tone}`} data-testid="order-modal-result">
              {final.text} {order.currency_name}
            </span>
            <p>{m.sec_settled_net({ fee: `${formatMoneyMoved(order.fee, order.currency_name)} ${order.currency_name}` })}</p>
          </div>
        ) : (
          <div className={s.modalFinal} role="status">
            <p>{m.sec_revoked_body()}</p>
          </div>
        )}
      </div>
      <dl className={s.confirmFacts}>
        <div>
          <dt>{m.sec_col_direction()}</dt>
          <dd className={up ? "up" : "down"}>{up ? m.sec_up() : m.sec_down()}</dd>
        </div>
        <Fact label={m.sec_amount()}>{formatMoneyMoved(order.number, order.currency_name)} {order.currency_name}</Fact>
        <Fact label={m.spot_col_fee()}>{formatMoneyMoved(order.fee, order.currency_name)} {order.currency_name}</Fact>
        <Fact label={m.sec_duration()}>{m.sec_seconds_short({ seconds: order.seconds })} · {m.sec_ratio({ ratio: order.profit_ratio })}</Fact>
        <Fact label={m.sec_open_price()} testId="order-modal-open">{formatPrice(order.open_price)}</Fact>
        {phase === "settled" && gross && (
          <Fact label={m.sec_result_gross()} tone={gross.tone} testId="order-modal-gross">{gross.text} {order.currency_name}</Fact>
        )}
        {phase === "settled" ? (
          <Fact label={m.sec_close_price()} testId="order-modal-close-price">{formatPrice(order.end_price)}</Fact>
        ) : (
          <Fact label={m.sec_current_price()}>{formatPrice(index)}</Fact>
        )}
        {phase !== "settled" && phase !== "revoked" && (
          <Fact label={m.sec_expected()} tone={expected.tone} testId="order-modal-expected">{expected.text} {order.currency_name}</Fact>
        )}
        <Fact label={m.sec_entry_tick()} testId="entry-tick">{order.open_tick_id === null ? <span className="muted">{PLACEHOLDER}</span> : `#${order.open_tick_id}`}</Fact>
        <Fact label={m.sec_exit_tick()} testId="exit-tick">{order.end_tick_id === null ? <span className="muted">{m.sec_exit_tick_pending()}</span> : `#${order.end_tick_id}`}</Fact>
      </dl>
      <p className={s.note}>{m.sec_tie_rule()}</p>
      {phase === "settled" && (
        <Link to={`/trade/verify?id=${order.id}`} className={s.verifyLink} data-testid="order-modal-verify">
          {m.sec_verify_link()}
        </Link>
      )}
    </Modal>
  );
}
