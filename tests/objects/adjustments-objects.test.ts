/**
 * Balance adjustments and treasury funding with balances in the account objects (ACCOUNTS=objects,
 * issue #28; worker/domain/operator/adjustment-objects.ts): the second operator's approval moves
 * the money in the user's object and the system shards, never in D1's balances; whoever pays holds
 * first, so a short payer refuses and nothing moves; a decision's legs apply once however often they
 * are sent; a hold left by a decision that died is given back by the sweep, once.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub, shardOf, SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { adjustmentPlan, fundingParts } from "../../worker/domain/operator/adjustment-objects.ts";
import { holdAt } from "../../worker/lib/product-objects.ts";
import { deliverRecordLegs, resendRecordLegs } from "../../worker/lib/record-legs.ts";
import { api, type TestUser } from "../api/helpers.ts";
import { makeOperator, seedWalletCurrencies, u8 } from "../api/wallet-fixtures.ts";
import { d1LedgerRows, objectBalances, USDT } from "./fixtures.ts";
import { expectClean, fundShards, objectUser, openHolds, settled, shardBalance, TREASURY, unsentLegs } from "./products-fixtures.ts";

const { deposits: DEPOSITS, withdrawals: WITHDRAWALS } = SYSTEM_USERS;

let ops: [TestUser, TestUser];
beforeAll(async () => {
  await seedWalletCurrencies();
  ops = [await makeOperator(), await makeOperator()];
});

async function request(body: Record<string, unknown>): Promise<number> {
  const r = await api("/admin/adjustments", { token: ops[0].token, body: { currency_id: USDT, account: "change", reason: "support ticket 42", ...body } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message.id as number;
}
const approve = (id: number) => api(`/admin/adjustments/${id}/approve`, { token: ops[1].token, body: { reason: "checked" } });
const statusOf = async (id: number) => (await env.DB.prepare("SELECT status FROM balance_adjustments WHERE id = ?").bind(id).first<{ status: number }>())!.status;

/** A shard's [available, frozen] of USDT in its `change` account. */
async function shardOfUser(userId: number, id: number): Promise<[bigint, bigint]> {
  const k = shardOf(id);
  const b = (await systemStub(env, userId, k).systemBalances(userId, k)).find((x) => x.currencyId === USDT && x.account === "change");
  return [b?.available ?? 0n, b?.frozen ?? 0n];
}

/** Every treasury shard's available USDT, shard 0 first. */
async function everyShard(): Promise<bigint[]> {
  const out: bigint[] = [];
  for (let k = 0; k < SYSTEM_SHARDS; k++) {
    const b = (await systemStub(env, TREASURY, k).systemBalances(TREASURY, k)).find((x) => x.currencyId === USDT && x.account === "change");
    out.push(b?.available ?? 0n);
  }
  return out;
}

/** The user's statement lines as [kind, amount, ref type]. */
async function statement(user: TestUser, account = "change") {
  const r = await api(`/wallet/statement?currency_id=${USDT}&account=${account}`, { token: user.token });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return (r.body.message.lines as { kind: string; amount: string; held: string; ref: { type: string; id: number | null } }[]).map((l) => [l.kind, l.amount, l.held, l.ref.type, l.ref.id]);
}

describe("balance adjustments on the account objects", () => {
  it("funds every treasury shard an equal part from outside (the deposits shard records it in and out), once", async () => {
    const id = await request({ user_id: TREASURY, amount: "500", reason: "capital injection" });
    const before = await everyShard();
    expect((await approve(id)).body.message).toEqual({ id, status: 1 });
    // 62.5 each: every record draws on the shard its id names, so each shard can cover its part.
    expect(await everyShard()).toEqual(before.map((b) => b + u8("62.5")));
    // The deposits shard's balance stays 0: what came in and what it paid are two movements.
    expect(await shardOfUser(DEPOSITS, id)).toEqual([0n, 0n]);
    expect(await unsentLegs()).toBe(0);
    // A second approval loses on the record's state; the legs sent again are seen.
    expect((await approve(id)).body.code).toBe("state_conflict");
    await deliverRecordLegs(env, adjustmentPlan({ id, user_id: TREASURY, currency_id: USDT, account: "change", amount: u8("500") }, 0).legs);
    expect(await everyShard()).toEqual(before.map((b) => b + u8("62.5")));
    expect(await d1LedgerRows(TREASURY)).toBe(0);
  });

  it("splits a funding's units over the shards, the remainder one unit each to the first", () => {
    expect(fundingParts(8_000_003)).toEqual([1_000_001, 1_000_001, 1_000_001, 1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000]);
    expect(fundingParts(3)).toEqual([1, 1, 1]);
  });

  it("credits a user from the treasury's shard, which holds first; a short shard refuses and nothing moves", async () => {
    const user = await objectUser([]);
    const id = await request({ user_id: user.id, amount: "1000000" });
    const before = await shardBalance(id, USDT);
    const short = await approve(id);
    expect(short.body).toMatchObject({ type: "error", code: "treasury_insufficient" });
    expect(await statusOf(id)).toBe(0);
    expect(await objectBalances(user.id)).toEqual([]);
    expect(await shardBalance(id, USDT)).toEqual(before);

    await fundShards(USDT, "2000000");
    const funded = await shardBalance(id, USDT);
    expect((await approve(id)).body.message).toEqual({ id, status: 1 });
    expect(await settled(user.id)).toEqual([["change", USDT, u8("1000000"), 0n]]);
    expect(await shardBalance(id, USDT)).toEqual([funded[0] - u8("1000000"), funded[1]]);
    expect(await statement(user)).toEqual([["adjustment", "1000000.00000000", "0.00000000", "adjustment", id]]);
    expect(await d1LedgerRows(user.id)).toBe(0);
    expect(await unsentLegs()).toBe(0);
    await expectClean();
  });

  it("debits a user's lever account from a hold in their object; short, insufficient_balance and nothing moves", async () => {
    const user = await objectUser([[USDT, "30", "lever"]]);
    const id = await request({ user_id: user.id, account: "lever", amount: "-40" });
    expect((await approve(id)).body).toMatchObject({ type: "error", code: "insufficient_balance" });
    expect(await statusOf(id)).toBe(0);
    expect(await objectBalances(user.id)).toEqual([["lever", USDT, u8("30"), 0n]]);
    expect(await openHolds(user.id)).toEqual([]);

    const ok = await request({ user_id: user.id, account: "lever", amount: "-25.5" });
    const before = await shardBalance(ok, USDT);
    expect((await approve(ok)).body.message).toEqual({ id: ok, status: 1 });
    expect(await settled(user.id)).toEqual([["lever", USDT, u8("4.5"), 0n]]);
    expect(await statement(user, "lever")).toEqual([
      ["adjustment", "-25.50000000", "-25.50000000", "adjustment", ok],
      ["adjustment", "0.00000000", "25.50000000", "adjustment", ok],
    ]);
    expect(await openHolds(user.id)).toEqual([]);
    expect(await shardBalance(ok, USDT)).toEqual([before[0] + u8("25.5"), before[1]]);
    // Resent by the job (as after a Worker that died after the batch): seen, nothing twice.
    await env.DB.prepare("INSERT INTO record_legs (key, dest, ops, record, created_at) SELECT value ->> 'key', value ->> 'to', value ->> 'ops', 'x', 0 FROM json_each(?)")
      .bind(JSON.stringify(adjustmentPlan({ id: ok, user_id: user.id, currency_id: USDT, account: "lever", amount: -u8("25.5") }, 0).legs.slice(1)))
      .run();
    expect(await resendRecordLegs(env)).toEqual({ sent: 1, left: 0 });
    expect(await shardBalance(ok, USDT)).toEqual([before[0] + u8("25.5"), before[1]]);
    expect(await d1LedgerRows(user.id)).toBe(0);
  });

  it("takes money out of the treasury to the withdrawals shard, the treasury's shard holding first", async () => {
    await fundShards(USDT, "100");
    const id = await request({ user_id: TREASURY, amount: "-60", reason: "paid out to the bank" });
    const [avail] = await shardBalance(id, USDT);
    const outBefore = await shardOfUser(WITHDRAWALS, id);
    expect((await approve(id)).body.message).toEqual({ id, status: 1 });
    expect(await shardBalance(id, USDT)).toEqual([avail - u8("60"), 0n]);
    expect(await shardOfUser(WITHDRAWALS, id)).toEqual([outBefore[0] + u8("60"), 0n]);
    const huge = await request({ user_id: TREASURY, amount: "-90000000" });
    expect((await approve(huge)).body).toMatchObject({ type: "error", code: "treasury_insufficient" });
    expect(await statusOf(huge)).toBe(0);
    expect((await systemStub(env, TREASURY, shardOf(huge)).systemOpenHolds(TREASURY, shardOf(huge), "adjustment", Date.now() + 1)).length).toBe(0);
  });

  it("answers an approval of an adjustment already decided with state_conflict, as D1's path does, whoever would pay and however short", async () => {
    const user = await objectUser([[USDT, "5"]]);
    const reject = (id: number) => api(`/admin/adjustments/${id}/reject`, { token: ops[0].token, body: { reason: "entered by mistake" } });
    // A credit the treasury's shard could never pay, a debit the user could never pay, funding: each rejected, then approved.
    for (const body of [{ user_id: user.id, amount: "90000000" }, { user_id: user.id, amount: "-90000000" }, { user_id: TREASURY, amount: "-90000000" }, { user_id: TREASURY, amount: "10" }]) {
      const id = await request(body);
      expect((await reject(id)).body.message).toEqual({ id, status: 2 });
      const before = await shardBalance(id, USDT);
      const again = await approve(id);
      expect([again.status, again.body.code]).toEqual([409, "state_conflict"]);
      expect(await statusOf(id)).toBe(2);
      // Nothing was held for it, not even for a moment: no hold, no movement on either side.
      expect(await shardBalance(id, USDT)).toEqual(before);
      expect((await systemStub(env, TREASURY, shardOf(id)).systemOpenHolds(TREASURY, shardOf(id), "adjustment", Date.now() + 1)).length).toBe(0);
    }
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("5"), 0n]]);
    expect(await openHolds(user.id)).toEqual([]);
    expect(await statement(user)).toEqual([]);
  });

  it("a decision that died after its hold: a later approval pays once, and the sweep gives the dead hold back", async () => {
    const user = await objectUser([[USDT, "50"]]);
    const id = await request({ user_id: user.id, amount: "-20" });
    // The first approver's Worker held, then died before its batch.
    const dead = Date.now() - 1;
    expect(await holdAt(env, `user:${user.id}`, { forKind: "adjustment", forId: `${id}:${dead}`, account: "change", currencyId: USDT, amount: u8("20") })).toBe("reserved");
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("30"), u8("20")]]);
    expect((await approve(id)).body.message).toEqual({ id, status: 1 });
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("10"), u8("20")]]);
    expect(await accountStub(env, user.id).accountSweep(0)).toMatchObject({ released: 1 });
    expect(await accountStub(env, user.id).accountSweep(0)).toMatchObject({ released: 0 });
    expect(await settled(user.id)).toEqual([["change", USDT, u8("30"), 0n]]);
    expect(await openHolds(user.id)).toEqual([]);
    expect((await approve(id)).body.code).toBe("state_conflict");
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("30"), 0n]]);
  });
});
