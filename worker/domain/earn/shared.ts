/**
 * Savings (issue #19 §1; migrations/0031_earn_savings.sql): the rows as the API shows them, the
 * interest arithmetic, UTC days, and the mapping of the database's refusals to translated errors.
 *
 * Interest: one day of a position = amount × apr_bps / (10000 × 365), rounded down to the unit
 * (bigint throughout). A fixed position reserves `daily × term` when it is opened; a flexible one
 * `daily × FLEX_RESERVE_DAYS`, renewed day by day while the budget lasts.
 */
import { bpsToApr, FLEX_RESERVE_DAYS, type EarnPosition, type EarnProduct } from "../../../schemas/earn.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { ApiError } from "../../lib/errors.ts";
import { classifyBatchError } from "../../lib/ledger.ts";
import { takenIn } from "../../lib/ids.ts";

export const DAY_MS = 86_400_000;

/** The hold of a position's principal in its owner's account object (objects mode): `savings:{id}`, the holds list's purpose. */
export const PRINCIPAL_HOLD = "savings";
export const principalHold = (id: number) => `${PRINCIPAL_HOLD}:${id}`;

/** The UTC calendar day of a time, "YYYY-MM-DD". */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** A UTC day moved by n days. */
export const addDays = (day: string, n: number): string => utcDay(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);

/** A batch that met an id taken in the same millisecond (the movement key carries the id): drawn again (worker/lib/ids.ts). */
export const EARN_PRODUCT_TAKEN = takenIn("earn_products");
export const EARN_POSITION_TAKEN = takenIn("earn_positions");

/** When a fixed position subscribed at `createdAt` has held its last interest day: paid by the next cron run. */
export const maturesAt = (createdAt: number, termDays: number): number => createdAt + termDays * DAY_MS;

/** One full day of interest on `amount` at `aprBps`, rounded down to the unit. */
export function dailyInterest(amount: bigint, aprBps: number): bigint {
  return (amount * BigInt(aprBps)) / 3_650_000n;
}

/** Days of interest a new position reserves at once: the whole term, or the flexible reserve. */
export const reserveDays = (termDays: number): number => (termDays === 0 ? FLEX_RESERVE_DAYS : termDays);

/** The interest a new position of `amount` reserves from the budget when it is opened. */
export function reserveFor(amount: bigint, aprBps: number, termDays: number): bigint {
  return dailyInterest(amount, aprBps) * BigInt(reserveDays(termDays));
}

/** The largest amount whose reserve fits in `remaining` (every smaller amount fits too: the reserve never falls as the amount grows). */
export function largestCovered(remaining: bigint, aprBps: number, termDays: number): bigint {
  const perDay = remaining / BigInt(reserveDays(termDays));
  // daily(a) ≤ perDay  ⇔  a × bps < (perDay + 1) × 3,650,000
  const bound = (perDay + 1n) * 3_650_000n;
  const bps = BigInt(aprBps);
  return (bound + bps - 1n) / bps - 1n;
}

/** Aborts the batch unless the statement just before it changed exactly one row. */
export function earnGuard(db: D1Database, what: string): D1PreparedStatement {
  return db.prepare("INSERT INTO earn_guards (changed, what) VALUES (changes(), ?)").bind(what);
}

/** Runs an earn batch; maps the database's refusals to translated errors and rethrows anything else. */
export async function runEarnBatch(db: D1Database, stmts: D1PreparedStatement[], budgetError: () => ApiError = () => new ApiError("earn_budget", 409)): Promise<void> {
  try {
    await db.batch(stmts);
  } catch (err) {
    earnRefusal(err, budgetError);
  }
}

/** The database's refusal of an earn batch as a translated error (an ApiError passes as it is); anything else is rethrown. */
export function earnRefusal(err: unknown, budgetError: () => ApiError = () => new ApiError("earn_budget", 409)): never {
  if (err instanceof ApiError) throw err;
  const msg = String((err as Error)?.message ?? err);
  if (msg.includes("earn_budget")) throw budgetError();
  if (msg.includes("earn_closed")) throw new ApiError("earn_closed", 409);
  if (msg.includes("earn_user_max")) throw new ApiError("earn_user_max", 409);
  if (msg.includes("treasury_overdraft")) throw new ApiError("earn_treasury_short", 409);
  // A second run of an interest day hits the accrual's primary key: someone got there first.
  if (msg.includes("state_conflict") || msg.includes("earn_accruals")) throw new ApiError("state_conflict", 409);
  const kind = classifyBatchError(err);
  if (kind === "duplicate") throw new ApiError("state_conflict", 409);
  if (kind === "insufficient") throw new ApiError("insufficient_balance", 409);
  throw err;
}

export interface ProductRow {
  id: number;
  currency_id: number;
  currency: string;
  scale: number;
  term_days: number;
  apr_bps: number;
  min_amount: number;
  max_amount: number;
  budget: number;
  reserved: number;
  paid: number;
  released: number;
  status: number;
  created_by: number;
  created_at: number;
  closed_by: number | null;
  closed_at: number | null;
}

export const PRODUCT_COLUMNS = `p.id, p.currency_id, c.name AS currency, c.scale, p.term_days, p.apr_bps, p.min_amount, p.max_amount, p.budget,
  p.reserved, p.paid, p.released, p.status, p.created_by, p.created_at, p.closed_by, p.closed_at`;

/** What new subscriptions can still be promised. */
export const remainingOf = (r: ProductRow): bigint => BigInt(r.budget) - BigInt(r.reserved) - BigInt(r.paid) - BigInt(r.released);

export function productView(r: ProductRow, myOpen: bigint): EarnProduct {
  const f = (u: bigint | number) => formatUnitsTrim(BigInt(u), r.scale);
  const remaining = remainingOf(r);
  const room = BigInt(r.max_amount) - myOpen;
  let covers = r.status === 1 ? largestCovered(remaining, r.apr_bps, r.term_days) : 0n;
  if (covers > room) covers = room;
  if (covers < 0n) covers = 0n;
  return {
    id: r.id,
    currency_id: r.currency_id,
    currency: r.currency,
    scale: r.scale,
    term_days: r.term_days,
    kind: r.term_days === 0 ? "flexible" : "fixed",
    apr: bpsToApr(r.apr_bps),
    apr_bps: r.apr_bps,
    min_amount: f(r.min_amount),
    max_amount: f(r.max_amount),
    budget: f(r.budget),
    remaining: f(remaining),
    reserved: f(r.reserved),
    paid: f(r.paid),
    budget_covers: f(covers),
    reserve_days: r.term_days === 0 ? FLEX_RESERVE_DAYS : 0,
    status: r.status === 1 ? "open" : "closed",
    my_open: f(myOpen),
    created_at: r.created_at,
  };
}

export interface PositionRow {
  id: number;
  user_id: number;
  product_id: number;
  currency_id: number;
  currency: string;
  scale: number;
  term_days: number;
  apr_bps: number;
  amount: number;
  daily: number;
  reserved: number;
  earned: number;
  paid: number;
  days: number;
  first_day: string;
  status: number;
  created_at: number;
  closed_at: number | null;
}

export const POSITION_COLUMNS = `p.id, p.user_id, p.product_id, p.currency_id, c.name AS currency, c.scale, p.term_days, p.apr_bps, p.amount, p.daily,
  p.reserved, p.earned, p.paid, p.days, p.first_day, p.status, p.created_at, p.closed_at`;

const STATUS = { 1: "open", 2: "redeemed", 3: "matured" } as const;

export function positionView(r: PositionRow): EarnPosition {
  const f = (u: number) => formatUnitsTrim(BigInt(u), r.scale);
  return {
    id: r.id,
    product_id: r.product_id,
    currency_id: r.currency_id,
    currency: r.currency,
    term_days: r.term_days,
    kind: r.term_days === 0 ? "flexible" : "fixed",
    apr: bpsToApr(r.apr_bps),
    apr_bps: r.apr_bps,
    amount: f(r.amount),
    daily: f(r.daily),
    earned: f(r.earned),
    paid: f(r.paid),
    reserved: f(r.reserved),
    days: r.days,
    first_day: r.first_day,
    maturity_day: r.term_days === 0 ? null : utcDay(maturesAt(r.created_at, r.term_days)),
    matures_at: r.term_days === 0 ? null : maturesAt(r.created_at, r.term_days),
    status: STATUS[r.status as 1 | 2 | 3] ?? "open",
    created_at: r.created_at,
    closed_at: r.closed_at,
  };
}
