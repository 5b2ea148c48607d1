/**
 * Savings products (issue #19 §1, §5): the published list, and the operator console's create and
 * close. Creating a product freezes its whole interest budget in the treasury (one movement, with
 * the audit row, in one batch; the treasury trigger refuses a budget it does not hold). Closing
 * stops new subscriptions only: open positions keep their reserves and run to their end, and the
 * part of the budget nobody was promised goes back to the treasury (`releaseRemainders`, also run
 * by the cron for reservations returned after the close).
 *
 * With balances in the account objects (`ACCOUNTS=objects`) the budget is held in a treasury shard
 * instead (hold `earn_product:{id}` in `treasuryAt(id)`, before the product's row), interest is
 * spent from that hold and the unpromised rest released from it by legs (worker/lib/product-objects.ts).
 */
import type { EarnProductCreate } from "../../../schemas/earn.ts";
import { aprToBps } from "../../../schemas/earn.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { ApiError } from "../../lib/errors.ts";
import { auditStatement, HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { movementStatements } from "../../lib/ledger.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { claimRecord, holdThenRecord, release, takenOrClaimed, treasuryAt } from "../../lib/product-objects.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import { amountOrThrow, getCurrency } from "../wallet/currency.ts";
import { EARN_PRODUCT_TAKEN, earnGuard, earnRefusal, PRODUCT_COLUMNS, productView, remainingOf, runEarnBatch, type ProductRow } from "./shared.ts";
import { withNewId } from "../../lib/ids.ts";

const FROM = "FROM earn_products p JOIN currencies c ON c.id = p.currency_id";

/** One product (any status), or null. */
export async function productRow(db: D1Database, id: number): Promise<ProductRow | null> {
  return db.prepare(`SELECT ${PRODUCT_COLUMNS} ${FROM} WHERE p.id = ?`).bind(id).first<ProductRow>();
}

/** One user's open principal per product. */
async function openByProduct(db: D1Database, userId: number | null): Promise<Map<number, bigint>> {
  if (userId === null) return new Map();
  const { results } = await db
    .prepare("SELECT product_id, CAST(SUM(amount) AS TEXT) AS s FROM earn_positions WHERE user_id = ? AND status = 1 GROUP BY product_id")
    .bind(userId)
    .all<{ product_id: number; s: string }>();
  return new Map(results.map((r) => [r.product_id, BigInt(r.s)]));
}

/** GET /api/earn/products: the open products, flexible first, then by term and APR. */
export async function listProducts(db: D1Database, userId: number | null) {
  const [{ results }, mine] = await Promise.all([
    db.prepare(`SELECT ${PRODUCT_COLUMNS} ${FROM} WHERE p.status = 1 ORDER BY p.term_days, p.apr_bps DESC, p.id`).all<ProductRow>(),
    openByProduct(db, userId),
  ]);
  return results.map((r) => productView(r, mine.get(r.id) ?? 0n));
}

/** The console's list: every product, newest first, with its open positions. */
export async function adminProducts(db: D1Database) {
  const [list, openRows] = await db.batch([
    db.prepare(`SELECT ${PRODUCT_COLUMNS} ${FROM} ORDER BY p.status, p.id DESC LIMIT 200`),
    db.prepare("SELECT product_id, count(*) AS n, CAST(SUM(amount) AS TEXT) AS s FROM earn_positions WHERE status = 1 GROUP BY product_id"),
  ]);
  const byProduct = new Map(((openRows?.results ?? []) as { product_id: number; n: number; s: string }[]).map((r) => [r.product_id, r]));
  return ((list?.results ?? []) as ProductRow[]).map((r) => {
    const o = byProduct.get(r.id);
    return {
      ...productView(r, 0n),
      released: formatUnitsTrim(BigInt(r.released), r.scale),
      open_positions: o?.n ?? 0,
      open_principal: formatUnitsTrim(BigInt(o?.s ?? "0"), r.scale),
      created_by: r.created_by,
      closed_by: r.closed_by,
      closed_at: r.closed_at,
    };
  });
}

/** The treasury's hold of a product's interest budget (objects mode): every interest payment is spent from it. */
export const BUDGET_HOLD = "earn_product";
export const budgetHold = (productId: number) => `${BUDGET_HOLD}:${productId}`;

/** Publishes a product and freezes its interest budget in the treasury (audited, one batch). */
export async function createProduct(env: Env, operatorId: number, input: EarnProductCreate, now = Date.now()): Promise<number> {
  const db = env.DB;
  const cur = await getCurrency(db, input.currency_id);
  if (cur.isLegal && cur.name !== "USDT") throw new ApiError("currency_unsupported", 400);
  const min = amountOrThrow(input.min_amount, cur.scale);
  const max = amountOrThrow(input.max_amount, cur.scale);
  const budget = amountOrThrow(input.budget, cur.scale);
  if (min > max) throw new ApiError("earn_limits", 400);
  const aprBps = aprToBps(input.apr);
  const short = () => new ApiError("earn_treasury_short", 409, { amount: formatUnitsTrim(budget, cur.scale), currency: cur.name });
  const objects = accountsOnObjects(env);
  const build = (id: number) => [
    ...(objects
      ? [claimRecord(db, budgetHold(id), now)]
      : movementStatements(
          db,
          `earn:p${id}:fund`,
          "earn_fund",
          [{ userId: TREASURY, currencyId: cur.id, account: HOUSE_ACCOUNT, dAvailable: -budget, dFrozen: budget, memo: `savings product ${id} interest budget` }],
          now,
        )),
    db
      .prepare(
        `INSERT INTO earn_products (id, currency_id, term_days, apr_bps, min_amount, max_amount, budget, created_by, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(id, cur.id, input.term_days, aprBps, min.toString(), max.toString(), budget.toString(), operatorId, now),
    auditStatement(
      db,
      {
        operatorId,
        action: "earn.product.create",
        targetType: "earn_product",
        targetId: id,
        reason: input.reason,
        detail: { currency: cur.name, term_days: input.term_days, apr_bps: aprBps, min: input.min_amount, max: input.max_amount, budget: input.budget },
      },
      now,
    ),
  ];
  // Objects mode: the budget is held in its treasury shard first, then the product's row (the id drawn again when taken).
  const write = async (id: number) => {
    const hold = { forKind: "earn_product", forId: String(id), account: HOUSE_ACCOUNT, currencyId: cur.id, amount: budget };
    await (objects ? holdThenRecord(env, [{ to: treasuryAt(id), hold }], short, () => db.batch(build(id))) : db.batch(build(id)));
    return id;
  };
  return withNewId(takenOrClaimed(EARN_PRODUCT_TAKEN), write, now).catch((err: unknown) => {
    if (String((err as Error)?.message ?? err).includes("treasury_overdraft")) throw short();
    return earnRefusal(err);
  });
}

/** Closes a product to new subscriptions (audited), then gives the unpromised budget back to the treasury. */
export async function closeProduct(env: Env, operatorId: number, productId: number, reason: string, now = Date.now()): Promise<void> {
  const db = env.DB;
  const row = await productRow(db, productId);
  if (!row) throw new ApiError("not_found", 404);
  if (row.status !== 1) throw new ApiError("earn_closed", 409);
  await runEarnBatch(db, [
    db.prepare("UPDATE earn_products SET status = 2, closed_by = ?, closed_at = ? WHERE id = ? AND status = 1").bind(operatorId, now, productId),
    earnGuard(db, "close product"),
    auditStatement(db, { operatorId, action: "earn.product.close", targetType: "earn_product", targetId: productId, reason, detail: { remaining: formatUnitsTrim(remainingOf(row), row.scale) } }, now),
  ]);
  await releaseRemainders(env, now, productId);
}

/**
 * Gives the unpromised part of closed products' budgets back to the treasury (frozen → available),
 * one keyed movement per release, guarded on the amounts read so a racing accrual or redemption
 * only delays it to the next run. Returns how many products released something.
 */
export async function releaseRemainders(env: Env, now = Date.now(), onlyId?: number, limit = 50): Promise<number> {
  const db = env.DB;
  const objects = accountsOnObjects(env);
  const { results } = await db
    .prepare(`SELECT ${PRODUCT_COLUMNS} ${FROM} WHERE p.status = 2 AND p.budget - p.reserved - p.paid - p.released > 0 ${onlyId ? "AND p.id = ?" : ""} LIMIT ?`)
    .bind(...(onlyId ? [onlyId, limit] : [limit]))
    .all<ProductRow>();
  let n = 0;
  for (const r of results) {
    const rest = remainingOf(r);
    const after = BigInt(r.released) + rest;
    const key = `earn:p${r.id}:release:${after}`;
    const legs = [{ key, to: treasuryAt(r.id), ops: [release(budgetHold(r.id), r.currency_id, rest)] }];
    try {
      await runEarnBatch(db, [
        ...(objects
          ? recordLegsStatements(db, budgetHold(r.id), legs, now)
          : movementStatements(
              db,
              key,
              "earn_release",
              [{ userId: TREASURY, currencyId: r.currency_id, account: HOUSE_ACCOUNT, dAvailable: rest, dFrozen: -rest, memo: `savings product ${r.id} closed: unpromised budget returned` }],
              now,
            )),
        db
          .prepare("UPDATE earn_products SET released = ? WHERE id = ? AND status = 2 AND released = ? AND reserved = ? AND paid = ?")
          .bind(after.toString(), r.id, r.released, r.reserved, r.paid),
        earnGuard(db, "release budget"),
      ]);
      n += 1;
      if (objects) await deliverRecordLegs(env, legs);
    } catch (err) {
      if (!(err instanceof ApiError && err.key === "state_conflict")) throw err;
    }
  }
  return n;
}
