/**
 * The maintenance switch: the read-only window of a migration (docs/architecture/account-objects.md,
 * "Cut-over"). An operator turns it on or off in the console (POST /api/admin/maintenance, audited);
 * it is one `settings` row, so no deploy is needed. While it is on:
 * - every request that is not a read (GET) and not listed in NO_MONEY_ROUTES answers 503
 *   `maintenance` in the request's language, before its handler runs, so nothing moves;
 * - the crons skip the jobs that move money (worker/scheduled.ts `MONEY_JOBS`).
 * Reads, signing in, security settings, notifications and support keep working.
 *
 * Every write route is classified here, as moving money or not; tests/api/maintenance.test.ts
 * walks the OpenAPI document and fails on a route in neither list. A route missing from both is
 * refused in the window (the safe side).
 *
 * Cost on the order path: a Set lookup, and the flag read from this isolate's memory; D1 is read
 * (one `SELECT` of one row) at most once per MAINTENANCE_CACHE_MS per isolate. The window therefore
 * starts within MAINTENANCE_CACHE_MS of the switch in every isolate (scripts/migrate-accounts.mjs
 * waits that long, plus the longest request, before it copies anything).
 *
 * With `ACCOUNTS=objects` the routes of OBJECT_CHECKED_ROUTES (spot orders, batches and cancels,
 * transfers, seconds contracts, lever positions) do not read D1 here: the account object they call
 * first checks the switch in that same call (durable/account/maintenance.ts), told by
 * `setMaintenance` through the switch objects before the operator's request answers.
 *
 * The cut-over guard (issue #28, `ACCOUNTS=objects` by default): a Worker with balances in the
 * account objects refuses every money route the same way (503 `maintenance`) while D1 still holds
 * balances that were never opened in the objects, so a deployment that ran with D1 balances cannot
 * be switched to the objects by a deploy alone and show everyone zero. "Opened" is D1's `settings`
 * row CUT_OVER_KEY, recorded by the cut-over (scripts/migrate-accounts.mjs, once every total
 * matched: POST /api/admin/accounts/cut-over, or /api/dev/accounts/cut-over locally) or, on an exchange with no balance to open (a fresh
 * deployment), by the first money request itself. It is read in the same statement as the window;
 * once an isolate has seen it, it never reads it again (the row is never removed), so the order path
 * of a cut-over exchange gains one boolean test. The other way round, a Worker with `ACCOUNTS=d1`
 * refuses money routes the same way once the row is recorded: D1's balances are then a copy from
 * the cut-over (read in the same statement as the window, which that mode reads anyway).
 */
import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { auditStatement } from "./guarded.ts";
import { onForget } from "./caches.ts";
import { accountsOnObjects } from "./accounts.ts";
import { MAINTENANCE_KEY, MAINTENANCE_SHARDS, MAINTENANCE_SKEW_MS, maintenanceAddress } from "../../durable/account/maintenance.ts";

export { MAINTENANCE_KEY };
/** D1's `settings` row saying every D1 balance was opened in the account objects (its value: when, and how). */
export const CUT_OVER_KEY = "accounts_cut_over";
/** How long an isolate trusts what it last read. */
export const MAINTENANCE_CACHE_MS = 2_000;
/** The longest a money request takes after it passed the switch (it then finds the window in force). */
export const MAINTENANCE_SETTLE_MS = 5_000;

/** Writes that move money (or decide about money): refused in the window. */
export const MONEY_ROUTES: readonly string[] = [
  // Spot
  "POST /api/transaction/walletIn",
  "POST /api/transaction/walletOut",
  "POST /api/transaction/batch",
  "POST /api/transaction_del",
  "POST /api/transaction_del/batch",
  "POST /api/transaction/cancel_all",
  "POST /api/transaction/conditional",
  "POST /api/transaction/conditional/cancel",
  // Wallet: transfers, conversion, withdrawals
  "POST /api/wallet/change",
  "POST /api/user/shandui_sub",
  "POST /api/wallet/out",
  // Seconds contracts, lever
  "POST /api/microtrade/submit",
  "POST /api/lever/submit",
  "POST /api/lever/close",
  "POST /api/lever/batch_close",
  "POST /api/lever/cancel",
  "POST /api/lever/setstop",
  // C2C
  "POST /api/do_legal_deal",
  "POST /api/legal_deal_user_sure",
  "POST /api/legal_deal_cancel_order",
  "POST /api/user_legal_pay_cancel",
  "POST /api/handle_one",
  "POST /api/c2c/merchant/apply",
  "POST /api/c2c/merchant/leave",
  "POST /api/c2c/adverts",
  "POST /api/c2c/adverts/:id/edit",
  "POST /api/c2c/adverts/:id/:action{off|on|withdraw}",
  // Earn, insurance, launches, mining, votes
  "POST /api/earn/subscribe",
  "POST /api/earn/redeem",
  "POST /api/insurance/buy",
  "POST /api/insurance/claim",
  "POST /api/launch/commit",
  "POST /api/launch/claim",
  "POST /api/mining/buy",
  "POST /api/vote/cast",
  // Operators' money decisions and the products' budgets
  "POST /api/admin/deposits/:id/approve",
  "POST /api/admin/withdrawals/:id/:action{approve|reject|chain-success|chain-failure}",
  "POST /api/admin/adjustments/:id/approve",
  "POST /api/admin/c2c/appeals/:id/release",
  "POST /api/admin/c2c/appeals/:id/return",
  "POST /api/admin/c2c/merchants/:id/approve",
  "POST /api/admin/c2c/merchants/:id/reject",
  "POST /api/admin/c2c/adverts/:id/abnormal",
  "POST /api/admin/earn/products",
  "POST /api/admin/earn/close",
  "POST /api/admin/insurance/plans",
  "POST /api/admin/insurance/close",
  "POST /api/admin/launch/projects",
  "POST /api/admin/launch/publish",
  "POST /api/admin/launch/cancel",
  "POST /api/admin/mining/plans",
  "POST /api/admin/mining/close",
  "POST /api/admin/mining/payouts",
  "POST /api/admin/mining/payouts/approve",
  "POST /api/admin/mining/payouts/reject",
  "POST /api/admin/vote/rounds",
  "POST /api/admin/vote/rounds/:id/close",
  "POST /api/admin/vote/rounds/:id/cancel",
  "POST /api/admin/invite/run",
  // Local only: seeds contracts with money
  "POST /api/dev/seconds/seed",
];

/** Writes that move no money: they keep working in the window. */
export const NO_MONEY_ROUTES: readonly string[] = [
  // Signing up and in, sessions, profile, security
  "POST /api/login/smscode",
  "POST /api/sms_mail",
  "POST /api/new/check/account",
  "POST /api/user/register",
  "POST /api/new/register",
  "POST /api/user/login",
  "POST /api/user/login/passkey/options",
  "POST /api/user/login/passkey",
  "POST /api/user/logout",
  "POST /api/user/verify_contact",
  "POST /api/user/verify_contact/resend",
  "POST /api/user/check_email",
  "POST /api/user/forget",
  "POST /api/new/users/update-password",
  "POST /api/user/real_name",
  "POST /api/user/cash_save",
  "POST /api/user/fund_password",
  "POST /api/user/totp/enrol",
  "POST /api/user/totp/confirm",
  "POST /api/user/totp/disable",
  "POST /api/user/addresses",
  "POST /api/user/addresses/delete",
  "POST /api/security/passkeys/options",
  "POST /api/security/passkeys",
  "POST /api/security/passkeys/:id/delete",
  "POST /api/security/passkeys/confirm/options",
  "POST /api/security/anti_phishing",
  "POST /api/security/whitelist",
  "POST /api/security/lock",
  "POST /api/security/sessions/revoke",
  "POST /api/apikeys",
  "POST /api/apikeys/:id/delete",
  // Reads sent as POST (the spec's form-era endpoints), a conversion quote, a deposit claim (an operator credits it later)
  "POST /api/wallet/list",
  "POST /api/wallet/get_info",
  "POST /api/wallet/get_in_address",
  "POST /api/lever/my_trade",
  "POST /api/user/shandui_quote",
  "POST /api/wallet/charge_req",
  "POST /api/new/upload",
  "POST /api/new/upload/base64",
  // C2C talk and states that hold no money (the escrow stays as it is)
  "POST /api/user_legal_pay",
  "POST /api/c2c/orders/:id/messages",
  "POST /api/c2c/orders/:id/appeal",
  "POST /api/c2c/pay_methods",
  "POST /api/c2c/pay_methods/:id",
  "POST /api/c2c/pay_methods/:id/delete",
  // Notifications, alerts, favourites, support
  "POST /api/notifications/read",
  "POST /api/alerts",
  "POST /api/alerts/:id/delete",
  "POST /api/market/favourites",
  "POST /api/support/tickets",
  "POST /api/support/tickets/:id/messages",
  "POST /api/support/tickets/:id/close",
  // Operators: reviews and settings that move nothing, the window itself
  "POST /api/admin/maintenance",
  "POST /api/admin/kyc/:id/approve",
  "POST /api/admin/kyc/:id/reject",
  "POST /api/admin/deposits/:id/reject",
  "POST /api/admin/adjustments",
  "POST /api/admin/adjustments/:id/reject",
  "POST /api/admin/c2c/appeals/:id/messages",
  "POST /api/admin/support/tickets/:id/reply",
  "POST /api/admin/support/tickets/:id/status",
  "POST /api/admin/seconds/options",
  "POST /api/admin/seconds/currencies",
  "POST /api/admin/lever/pairs",
  "POST /api/admin/invite/settings",
  "POST /api/admin/transparency/liabilities/run",
  // The cut-over itself: it copies D1 into the account objects only inside the window (worker/domain/ledger/account-cutover.ts)
  "POST /api/admin/accounts/migrate",
  "POST /api/admin/accounts/verify",
  "POST /api/admin/accounts/system",
  "POST /api/admin/accounts/cut-over",
  // Local only: the migration itself, the dev clock, the crons (which skip money jobs themselves)
  "POST /api/dev/accounts/migrate",
  "POST /api/dev/accounts/verify",
  "POST /api/dev/accounts/system",
  "POST /api/dev/accounts/maintenance",
  "POST /api/dev/accounts/cut-over",
  "POST /api/dev/clock",
  "POST /api/dev/cron",
];

const allowed = new Set(NO_MONEY_ROUTES);

/**
 * Money routes whose every money move starts with a call the account objects check the switch in
 * (`accountReserve`, `accountReserveMany`, `accountTransfer`, `accountHolds`, `systemReserve`):
 * with `ACCOUNTS=objects` the Worker does not read the switch in D1 for them. A lever close, cancel
 * or stop finds its pair through `accountHolds` first (worker/domain/lever/positions.ts `commandTarget`).
 */
export const OBJECT_CHECKED_ROUTES: readonly string[] = [
  "POST /api/transaction/walletIn",
  "POST /api/transaction/walletOut",
  "POST /api/transaction/batch",
  "POST /api/transaction_del",
  "POST /api/transaction_del/batch",
  "POST /api/wallet/change",
  "POST /api/microtrade/submit",
  "POST /api/lever/submit",
  "POST /api/lever/close",
  "POST /api/lever/batch_close",
  "POST /api/lever/cancel",
  "POST /api/lever/setstop",
];
const inObjects = new Set(OBJECT_CHECKED_ROUTES);

export interface MaintenanceState {
  on: boolean;
  /** When the window started (ms), null when off. */
  since: number | null;
}

const windowOf = (value: string | undefined): MaintenanceState => {
  const since = Number(value ?? "0");
  return Number.isSafeInteger(since) && since > 0 ? { on: true, since } : { on: false, since: null };
};

/** The switch and whether the cut-over was recorded, as D1 has them now (one statement). */
async function readSettings(db: D1Database): Promise<{ window: MaintenanceState; cutOver: boolean }> {
  const { window, cutOverAt } = await readCutOverState(db);
  return { window, cutOver: cutOverAt !== null };
}

/** The switch and the cut-over's record (its value: how and when, or null), as D1 has them now (one statement). */
export async function readCutOverState(db: D1Database): Promise<{ window: MaintenanceState; cutOverAt: string | null }> {
  const { results } = await db.prepare("SELECT key, value FROM settings WHERE key IN (?1, ?2)").bind(MAINTENANCE_KEY, CUT_OVER_KEY).all<{ key: string; value: string }>();
  return { window: windowOf(results.find((r) => r.key === MAINTENANCE_KEY)?.value), cutOverAt: results.find((r) => r.key === CUT_OVER_KEY)?.value ?? null };
}

/** The switch as D1 has it now (one statement). */
export async function readMaintenance(db: D1Database): Promise<MaintenanceState> {
  return (await readSettings(db)).window;
}

/**
 * With no cut-over recorded: whether D1 holds balances the account objects were never opened with
 * (a user's non-zero row, or a system account's above zero: the cut-over leaves the deposits
 * account's mirror below zero in D1). None (a fresh exchange): the row is recorded now, in the same
 * statement, and the exchange runs. Rare: only until an isolate has seen the row.
 */
async function cutOverPending(db: D1Database, now: number): Promise<boolean> {
  const [, seen] = await db.batch([
    db
      .prepare(
        `INSERT INTO settings (key, value) SELECT ?1, ?2 WHERE NOT EXISTS (
           SELECT 1 FROM balances WHERE (user_id > 0 AND (available <> 0 OR frozen <> 0)) OR (user_id <= 0 AND (available > 0 OR frozen > 0))
         ) ON CONFLICT (key) DO NOTHING`,
      )
      .bind(CUT_OVER_KEY, `fresh ${new Date(now).toISOString()}`),
    db.prepare("SELECT 1 AS one FROM settings WHERE key = ?").bind(CUT_OVER_KEY),
  ]);
  const pending = (seen?.results.length ?? 0) === 0;
  if (pending)
    console.error(JSON.stringify({ level: "error", event: "accounts_not_cut_over", reason: "ACCOUNTS=objects but D1 holds balances never opened in the account objects: money routes answer maintenance (docs/operations.md, 'Where balances live')" }));
  return pending;
}

/** `ACCOUNTS=d1` on an exchange whose balances moved into the account objects. */
function cutOverDone(): boolean {
  console.error(JSON.stringify({ level: "error", event: "accounts_cut_over", reason: "ACCOUNTS=d1 but the cut-over to the account objects is recorded: money routes answer maintenance (docs/operations.md, 'Where balances live')" }));
  return true;
}

let cached: { at: number; on: boolean; pending: boolean } | undefined;
/** This isolate has seen the cut-over recorded (objects mode): it never looks again. */
let cutOverSeen = false;
onForget(() => {
  forgetMaintenance();
  cutOverSeen = false;
});

/**
 * The switch as this isolate last read it, read again after MAINTENANCE_CACHE_MS; `pending` (read
 * in the same statement): with `ACCOUNTS=objects` while the cut-over is not recorded, with
 * `ACCOUNTS=d1` once it is (the balances are not where this Worker looks for them).
 */
async function moneyPaused(env: Pick<Env, "DB" | "ACCOUNTS">, now: number): Promise<{ on: boolean; pending: boolean }> {
  if (cached && now - cached.at < MAINTENANCE_CACHE_MS) return cached;
  const { window, cutOver } = await readSettings(env.DB);
  const objects = accountsOnObjects(env);
  const pending = objects ? !cutOverSeen && !cutOver && (await cutOverPending(env.DB, now)) : cutOver && cutOverDone();
  if (objects && !pending) cutOverSeen = true;
  cached = { at: now, on: window.on, pending };
  return cached;
}

/** Whether money routes are refused now: the window is on, or the cut-over is not recorded (objects mode) or is (D1 mode). */
export async function maintenanceOn(env: Pick<Env, "DB" | "ACCOUNTS">, now = Date.now()): Promise<boolean> {
  const s = await moneyPaused(env, now);
  return s.on || s.pending;
}

/** This isolate reads the switch again at its next check (after it changed it; tests). */
export function forgetMaintenance(): void {
  cached = undefined;
}

/**
 * For the crons (read once per run, never remembered): why the money jobs skip now, for the log:
 * the window is on, or the cut-over is not recorded (`ACCOUNTS=objects`) or is (`ACCOUNTS=d1`);
 * null when they run.
 */
export async function moneyJobsPaused(env: Pick<Env, "DB" | "ACCOUNTS">, now = Date.now()): Promise<"maintenance" | "accounts_not_cut_over" | "accounts_cut_over" | null> {
  const { window, cutOver } = await readSettings(env.DB);
  if (window.on) return "maintenance";
  if (!accountsOnObjects(env)) return cutOver && cutOverDone() ? "accounts_cut_over" : null;
  if (!cutOver && (await cutOverPending(env.DB, now))) return "accounts_not_cut_over";
  return null;
}

/**
 * Records that every D1 balance was opened in the account objects (the cut-over's last step,
 * POST /api/admin/accounts/cut-over, or /api/dev/accounts/cut-over locally; `also`: its audit row,
 * in the same batch). Idempotent: the first time stays. Answers when it was recorded.
 */
export async function recordCutOver(db: D1Database, how: string, now = Date.now(), also: D1PreparedStatement[] = []): Promise<string> {
  const [, r] = await db.batch([
    db.prepare("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING").bind(CUT_OVER_KEY, `${how} ${new Date(now).toISOString()}`),
    db.prepare("SELECT value FROM settings WHERE key = ?").bind(CUT_OVER_KEY),
    ...also,
  ]);
  forgetMaintenance();
  return (r?.results[0] as { value: string } | undefined)?.value ?? "";
}

/**
 * Turns the window on or off, with its audit row in the same batch. Turning it on again keeps the
 * time it started. `operatorId` 0 is the local migration script (scripts/migrate-accounts.mjs).
 */
export async function setMaintenance(env: Pick<Env, "DB" | "USER">, operatorId: number, on: boolean, reason: string, now = Date.now()): Promise<MaintenanceState> {
  const db = env.DB;
  await db.batch([
    db
      .prepare("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = CASE WHEN ?2 = '0' THEN '0' WHEN settings.value = '0' THEN ?2 ELSE settings.value END")
      .bind(MAINTENANCE_KEY, on ? String(now) : "0"),
    auditStatement(
      db,
      on ? { operatorId, action: "maintenance.on", targetType: "settings", targetId: MAINTENANCE_KEY, reason } : { operatorId, action: "maintenance.off", targetType: "settings", targetId: MAINTENANCE_KEY, reason },
      now,
    ),
  ]);
  forgetMaintenance();
  const state = await readMaintenance(db);
  await tellObjects(env, state);
  return state;
}

/**
 * Tells every switch object the state D1 now has (in either mode: a window turned on before the
 * exchange moves to the objects must hold there too), then waits until every "off" lease they gave
 * before has run out: when this returns "on", no account object starts a money move (a failed push
 * throws: the operator sees an error and sets it again; D1 already has the new state).
 */
async function tellObjects(env: Pick<Env, "USER">, state: MaintenanceState): Promise<void> {
  const since = state.on ? state.since! : 0;
  const waits = await Promise.all(Array.from({ length: MAINTENANCE_SHARDS }, (_, k) => env.USER.get(env.USER.idFromName(maintenanceAddress(k))).maintenanceSet(since)));
  const wait = Math.max(0, ...waits);
  if (state.on && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + MAINTENANCE_SKEW_MS));
}

/** The route a request reached, as registered ("POST /api/admin/kyc/:id/approve"), or null when none (a 404). */
function routeOf(c: Parameters<typeof matchedRoutes>[0]): string | null {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) if (routes[i]!.method === c.req.method) return `${c.req.method} ${routes[i]!.path}`;
  return null;
}

/** Refuses every write that may move money while the window is on (mounted before every route). */
export const maintenanceGuard = createMiddleware<AppEnv>(async (c, next) => {
  const method = c.req.method;
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
  const route = routeOf(c);
  if (route === null || allowed.has(route)) return next();
  if (accountsOnObjects(c.env)) {
    // Until this isolate has seen the cut-over recorded (once), the same cached read as the window's.
    if (!cutOverSeen && (await moneyPaused(c.env, Date.now())).pending) throw new ApiError("maintenance", 503);
    // The account object the route calls first checks the window (durable/account/maintenance.ts).
    if (inObjects.has(route)) return next();
  }
  if (await maintenanceOn(c.env)) throw new ApiError("maintenance", 503);
  await next();
});
