/**
 * The invitees' fees as they LANDED in D1 (migrations/0055: `invite_fee_rows`, one row per fee,
 * numbered by D1 in commit order and appended by triggers on the fee rows' sources), so that a fee
 * row that reaches D1 after the run of its day (objects mode: the read model's drains, up to 30 s
 * late while D1 fails; D1 mode: a spot trade's row through the pair's drain) is counted by the next
 * run, once, instead of falling before that run's window.
 *
 * A run records the highest `seq` when it starts (`invite_runs.fee_seq`). Its fees steps take the
 * rows up to it that no run has claimed and that are the run's own (time in its window) or late
 * (time before its window, inside the window of a run that already exists); each step adds them to
 * `invite_fees` and claims them (`day`) in one batch, both statements selecting `day IS NULL`, so
 * two runs racing (two days, or two invocations of one) count each row once. A row whose time is
 * after the window waits for a later day's run; one before the window whose day has no run yet
 * waits for that day's run.
 */
import { accountsOnObjects } from "../../lib/accounts.ts";
import { feeKindsSql, feeProductSql } from "./fees.ts";

/** Fee rows a fees step takes at most (one statement reads them, two write). */
export const FEE_ROWS_PER_CLAIM = 20_000;

// ?1 day, ?2 after seq, ?3 up to seq, ?4 window from, ?5 window to (epoch ms).
const RUN_START = "COALESCE(r.window_from, (unixepoch(r.day) - 28800) * 1000)";
const RUN_END = "COALESCE(r.window_to, (unixepoch(r.day) + 57600) * 1000)";
const CLAIMABLE = `j.day IS NULL AND j.seq > ?2 AND j.seq <= ?3 AND j.at < ?5
  AND (j.at >= ?4 OR EXISTS (SELECT 1 FROM invite_runs r WHERE ${RUN_START} <= j.at AND j.at < ${RUN_END}))
  AND (j.position_id IS NULL OR EXISTS (SELECT 1 FROM lever_positions p WHERE p.id = j.position_id))`;

/** The highest seq D1 has numbered (a new run counts up to it). */
export const feeSeqSql = "(SELECT COALESCE(MAX(seq), 0) FROM invite_fee_rows)";

export interface ClaimWindow {
  day: string;
  after: number;
  top: number;
  from: number;
  to: number;
}

/** The last seq of the next page of claimable rows, or null when the run has none left. */
export async function nextClaim(db: D1Database, w: ClaimWindow): Promise<number | null> {
  const r = await db
    .prepare(`SELECT MAX(seq) AS hi FROM (SELECT j.seq FROM invite_fee_rows j WHERE ${CLAIMABLE} ORDER BY j.seq LIMIT ${FEE_ROWS_PER_CLAIM})`)
    .bind(w.day, w.after, w.top, w.from, w.to)
    .first<{ hi: number | null }>();
  return r?.hi ?? null;
}

/**
 * The step's statements for rows (w.after, hi]: add them per (invitee, product, currency) to
 * invite_fees (`upsert`: the step's ON CONFLICT clause), then claim them. In D1 mode only the
 * ledger's and spot's rows count (seconds, lever and conversion fees are ledger rows there).
 */
export function claimStatements(env: { DB: D1Database; ACCOUNTS?: string }, w: ClaimWindow, hi: number, upsert: string): D1PreparedStatement[] {
  const db = env.DB;
  const sources = accountsOnObjects(env) ? "'ledger', 'spot', 'lever', 'seconds', 'conversion'" : "'ledger', 'spot'";
  return [
    db
      .prepare(
        `INSERT INTO invite_fees (day, user_id, product, currency_id, fee)
         SELECT ?1, s.uid, s.product, s.currency_id, SUM(s.fee) FROM (
           SELECT COALESCE(j.user_id, (SELECT p.user_id FROM lever_positions p WHERE p.id = j.position_id),
               (SELECT MIN(u.user_id) FROM ledger u WHERE u.movement_key = j.ref AND u.user_id > 0)) AS uid,
             CASE j.source WHEN 'ledger' THEN ${feeProductSql("j.kind")} ELSE j.source END AS product, j.currency_id, j.fee
           FROM invite_fee_rows j
           WHERE ${CLAIMABLE} AND j.source IN (${sources}) AND (j.source <> 'ledger' OR ${feeKindsSql("j.kind")})
         ) s JOIN users x ON x.id = s.uid AND x.parent_id IS NOT NULL
         GROUP BY s.uid, s.product, s.currency_id ${upsert}`,
      )
      .bind(w.day, w.after, hi, w.from, w.to),
    db.prepare(`UPDATE invite_fee_rows AS j SET day = ?1 WHERE ${CLAIMABLE}`).bind(w.day, w.after, hi, w.from, w.to),
  ];
}

/** A run made before migration 0055 counts its window's hours: it claims the same rows, so no later run counts them again. */
export function claimWindowStatement(db: D1Database, day: string, from: number, to: number): D1PreparedStatement {
  return db.prepare("UPDATE invite_fee_rows SET day = ? WHERE day IS NULL AND at >= ? AND at < ?").bind(day, from, to);
}
