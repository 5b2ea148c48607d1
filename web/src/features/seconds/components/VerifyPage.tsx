/**
 * A seconds contract's check (issue #20 §3, /trade/verify?id=): its terms and prices, the entry
 * and exit index ticks with their ids, times and neighbours from the public tick log (the expiry
 * marked between the exit and the tick after it), the entry, exit and tie rules in words, and the
 * result recomputed in this browser from the two ticks, the direction, the published ratio and the
 * stake (verify.ts), side by side with what was settled and a plain "matches" / "does not match".
 */
import { useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { compareDecimal } from "../../../lib/amount.ts";
import { formatDateTime, formatPrice, formatMoneyMoved } from "../../../lib/format.ts";
import { useProducts } from "../../../lib/products.ts";
import { useTickWindow } from "../../../lib/ticks.ts";
import { errText } from "../../../i18n/errors.ts";
import { EmptyState, ErrorState, PageSpinner, SkeletonList } from "../../../components/States.tsx";
import { TickWindow, Verdict } from "../../../components/TickWindow.tsx";
import { useContract, type SecondsOrder } from "../api.ts";
import { signedResult } from "../display.ts";
import { checkContract } from "../verify.ts";
import { NotOpen } from "./NotOpen.tsx";
import { statusLabel } from "./TradeListsPage.tsx";
import s from "./seconds.module.css";
import { Fact } from "../../../components/KvRow.tsx";

export default function VerifyPage() {
  const products = useProducts();
  const [params] = useSearchParams();
  const raw = params.get("id") ?? "";
  const id = /^\d{1,16}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
  if (!products) return <PageSpinner />;
  if (!products.seconds) return <NotOpen />;
  if (id === null) return <EmptyState text={errText("not_found")} />;
  return <Contract id={id} />;
}

function Contract({ id }: { id: number }) {
  const q = useContract(id);
  if (q.error) return <ErrorState message={q.error.message} onRetry={q.reload} />;
  if (!q.data) return <SkeletonList rows={4} />;
  const o = q.data;
  const up = o.type === 1;
  return (
    <div className={s.verify} data-testid="sec-verify" data-id={o.id}>
      <div className={s.verifyHead}>
        <span className={`${s.dirTag} ${up ? s.up : s.down}`}>{up ? m.sec_up() : m.sec_down()}</span>
        <span className={s.rowSymbol}>{o.symbol_name}</span>
        <span className="muted num">{formatDateTime(o.create_time_format)}</span>
        <span className={`badge ${o.status === 3 ? "badge-ok" : o.status === 4 ? "badge-none" : "badge-pending"} ${s.recordStatus}`}>{statusLabel(o.status)}</span>
      </div>
      <dl className={s.recordGrid}>
        <Fact label={m.sec_amount()}>{formatMoneyMoved(o.number, o.currency_name)} {o.currency_name}</Fact>
        <Fact label={m.sec_duration()}>{m.sec_seconds_short({ seconds: o.seconds })} · {m.sec_ratio({ ratio: o.profit_ratio })}</Fact>
        <Fact label={m.sec_result_gross()} tone={signedResult(o.fact_profits, o.currency_name).tone} testId="verify-settled">{signedResult(o.fact_profits, o.currency_name).text}</Fact>
        <Fact label={m.sec_open_price()} testId="verify-open">{formatPrice(o.open_price)}</Fact>
        <Fact label={m.sec_close_price()} testId="verify-close">{formatPrice(o.end_price)}</Fact>
      </dl>
      {o.status === 4 ? (
        <p className={s.verifyNote}>{m.sec_verify_revoked()}</p>
      ) : o.status !== 3 || o.open_tick_id === null || o.end_tick_id === null ? (
        <p className={s.verifyNote} data-testid="verify-pending">{m.sec_verify_pending()}</p>
      ) : (
        <Settled order={o} entryId={o.open_tick_id} exitId={o.end_tick_id} />
      )}
    </div>
  );
}

function Settled({ order: o, entryId, exitId }: { order: SecondsOrder; entryId: number; exitId: number }) {
  const entry = useTickWindow(o.match_id, entryId);
  const exit = useTickWindow(o.match_id, exitId);
  const check = entry.data && exit.data ? checkContract(o, entry.data, exit.data) : null;
  const direction = o.type === 1 ? m.sec_up() : m.sec_down();
  return (
    <>
      <p className={s.verifyNote}>{m.sec_verify_intro()}</p>
      <ul className={s.verifyRules}>
        <li>{m.sec_verify_entry_rule()}</li>
        <li>{m.sec_verify_exit_rule({ time: formatDateTime(o.end_at) })}</li>
        <li data-testid="verify-tie-rule">{m.sec_tie_rule()}</li>
      </ul>
      <TickWindow title={m.sec_entry_tick()} matchId={o.match_id} tickId={entryId} testId="verify-entry" />
      <TickWindow title={m.sec_exit_tick()} matchId={o.match_id} tickId={exitId} mark={{ at: o.end_at, label: m.sec_verify_expiry({ time: formatDateTime(o.end_at) }) }} testId="verify-exit" />
      {check && entry.data && exit.data && (
        <section className={s.verifyResult} data-testid="verify-recompute">
          <p>
            {(() => {
              const c = compareDecimal(exit.data.tick.price, entry.data.tick.price);
              const args = { exit: formatPrice(exit.data.tick.price), entry: formatPrice(entry.data.tick.price) };
              return c === 1 ? m.sec_verify_cmp_above(args) : c === 0 ? m.sec_verify_cmp_equal(args) : m.sec_verify_cmp_below(args);
            })()}
          </p>
          {check.recomputed && (
            <p>
              {check.recomputed.won
                ? m.sec_verify_won({ direction, ratio: o.profit_ratio, amount: `${signedResult(check.recomputed.result, o.currency_name).text} ${o.currency_name}` })
                : m.sec_verify_lost({ direction, amount: `${signedResult(check.recomputed.result, o.currency_name).text} ${o.currency_name}` })}
            </p>
          )}
          <dl className={s.verifyCompare}>
            <Fact label={m.sec_verify_recomputed()} tone={signedResult(check.recomputed?.result ?? null, o.currency_name).tone} testId="verify-recomputed">{signedResult(check.recomputed?.result ?? null, o.currency_name).text} {o.currency_name}</Fact>
            <Fact label={m.sec_verify_settled()} tone={signedResult(o.fact_profits, o.currency_name).tone}>{signedResult(o.fact_profits, o.currency_name).text} {o.currency_name}</Fact>
          </dl>
        </section>
      )}
      {check && (
        <Verdict
          matches={check.matches}
          yes={m.sec_verify_matches()}
          no={m.sec_verify_mismatch()}
          reasons={[...(check.entry ? [] : [m.sec_verify_bad_entry()]), ...(check.exit ? [] : [m.sec_verify_bad_exit()]), ...(check.result ? [] : [m.sec_verify_bad_result()])]}
        />
      )}
    </>
  );
}
