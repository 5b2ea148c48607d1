/**
 * The console's rounds (operators only): open a round (its title, candidates, window and the
 * published minimum balance in a stated currency), close it early (the tally stands) or cancel it
 * (the tally is void); every action is audited with its reason in the action's own batch. Closing
 * or cancelling releases the voters' holds at once (the every-minute job takes any rest). No
 * operator can be a voter (the database refuses an operator's hold), so no operator decides a
 * round in which they hold money.
 */
import type { VoteRound, VoteRoundCreate } from "../../../schemas/vote.ts";
import { ApiError } from "../../lib/errors.ts";
import { auditStatement, runGuarded } from "../../lib/guarded.ts";
import { amountOrThrow, getCurrency } from "../wallet/currency.ts";
import { releaseDueHolds } from "./release.ts";
import { listRounds, roundView } from "./rounds.ts";

export async function adminRounds(db: D1Database, now = Date.now()): Promise<VoteRound[]> {
  return listRounds(db, null, now);
}

export async function createRound(db: D1Database, operatorId: number, input: VoteRoundCreate, now = Date.now()): Promise<VoteRound> {
  const currency = await getCurrency(db, input.currency_id);
  const units = amountOrThrow(input.min_balance, currency.scale);
  if (input.ends_at <= now) throw new ApiError("vote_window", 400, { field: "ends_at" });
  // The round, its candidates and the audit row in one batch (one transaction, in which the newest
  // round is this one), so no round is ever listed without its candidates or its audit row.
  const LAST = "(SELECT MAX(id) FROM vote_rounds)";
  const [created] = await db.batch([
    db
      .prepare("INSERT INTO vote_rounds (title, currency_id, min_units, starts_at, ends_at, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id")
      .bind(input.title, currency.id, units.toString(), input.starts_at, input.ends_at, operatorId, now),
    ...input.candidates.map((c, i) =>
      db.prepare(`INSERT INTO vote_candidates (round_id, position, name, symbol, description, link) VALUES (${LAST}, ?, ?, ?, ?, ?)`).bind(i + 1, c.name, c.symbol, c.description, c.link),
    ),
    db
      .prepare(`INSERT INTO audit_log (operator_id, action, target_type, target_id, reason, detail, created_at) VALUES (?, 'vote.round.create', 'vote_round', CAST(${LAST} AS TEXT), ?, ?, ?)`)
      .bind(operatorId, input.reason, JSON.stringify({ ...input, reason: undefined }), now),
  ]);
  const roundId = (created!.results as { id: number }[])[0]!.id;
  return roundView(db, roundId, null, now);
}

/** Closes (the tally stands) or cancels (void) an open round, audited, and releases its holds. */
export async function endRound(env: Pick<Env, "DB" | "USER">, operatorId: number, roundId: number, action: "close" | "cancel", reason: string, now = Date.now()): Promise<VoteRound> {
  const db = env.DB;
  const exists = await db.prepare("SELECT status FROM vote_rounds WHERE id = ?").bind(roundId).first<{ status: string }>();
  if (!exists) throw new ApiError("not_found", 404);
  if (exists.status !== "open") throw new ApiError("state_conflict", 409);
  const status = action === "close" ? "closed" : "cancelled";
  await runGuarded(db, [
    db.prepare("UPDATE vote_rounds SET status = ?, closed_by = ?, closed_at = ? WHERE id = ?").bind(status, operatorId, now, roundId),
    auditStatement(db, { operatorId, action: `vote.round.${action}`, targetType: "vote_round", targetId: roundId, reason }, now),
  ]);
  await releaseDueHolds(env, now, { roundId });
  return roundView(db, roundId, null, now);
}
