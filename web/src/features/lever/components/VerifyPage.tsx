/**
 * A leveraged position's close checked (issue #20 §3, /lever/verify?id=): the index tick that
 * closed it — id, time, price and its neighbours from the public tick log — with the rule it met
 * in words ("liquidated because the index 90.00 fell to or below your liquidation price 92.92"),
 * the tick it opened at, and this browser's own comparison (verify.ts): "matches" when the tick is
 * the one the close names, at its close price, and crossed the rule's price.
 */
import { useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { formatMoney, formatPrice } from "../../../lib/format.ts";
import { useTickWindow } from "../../../lib/ticks.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { TickWindow, Verdict } from "../../../components/TickWindow.tsx";
import { usePosition, type LeverPositionDetail } from "../api.ts";
import { checkClose } from "../verify.ts";
import s from "./lever.module.css";

export default function VerifyPage() {
  const [params] = useSearchParams();
  const raw = params.get("id") ?? "";
  const id = /^\d{1,16}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
  if (id === null) return <EmptyState text={errText("not_found")} />;
  return <Position id={id} />;
}

/** The rule a close met, in words, with the index and the price it crossed. */
function ruleText(p: LeverPositionDetail, index: string): string {
  const args = { index: formatPrice(index), price: formatPrice(p.trigger_price) };
  const long = p.type === 1;
  switch (p.close_reason) {
    case "liquidation":
      return long ? m.lever_verify_rule_liquidation_long(args) : m.lever_verify_rule_liquidation_short(args);
    case "profit":
      return long ? m.lever_verify_rule_profit_long(args) : m.lever_verify_rule_profit_short(args);
    case "loss":
      return long ? m.lever_verify_rule_loss_long(args) : m.lever_verify_rule_loss_short(args);
    case "cap":
      return m.lever_verify_rule_cap(args);
    default:
      return m.lever_verify_rule_user(args);
  }
}

function Position({ id }: { id: number }) {
  const q = usePosition(id);
  if (q.error) return <ErrorState message={q.error.message} onRetry={q.reload} />;
  if (!q.data) return <SkeletonList rows={4} />;
  const p = q.data;
  return (
    <div className={s.page} data-testid="lever-verify" data-id={p.id}>
      <div className={s.card}>
        <div className={s.row}>
          <strong className={p.type === 1 ? s.up : s.down}>
            {p.type === 1 ? m.lever_long() : m.lever_short()} {p.multiple}×
          </strong>
          <span>
            {p.symbol_name} · {p.share} {m.lever_lots()}
          </span>
        </div>
        <dl className={s.grid}>
          <dt>{m.lever_open_price()}</dt>
          <dd className="num">{formatPrice(p.open_price)}</dd>
          <dt>{m.lever_close_price()}</dt>
          <dd className="num" data-testid="verify-close-price">{formatPrice(p.close_price)}</dd>
          {p.trigger_price !== null && (
            <>
              <dt>{m.lever_verify_trigger()}</dt>
              <dd className="num" data-testid="verify-trigger">{formatPrice(p.trigger_price)}</dd>
            </>
          )}
          <dt>{m.lever_margin()}</dt>
          <dd className="num">{formatMoney(p.margin, "USDT")} USDT</dd>
          <dt>{m.lever_pnl()}</dt>
          <dd className={`num ${p.profit?.startsWith("-") ? s.down : s.up}`}>{formatMoney(p.profit, "USDT")} USDT</dd>
          {p.net_profit !== null && (
            <>
              <dt>{m.lever_net_pnl()}</dt>
              <dd className={`num ${p.net_profit.startsWith("-") ? s.down : s.up}`} data-testid="verify-net-pnl">
                {formatMoney(p.net_profit, "USDT")} USDT
              </dd>
            </>
          )}
        </dl>
      </div>
      {p.status === 5 ? (
        <p className={s.text}>{m.lever_verify_revoked()}</p>
      ) : p.status !== 4 || p.close_tick_id === null ? (
        <p className={s.text} data-testid="verify-pending">{m.lever_verify_pending()}</p>
      ) : (
        <Closed position={p} closeId={p.close_tick_id} />
      )}
    </div>
  );
}

function Closed({ position: p, closeId }: { position: LeverPositionDetail; closeId: number }) {
  const close = useTickWindow(p.match_id, closeId);
  const check = close.data ? checkClose(p, close.data) : null;
  return (
    <>
      <p className={`${s.muted} ${s.text}`}>{m.lever_verify_intro()}</p>
      {close.data && (
        <p className={`${s.text} ${s.rule}`} data-testid="verify-rule">
          {ruleText(p, close.data.tick.price)}
        </p>
      )}
      <TickWindow title={m.lever_verify_close_tick()} matchId={p.match_id} tickId={closeId} testId="verify-close" />
      {check && (
        <Verdict
          matches={check.matches}
          yes={m.lever_verify_matches()}
          no={m.lever_verify_mismatch()}
          reasons={[...(check.tick ? [] : [m.lever_verify_bad_tick()]), ...(check.crossed === false || (check.crossed === null && p.close_reason !== "user") ? [m.lever_verify_bad_rule()] : [])]}
        />
      )}
      {p.open_tick_id !== null && <TickWindow title={m.lever_verify_open_tick()} matchId={p.match_id} tickId={p.open_tick_id} testId="verify-open" />}
    </>
  );
}
