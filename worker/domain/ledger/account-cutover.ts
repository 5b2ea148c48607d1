/**
 * The cut-over of a running exchange's balances into the account objects, as the routes run it
 * (issue #28; docs/operations.md "Where balances live"). One set of steps for both ways in:
 * the operators' routes under /api/admin/accounts (a deployed exchange, an operator's session) and
 * the local ones under /api/dev/accounts (`npm start`, audited as operator 0); the copying itself is
 * worker/domain/ledger/account-objects.ts. Each step writes its audit row in the same D1 batch as
 * its own effect in D1 (the cursor, the verification's record, the cut-over's record).
 *
 * `checked` (the operators' routes) makes the code hold what the procedure needs:
 * - nothing is copied, compared or recorded unless the maintenance window is on and settled
 *   (every isolate sees it and the money requests before it have ended: `since + refresh + settle`);
 * - once the cut-over is recorded, nothing is copied or compared again (D1's balances are then a
 *   copy from that moment, and the objects move money);
 * - the cut-over is recorded only when, in this window, every user with a balance row was compared
 *   equal (D1, the object, the read model) and the system accounts' shards were too.
 * The local routes keep their shortcuts (npm start's own cut-over and the bench tools open a
 * state without a window); scripts/migrate-accounts.mjs asks for the window itself in both cases.
 *
 * The verification's record: rows of `account_migration` named `verified:{first}`, each an interval
 * of user ids first..cursor compared equal in the window that started at `started_at` or before;
 * a step extends the interval it continues (ranges compared side by side each keep their own), and
 * a difference cuts every interval it falls in. The system accounts' comparison: the row
 * `system-check` (cursor: how many system accounts differed).
 */
import { ApiError } from "../../lib/errors.ts";
import { auditStatement, type AuditEntry } from "../../lib/guarded.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { CUT_OVER_KEY, MAINTENANCE_CACHE_MS, MAINTENANCE_SETTLE_MS, readCutOverState, recordCutOver, type MaintenanceState } from "../../lib/maintenance.ts";
import { carryOverOpenFees, migrateAccountsStep, migrationCursor, openSystemAccounts, verifyAccountsStep, type MigrateStep, type SystemOpening, type VerifyStep } from "./account-objects.ts";

type CutOverEnv = Pick<Env, "DB" | "USER" | "PAIR" | "ACCOUNTS">;

/** Who runs a step: an operator (their id, their reason), or the local script as operator 0. */
export interface MigrationActor {
  operatorId: number;
  reason: string;
  /** The operators' routes: the window, the record and the verification are enforced. */
  checked: boolean;
}

const VERIFIED = "verified:";
const SYSTEM_CHECK = "system-check";
const LAST_USER = Number.MAX_SAFE_INTEGER;

/** When the window's copying may start: every isolate sees it, and the money requests that passed before it have ended. */
const settledAt = (w: MaintenanceState) => (w.since ?? 0) + MAINTENANCE_CACHE_MS + MAINTENANCE_SETTLE_MS;

/**
 * The window and the record as D1 has them; for a checked step, refuses unless the window is on
 * and settled and (`copies`) the cut-over is not recorded yet.
 */
async function gate(env: CutOverEnv, actor: MigrationActor, now: number, copies: boolean): Promise<{ window: MaintenanceState; cutOverAt: string | null }> {
  const state = await readCutOverState(env.DB);
  if (!actor.checked) return state;
  if (copies && state.cutOverAt !== null) throw new ApiError("accounts_cut_over_done", 409, { when: state.cutOverAt });
  if (!state.window.on) throw new ApiError("accounts_window_off", 409);
  if (now < settledAt(state.window)) throw new ApiError("accounts_window_settling", 409, { seconds: Math.ceil((settledAt(state.window) - now) / 1000) });
  return state;
}

/** A step's audit row (the actor's id and reason), for the batch of its effect. */
const audit = (env: CutOverEnv, actor: MigrationActor, e: Omit<AuditEntry, "operatorId" | "reason">, now: number) => auditStatement(env.DB, { ...e, operatorId: actor.operatorId, reason: actor.reason }, now);

/** One step of the opening: the next `limit` users of the range after its cursor. */
export async function migrationStep(env: CutOverEnv, actor: MigrationActor, input: { limit: number; first?: number; last?: number }, now = Date.now()): Promise<MigrateStep> {
  const { limit, first = 1, last = LAST_USER } = input;
  if (last < first) throw new ApiError("invalid_param", 400, { field: "last" });
  await gate(env, actor, now, true);
  return migrateAccountsStep(env, limit, { first, last }, undefined, now, (step) => [
    audit(
      env,
      actor,
      { action: "accounts.migrate", targetType: "account_migration", targetId: `${first}-${last}`, detail: { cursor: step.cursor, imported: step.imported, seen: step.seen, mismatched: step.mismatched.length, failed: step.failed.length } },
      now,
    ),
  ]);
}

interface Interval {
  name: string;
  first: number;
  last: number;
}

/** The intervals of user ids compared equal since `from` (the window's settled time). */
async function verifiedIntervals(db: D1Database, from: number): Promise<Interval[]> {
  const { results } = await db
    .prepare("SELECT name, cursor FROM account_migration WHERE name LIKE ?1 AND started_at >= ?2")
    .bind(`${VERIFIED}%`, from)
    .all<{ name: string; cursor: number }>();
  return results.map((r) => ({ name: r.name, first: Number(r.name.slice(VERIFIED.length)), last: r.cursor })).filter((i) => Number.isSafeInteger(i.first) && i.last >= i.first);
}

/** Intervals joined where they touch or overlap, in order. */
function joined(intervals: Interval[]): { first: number; last: number }[] {
  const out: { first: number; last: number }[] = [];
  for (const i of [...intervals].sort((a, b) => a.first - b.first)) {
    const prev = out.at(-1);
    if (prev && i.first <= prev.last + 1) prev.last = Math.max(prev.last, i.last);
    else out.push({ first: i.first, last: i.last });
  }
  return out;
}

/**
 * One step of the verification: the next `limit` users after `after` (up to `last`), drained and
 * compared; in a window (on, settled) the users compared equal before the first difference extend
 * the record, and a difference cuts every interval it falls in.
 */
export async function verificationStep(env: CutOverEnv, actor: MigrationActor, input: { after: number; limit: number; last?: number }, now = Date.now()): Promise<VerifyStep> {
  const { after, limit, last = LAST_USER } = input;
  const { window } = await gate(env, actor, now, true);
  const step = await verifyAccountsStep(env, after, limit, last);
  const db = env.DB;
  const writes: D1PreparedStatement[] = [];
  if (window.on && now >= settledAt(window)) {
    const from = settledAt(window);
    const bad = step.mismatched.length > 0 ? Math.min(...step.mismatched.map((m) => m.user_id)) : null;
    const upTo = bad !== null ? bad - 1 : step.done ? last : step.next;
    if (bad !== null)
      writes.push(db.prepare("UPDATE account_migration SET cursor = ?1 - 1, updated_at = ?3 WHERE name LIKE ?4 AND cursor >= ?1 AND CAST(substr(name, ?5) AS INTEGER) <= ?2").bind(bad, step.next, now, `${VERIFIED}%`, VERIFIED.length + 1));
    if (upTo > after) {
      const host = (await verifiedIntervals(db, from)).find((i) => i.first <= after + 1 && i.last >= after);
      writes.push(
        db
          .prepare(
            `INSERT INTO account_migration (name, cursor, users, started_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)
             ON CONFLICT (name) DO UPDATE SET
               cursor = CASE WHEN started_at >= ?5 THEN max(cursor, excluded.cursor) ELSE excluded.cursor END,
               users = CASE WHEN started_at >= ?5 THEN users + excluded.users ELSE excluded.users END,
               started_at = CASE WHEN started_at >= ?5 THEN started_at ELSE excluded.started_at END,
               updated_at = excluded.updated_at`,
          )
          .bind(host?.name ?? `${VERIFIED}${after + 1}`, upTo, step.checked - step.mismatched.length, now, from),
      );
    }
  }
  writes.push(audit(env, actor, { action: "accounts.verify", targetType: "account_migration", targetId: `${after + 1}-${step.next}`, detail: { checked: step.checked, mismatched: step.mismatched.length, done: step.done } }, now));
  await db.batch(writes);
  return step;
}

/** The system accounts' shards opened from D1 and compared; the comparison is recorded with its audit row. */
export async function systemStep(env: CutOverEnv, actor: MigrationActor, now = Date.now()): Promise<SystemOpening> {
  const { cutOverAt } = await gate(env, actor, now, true);
  // Before the cut-over every open contract and position is from D1's path: its fee was taken at the
  // open. First, as the shards' opening holds a carried-over pending limit's fee for its revoke.
  if (cutOverAt === null) await carryOverOpenFees(env);
  const opened = await openSystemAccounts(env);
  await env.DB.batch([
    env.DB.prepare(
      "INSERT INTO account_migration (name, cursor, users, started_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor, users = excluded.users, started_at = excluded.started_at, updated_at = excluded.updated_at",
    ).bind(SYSTEM_CHECK, opened.mismatched.length, opened.imported + opened.seen, now),
    audit(env, actor, { action: "accounts.system", targetType: "account_migration", targetId: SYSTEM_CHECK, detail: { imported: opened.imported, seen: opened.seen, skipped: opened.skipped.length, mismatched: opened.mismatched.length } }, now),
  ]);
  return opened;
}

/**
 * Why the cut-over may not be recorded now (null: it may): the window is not on and settled, the
 * system accounts were not compared equal in it, or a user with a balance row was not (the first
 * such user id is named).
 */
async function cutOverRefusal(env: CutOverEnv, window: MaintenanceState, now: number): Promise<ApiError | null> {
  if (!window.on) return new ApiError("accounts_window_off", 409);
  const from = settledAt(window);
  if (now < from) return new ApiError("accounts_window_settling", 409, { seconds: Math.ceil((from - now) / 1000) });
  const system = await env.DB.prepare("SELECT cursor FROM account_migration WHERE name = ?1 AND started_at >= ?2").bind(SYSTEM_CHECK, from).first<{ cursor: number }>();
  if (!system || system.cursor !== 0) return new ApiError("accounts_system_unverified", 409);
  // The user ids no interval covers: none of them may hold a balance row.
  const gaps: [number, number][] = [];
  let next = 1;
  for (const i of joined(await verifiedIntervals(env.DB, from))) {
    if (i.first > next) gaps.push([next, i.first - 1]);
    next = Math.max(next, i.last + 1);
  }
  if (next <= LAST_USER) gaps.push([next, LAST_USER]);
  if (gaps.length === 0) return null;
  const found = await env.DB.batch(gaps.map(([a, b]) => env.DB.prepare("SELECT min(user_id) AS user_id FROM balances WHERE user_id BETWEEN ?1 AND ?2").bind(a, b)));
  const unverified = found.map((r) => (r.results[0] as { user_id: number | null } | undefined)?.user_id ?? null).find((u) => u !== null);
  return unverified === undefined ? null : new ApiError("accounts_unverified", 409, { user: unverified });
}

/**
 * Records the cut-over (with its audit row, in one batch); a checked call refuses while anything
 * of cutOverRefusal stands. Recorded once: a second call answers the first record.
 */
export async function cutOverStep(env: CutOverEnv, actor: MigrationActor, now = Date.now()): Promise<string> {
  const { window, cutOverAt } = await readCutOverState(env.DB);
  if (actor.checked && cutOverAt === null) {
    const refusal = await cutOverRefusal(env, window, now);
    if (refusal) throw refusal;
  }
  return recordCutOver(env.DB, "cut-over", now, [audit(env, actor, { action: "accounts.cut_over", targetType: "settings", targetId: CUT_OVER_KEY, detail: { accounts: env.ACCOUNTS ?? "d1", already: cutOverAt } }, now)]);
}

/** Where the cut-over stands: for the operator (GET /api/admin/accounts) and the script's first look. */
export async function cutOverProgress(env: CutOverEnv, now = Date.now()) {
  const { window, cutOverAt } = await readCutOverState(env.DB);
  const refusal = cutOverAt === null ? await cutOverRefusal(env, window, now) : null;
  return {
    window,
    state: {
      accounts: accountsOnObjects(env) ? ("objects" as const) : ("d1" as const),
      cut_over: cutOverAt,
      opened_to: await migrationCursor(env.DB),
      verified: window.on ? joined(await verifiedIntervals(env.DB, settledAt(window))) : [],
      /** null when the cut-over may be recorded now (or was): else the refusal's key */
      waiting_for: refusal?.key ?? null,
    },
  };
}
