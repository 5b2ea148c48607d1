/**
 * Rebates of seconds, lever and conversion fees with balances in the account objects
 * (ACCOUNTS=objects; worker/domain/invite/object-fees.ts): D1's ledger books none of those fees, so
 * the settlement reads what the fee shards were paid (a position's close and overnight legs,
 * drained into `system_movements`) and the products' own rows (settled contracts, conversions),
 * and pays the rebate out of the fee shards' `change` account, where those fees landed; a day
 * settled again, or its legs sent again, pays once; a revoked contract's fee (never taken) counts nothing.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_SHARDS, SYSTEM_USERS, systemAddress, systemStub } from "../../worker/lib/accounts.ts";
import { beijingDay, dayEnd } from "../../worker/domain/invite/days.ts";
import { settleDay } from "../../worker/domain/invite/settle.ts";
import { resendRecordLegs } from "../../worker/lib/record-legs.ts";
import { makeUser, seedSpotPair, units, type TestUser } from "../api/helpers.ts";
import { makeOperator } from "../api/wallet-fixtures.ts";
import { codeOf, registerWith, verify } from "../api/invite-fixtures.ts";
import { PAIR, USDT, drainObject, objectBalances } from "./fixtures.ts";

const FEES = SYSTEM_USERS.fees;
let op: TestUser;
beforeAll(async () => {
  await seedSpotPair();
  op = await makeOperator();
});

/** The fee account's `change` USDT summed over its shards. */
async function feeChange(): Promise<bigint> {
  let sum = 0n;
  for (let k = 0; k < SYSTEM_SHARDS; k++) sum += (await systemStub(env, FEES, k).systemBalances(FEES, k)).find((b) => b.account === "change" && b.currencyId === USDT)?.available ?? 0n;
  return sum;
}

/** A fee leg as the pair's desk sends it to fee shard k (credit `change`), then the shard drained into the read model. */
async function feeLeg(key: string, k: number, fee: string) {
  const to = systemAddress(FEES, k);
  expect(await systemStub(env, FEES, k).systemReceive(FEES, k, [{ key: `${key}:${to}`, to, ops: [{ t: "credit", kind: "change", cur: String(USDT), amt: Number(units(fee)) }] }])).toEqual(["applied"]);
  await drainObject(systemStub(env, FEES, k));
}

let ids = 8_100_000;
describe("rebates of seconds, lever and conversion fees on the account objects", () => {
  it("counts what the fee shards were paid for the invitee's position and the fees of settled contracts and conversions, and pays once from the shards", async () => {
    const inviter = await makeUser({ verified: 0 });
    await verify(op, inviter, "OBJ-FEES-A");
    const invitee = await registerWith(await codeOf(inviter));
    await verify(op, invitee, "OBJ-FEES-B");
    const now = Date.now();
    // A closed position of the invitee: 3 USDT (open + close fee) at the close, 1 USDT overnight, paid into fee shard 2.
    const position = ++ids;
    await env.DB.prepare(
      `INSERT INTO lever_positions (id, user_id, pair_id, currency_id, type, lots, multiple, share_units, quote_price, margin, fee, hold, fee_bps, overnight_bps, maintenance_bps, status, created_at)
       VALUES (?, ?, ?, ?, 1, 10, 10, 1000000, 10100, 100, 1, 100, 5, 1, 50, 4, ?)`,
    )
      .bind(position, invitee.id, PAIR, USDT, now)
      .run();
    await feeLeg(`lever:${position}:close`, 2, "3");
    await feeLeg(`lever:${position}:fee:1`, 2, "1");
    // Contracts: one settled with a 2 USDT fee (counts), one revoked with 5 (never taken: counts nothing).
    const contract = "INSERT INTO micro_orders (id, user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps, status, created_at, settled_at) VALUES (?, ?, ?, ?, 1, 100, ?, 0, 30, 8000, ?, ?, ?)";
    await env.DB.prepare(contract).bind(++ids, invitee.id, PAIR, USDT, String(units("2")), 3, now, now).run();
    await env.DB.prepare(contract).bind(++ids, invitee.id, PAIR, USDT, String(units("5")), 4, now, null).run();
    await feeLeg(`seconds:${PAIR}:1:${ids}`, 5, "2");
    // A conversion with a 4 USDT fee.
    await env.DB.prepare("INSERT INTO conversions (user_id, from_currency, to_currency, money, money2, price, rate, fee, fee_percent, usdt_value, movement_key, created_at) VALUES (?, 3, 1, 100, 1, '1', '1', ?, '1', 100, ?, ?)")
      .bind(invitee.id, String(units("4")), `conversion:test:${ids}`, now)
      .run();
    await feeLeg(`conversion:test:${ids}:fee`, 6, "4");

    const before = await feeChange();
    const today = beijingDay(now);
    const settleAt = dayEnd(today) + 8 * 3_600_000;
    const run = await settleDay(env, today, settleAt);
    expect(run.phase).toBe("done");
    const fees = await env.DB.prepare("SELECT product, CAST(fee AS TEXT) AS fee FROM invite_fees WHERE day = ? AND user_id = ? ORDER BY product").bind(today, invitee.id).all<{ product: string; fee: string }>();
    expect(fees.results).toEqual([
      { product: "conversion", fee: String(units("4")) },
      { product: "lever", fee: String(units("4")) },
      { product: "seconds", fee: String(units("2")) },
    ]);
    // 20 % of 10 USDT at level 1, out of the fee shards' `change` account where those fees are.
    const rebate = units("2");
    expect(await objectBalances(inviter.id)).toEqual([[run.paid_to, USDT, rebate, 0n]]);
    expect(await feeChange()).toBe(before - rebate);

    // Settled again, its legs sent again: nothing more.
    await settleDay(env, today, settleAt);
    await env.DB.prepare("INSERT INTO record_legs (key, dest, ops, record, created_at) VALUES (?, ?, ?, 'x', 0)")
      .bind(`rebate:${today}:${inviter.id}`, `user:${inviter.id}`, JSON.stringify([{ t: "credit", kind: run.paid_to, cur: String(USDT), amt: Number(rebate) }]))
      .run();
    expect(await resendRecordLegs(env)).toEqual({ sent: 1, left: 0 });
    expect(await objectBalances(inviter.id)).toEqual([[run.paid_to, USDT, rebate, 0n]]);
    expect(await feeChange()).toBe(before - rebate);
  });
});
