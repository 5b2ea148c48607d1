/**
 * Buying shares and one's own holdings (issue #20 §1). A purchase is ONE D1 batch: the keyed
 * movement `mining:{id}:buy` (kind mining_buy: the price from the buyer's spot account to the
 * treasury), the holding row, the plan's sold count (a trigger refuses passing the plan's shares
 * or a closed plan, so parallel buys cannot oversell) and the buyer's notification. The ledger's
 * balance CHECK refuses an overdraft, so parallel buys cannot pass the balance either.
 */
import { DAY_MS, type MiningCredit, type MiningHolding, type MiningMy } from "../../../schemas/mining.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { classifyBatchError, movementStatements } from "../../lib/ledger.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { claimRecord, credit, holdThenRecord, houseKey, spend, takenOrClaimed, treasuryAt, userAt } from "../../lib/product-objects.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { takenIn, withNewId } from "../../lib/ids.ts";
import { announceNotifications, notificationStatement } from "../notifications/inbox.ts";
import { money } from "../notifications/events.ts";
import { planRow } from "./plans.ts";

const LINK = "/mining/my";

interface HoldingRow {
  id: number;
  plan_id: number;
  plan_name: string;
  shares: number;
  cost: number;
  price_currency: string;
  price_scale: number;
  payout_currency: string;
  start_at: number;
  end_at: number;
  created_at: number;
}

const HOLDING_SELECT = `SELECT h.id, h.plan_id, p.name AS plan_name, h.shares, h.cost, pc.name AS price_currency, pc.scale AS price_scale, oc.name AS payout_currency,
  h.start_at, h.end_at, h.created_at
  FROM mining_holdings h JOIN mining_plans p ON p.id = h.plan_id JOIN currencies pc ON pc.id = p.price_currency_id JOIN currencies oc ON oc.id = p.payout_currency_id`;

function holdingOut(h: HoldingRow, now: number): MiningHolding {
  return {
    id: h.id,
    plan_id: h.plan_id,
    plan_name: h.plan_name,
    shares: h.shares,
    cost: formatUnitsTrim(BigInt(h.cost), h.price_scale),
    price_currency: h.price_currency,
    payout_currency: h.payout_currency,
    start_at: h.start_at,
    end_at: h.end_at,
    status: now < h.end_at ? "in_progress" : "completed",
    created_at: h.created_at,
  };
}

/**
 * Buys shares of an open plan; they count for hours starting from now for the plan's days. With
 * balances in the account objects (`ACCOUNTS=objects`) the price is held first in the user's spot
 * account (hold `mining:{id}`), then the holding's row, whose batch owes the legs that spend that
 * hold and credit the treasury's shard (`mining:{id}:buy`; worker/lib/product-objects.ts).
 */
export async function buyShares(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, userId: number, b: { plan_id: number; shares: number }, now = Date.now()): Promise<MiningHolding> {
  const db = env.DB;
  const plan = await planRow(db, b.plan_id);
  if (!plan) throw notFound();
  if (plan.status !== "open") throw new ApiError("mining_plan_closed", 409);
  if (b.shares > plan.shares - plan.sold) throw new ApiError("mining_sold_out", 409, { left: plan.shares - plan.sold });
  const cost = BigInt(plan.price) * BigInt(b.shares);
  const objects = accountsOnObjects(env);
  const buyLegs = (id: number): Leg[] => [
    { key: `mining:${id}:buy`, to: userAt(userId), ops: [spend(`mining:${id}`, plan.price_currency_id, cost)] },
    { key: houseKey(`mining:${id}:buy`), to: treasuryAt(id), ops: [credit(HOUSE_ACCOUNT, plan.price_currency_id, cost)] },
  ];
  const build = (id: number) => {
    const key = `mining:${id}:buy`;
    return [
      ...(objects
        ? [claimRecord(db, `mining:${id}`, now), ...recordLegsStatements(db, `mining:${id}`, buyLegs(id), now)]
        : movementStatements(
            db,
            key,
            "mining_buy",
            [
              { userId, currencyId: plan.price_currency_id, account: "change", dAvailable: -cost, dFrozen: 0n, memo: `mining #${id}: ${b.shares} shares of plan ${plan.id}` },
              { userId: TREASURY, currencyId: plan.price_currency_id, account: HOUSE_ACCOUNT, dAvailable: cost, dFrozen: 0n, memo: `mining #${id}: shares sold` },
            ],
            now,
          )),
      db
        .prepare("INSERT INTO mining_holdings (id, plan_id, user_id, shares, cost, start_at, end_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(id, plan.id, userId, b.shares, cost.toString(), now, now + plan.days * DAY_MS, now),
      db.prepare("UPDATE mining_plans SET sold = sold + ? WHERE id = ?").bind(b.shares, plan.id),
      notificationStatement(db, {
        userId,
        kind: "mining_bought",
        key,
        params: { id, plan: plan.name, shares: b.shares, cost: money(cost, plan.price_scale), currency: plan.price_currency, days: plan.days },
        link: LINK,
        now,
      }),
    ];
  };
  const write = async (id: number) => {
    if (!objects) await db.batch(build(id));
    else {
      const hold = { forKind: "mining", forId: String(id), account: "change", currencyId: plan.price_currency_id, amount: cost };
      await holdThenRecord(env, [{ to: userAt(userId), hold }], () => new ApiError("insufficient_balance", 409), () => db.batch(build(id)));
      await deliverRecordLegs(env, buyLegs(id));
    }
    return id;
  };
  let id: number;
  try {
    id = await withNewId(takenOrClaimed(takenIn("mining_holdings")), write, now);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const msg = String((err as Error)?.message ?? err);
    if (msg.includes("mining_sold_out")) {
      const fresh = await planRow(db, plan.id);
      throw new ApiError("mining_sold_out", 409, { left: fresh ? fresh.shares - fresh.sold : 0 });
    }
    if (msg.includes("mining_plan_closed")) throw new ApiError("mining_plan_closed", 409);
    if (classifyBatchError(err) === "insufficient") throw new ApiError("insufficient_balance", 409);
    throw err;
  }
  await announceNotifications(env, [userId]);
  const row = await db.prepare(`${HOLDING_SELECT} WHERE h.id = ? AND h.user_id = ?`).bind(id, userId).first<HoldingRow>();
  return holdingOut(row!, now);
}

interface CreditRow {
  plan_id: number;
  plan_name: string;
  hour: number;
  shares: number;
  gross: number;
  fee: number;
  currency: string;
  scale: number;
  evidence: string;
  created_at: number;
}

/** One's holdings (newest first), the latest 100 hours paid to one, and one's totals per currency. */
export async function myMining(db: D1Database, userId: number, now = Date.now()): Promise<MiningMy> {
  const [holdings, credits, totals] = await db.batch<HoldingRow | CreditRow | { currency: string; scale: number; net: string }>([
    db.prepare(`${HOLDING_SELECT} WHERE h.user_id = ? ORDER BY h.id DESC LIMIT 200`).bind(userId),
    db
      .prepare(
        `SELECT k.plan_id, p.name AS plan_name, k.hour, k.shares, k.gross, k.fee, c.name AS currency, c.scale, o.evidence, k.created_at
           FROM mining_credits k JOIN mining_plans p ON p.id = k.plan_id JOIN currencies c ON c.id = k.currency_id JOIN mining_payouts o ON o.id = k.payout_id
          WHERE k.user_id = ? ORDER BY k.hour DESC, k.plan_id DESC LIMIT 100`,
      )
      .bind(userId),
    db
      .prepare(
        `SELECT c.name AS currency, c.scale, CAST(SUM(k.gross - k.fee) AS TEXT) AS net FROM mining_credits k JOIN currencies c ON c.id = k.currency_id
          WHERE k.user_id = ? GROUP BY k.currency_id ORDER BY c.sort, c.id`,
      )
      .bind(userId),
  ]);
  return {
    holdings: (holdings!.results as HoldingRow[]).map((h) => holdingOut(h, now)),
    payouts: (credits!.results as CreditRow[]).map(
      (k): MiningCredit => ({
        plan_id: k.plan_id,
        plan_name: k.plan_name,
        hour: k.hour,
        shares: k.shares,
        gross: formatUnitsTrim(BigInt(k.gross), k.scale),
        fee: formatUnitsTrim(BigInt(k.fee), k.scale),
        amount: formatUnitsTrim(BigInt(k.gross) - BigInt(k.fee), k.scale),
        currency: k.currency,
        evidence: k.evidence,
        paid_at: k.created_at,
      }),
    ),
    totals: (totals!.results as { currency: string; scale: number; net: string }[]).map((t) => ({ currency: t.currency, amount: formatUnitsTrim(BigInt(t.net), t.scale) })),
  };
}
