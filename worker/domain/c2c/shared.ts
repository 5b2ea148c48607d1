/**
 * What every C2C module shares: the deployment's settings (wrangler.toml [vars]), ids, the
 * statement guard of migrations/0012_c2c.sql, and one batch runner that turns the database's
 * refusals (triggers, CHECKs, movement keys) into translated errors, so a refused batch changes
 * nothing and says why.
 */
import type { ErrorKey } from "../../../schemas/errors.ts";
import { USDT_ID } from "../../../schemas/wallet.ts";
import { ApiError } from "../../lib/errors.ts";
import { batchWithNewId, takenIn } from "../../lib/ids.ts";
import { classifyBatchError } from "../../lib/ledger.ts";

export interface C2cSettings {
  payWindowMs: number;
  appealAfterMs: number;
  /** decimal string in USDT */
  merchantDeposit: string;
  depositCurrencyId: number;
  maxPayMethods: number;
}

type C2cEnv = Partial<Pick<Env, "C2C_PAY_WINDOW_SECONDS" | "C2C_APPEAL_AFTER_SECONDS" | "C2C_MERCHANT_DEPOSIT_USDT" | "C2C_MAX_PAY_METHODS">>;

function intVar(v: string | undefined, fallback: number, min: number, max: number): number {
  const n = v !== undefined && /^\s*\d{1,9}\s*$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : fallback;
}

/** The C2C settings of this deployment; a missing or malformed value falls back to its default. */
export function c2cSettings(env: C2cEnv): C2cSettings {
  const deposit = (env.C2C_MERCHANT_DEPOSIT_USDT ?? "").trim();
  return {
    payWindowMs: intVar(env.C2C_PAY_WINDOW_SECONDS, 900, 1, 7 * 86_400) * 1000,
    appealAfterMs: intVar(env.C2C_APPEAL_AFTER_SECONDS, 900, 0, 30 * 86_400) * 1000,
    merchantDeposit: /^\d{1,12}(\.\d{1,8})?$/.test(deposit) ? deposit : "1000",
    depositCurrencyId: USDT_ID,
    maxPayMethods: intVar(env.C2C_MAX_PAY_METHODS, 5, 1, 50),
  };
}

/**
 * Writes a C2C batch `build(id)` under a new record id of `table`, known before the batch so
 * movement keys can carry it, drawn again when taken in the same millisecond (worker/lib/ids.ts);
 * refusals as in runC2c. Returns the id.
 */
export function runC2cWithNewId(db: D1Database, table: "c2c_adverts" | "c2c_merchants" | "c2c_orders", build: (id: number) => D1PreparedStatement[], conflict: ErrorKey, now: number): Promise<number> {
  return batchWithNewId(db, takenIn(table), build, now).catch((err: unknown) => c2cRefusal(err, conflict));
}

/** YYYY-MM-DD in Beijing time (UTC+8): the day of the daily cancellation limit. */
export function beijingDay(ms: number): string {
  return new Date(ms + 8 * 3600 * 1000).toISOString().slice(0, 10);
}

/** Aborts the batch unless the statement just before it changed exactly one row. */
export function guard(db: D1Database, what: string): D1PreparedStatement {
  return db.prepare("INSERT INTO c2c_guards (changed, what) VALUES (changes(), ?)").bind(what);
}

/** Trigger messages of migrations/0012_c2c.sql that are catalogue keys of their own. */
const TRIGGER_KEYS = [
  "c2c_adverts_open",
  "c2c_holder_name",
  "c2c_not_merchant",
  "c2c_advert_state",
  "c2c_trade_running",
  "c2c_remaining",
  "c2c_advert_closed",
  "c2c_unfinished_limit",
  "c2c_cancel_limit",
  "c2c_pay_window",
] as const;

const TRIGGER_PARAMS: Partial<Record<(typeof TRIGGER_KEYS)[number], Record<string, number>>> = {
  c2c_unfinished_limit: { max: 3 },
  c2c_cancel_limit: { max: 3 },
};

/**
 * Runs a C2C batch. Refusals become ApiErrors: a lost race (guard, event, movement key) is
 * `conflict` (for orders `c2c_order_handled`), an overdraft `insufficient_balance`, a trigger its
 * own key.
 */
export async function runC2c(db: D1Database, stmts: D1PreparedStatement[], conflict: ErrorKey = "c2c_order_handled"): Promise<D1Result[]> {
  try {
    return await db.batch(stmts);
  } catch (err) {
    c2cRefusal(err, conflict);
  }
}

/** A C2C batch's refusal as an ApiError (see runC2c; an ApiError passes as it is); anything else is rethrown. */
function c2cRefusal(err: unknown, conflict: ErrorKey): never {
  if (err instanceof ApiError) throw err;
  const msg = String((err as Error)?.message ?? err);
  for (const key of TRIGGER_KEYS) if (msg.includes(key)) throw new ApiError(key, 409, TRIGGER_PARAMS[key]);
  if (msg.includes("own_record")) throw new ApiError("own_record", 403);
  if (msg.includes("no_permission")) throw new ApiError("no_permission", 403);
  if (msg.includes("c2c_merchants_live_name")) throw new ApiError("c2c_name_exists", 409);
  if (msg.includes("c2c_merchants.user_id")) throw new ApiError("c2c_already_merchant", 409);
  if (msg.includes("state_conflict") || /UNIQUE constraint failed: c2c_/.test(msg)) throw new ApiError(conflict, 409);
  const kind = classifyBatchError(err);
  if (kind === "duplicate") throw new ApiError(conflict, 409);
  if (kind === "insufficient") throw new ApiError("insufficient_balance", 409);
  throw err;
}

/** "张三" → "张*", "Alice Smith" → "A*********": the other party's name without giving it away. */
export function maskName(name: string | null | undefined): string {
  const chars = [...(name ?? "").trim()];
  if (chars.length === 0) return "*";
  return chars[0] + "*".repeat(Math.max(1, Math.min(chars.length - 1, 10)));
}

const PALETTE = ["#F0B90B", "#2EBD85", "#3C7CF4", "#E86A33", "#9B59B6", "#16A085", "#D35400", "#C0392B"];
/** A merchant's avatar colour (spec `bgcolor`), stable per merchant. */
export const bgcolorOf = (userId: number) => PALETTE[userId % PALETTE.length]!;

/** The order number people see. */
export const orderNumber = (id: number) => `C${id}`;
