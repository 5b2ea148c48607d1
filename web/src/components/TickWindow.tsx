/**
 * One public index tick with its neighbours (issue #20 §3), as a settlement's verification shows
 * it: id, time (the app's time rule, lib/format.ts formatDateTime) and price of each tick, oldest
 * first, the settlement's own tick highlighted, and optionally a marker row at a moment (a seconds
 * contract's expiry) between the ticks before and after it, so the choice of tick can be seen.
 * Shared by the seconds and lever screens (features never import each other).
 */
import { m } from "../i18n/index.ts";
import { formatDateTime, formatPrice } from "../lib/format.ts";
import { useTickWindow, type IndexTick } from "../lib/ticks.ts";
import { ErrorState, SkeletonBlock } from "./States.tsx";
import s from "./TickWindow.module.css";

export interface TickMark {
  /** ms since the epoch */
  at: number;
  label: string;
}

export function TickWindow({ title, matchId, tickId, mark, testId }: { title: string; matchId: number; tickId: number; mark?: TickMark; testId: string }) {
  const q = useTickWindow(matchId, tickId);
  return (
    <section className={s.window} data-testid={testId} aria-label={title}>
      <h3 className={s.title}>
        {title} <span className="num">#{tickId}</span>
      </h3>
      {q.error ? (
        <ErrorState message={q.error.message} onRetry={q.reload} />
      ) : !q.data ? (
        <SkeletonBlock height={140} />
      ) : (
        <TickTable ticks={[...q.data.before, q.data.tick, ...q.data.after]} chosen={q.data.tick.id} mark={mark} noneAfter={q.data.after.length === 0} />
      )}
    </section>
  );
}

function TickTable({ ticks, chosen, mark, noneAfter }: { ticks: IndexTick[]; chosen: number; mark?: TickMark; noneAfter: boolean }) {
  // The marker goes after the last tick at or before its moment.
  const markAfter = mark ? ticks.filter((t) => t.at <= mark.at).at(-1)?.id ?? null : null;
  return (
    <table className={s.table}>
      <thead>
        <tr>
          <th scope="col">{m.tick_col_id()}</th>
          <th scope="col">{m.tick_col_time()}</th>
          <th scope="col" className={s.price}>
            {m.tick_col_price()}
          </th>
        </tr>
      </thead>
      <tbody>
        {mark && markAfter === null && <MarkRow mark={mark} />}
        {ticks.map((t) => (
          <Row key={t.id} tick={t} chosen={t.id === chosen} mark={t.id === markAfter ? mark : undefined} />
        ))}
        {noneAfter && (
          <tr>
            <td colSpan={3} className={s.none}>
              {m.tick_none_after()}
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

function Row({ tick, chosen, mark }: { tick: IndexTick; chosen: boolean; mark?: TickMark }) {
  return (
    <>
      <tr className={chosen ? s.chosen : undefined} data-testid={chosen ? "tick-chosen" : "tick-row"} data-id={tick.id} aria-current={chosen ? "true" : undefined}>
        <td className="num">#{tick.id}</td>
        <td className="num">{formatDateTime(tick.at)}</td>
        <td className={`num ${s.price}`}>{formatPrice(tick.price)}</td>
      </tr>
      {mark && <MarkRow mark={mark} />}
    </>
  );
}

function MarkRow({ mark }: { mark: TickMark }) {
  return (
    <tr className={s.mark} data-testid="tick-mark">
      <td colSpan={3}>{mark.label}</td>
    </tr>
  );
}

/** The browser's verdict on a settlement: "matches" in green, or "does not match" with the reasons. */
export function Verdict({ matches, yes, no, reasons, testId = "verify-verdict" }: { matches: boolean; yes: string; no: string; reasons: string[]; testId?: string }) {
  return (
    <div className={`${s.verdict} ${matches ? s.ok : s.bad}`} role="status" data-testid={testId} data-matches={matches ? "true" : "false"}>
      <strong>{matches ? `✓ ${yes}` : `✗ ${no}`}</strong>
      {!matches && reasons.length > 0 && (
        <ul>
          {reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
