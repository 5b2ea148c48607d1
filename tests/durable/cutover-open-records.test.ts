/**
 * A seconds contract and a leveraged position still open when the exchange moves its balances from
 * D1 into the account objects (worker/domain/ledger/account-cutover.ts `systemStep`). D1's path took
 * their open fee at the open, so the user's hold the cut-over opens is the stake or the margin alone:
 * the pair must not take the fee again from it on the objects (`fee_paid`), D1's rows must say the
 * same to the reconciler (`fee_held` 0), and the house's cover of each must be a hold of its own in
 * the treasury shard its settle or close pays from (not part of the shards' `migrated` holds). A
 * pending limit's fee, which D1 would give back at a revoke, is held in its fee shard (`fee_paid` 2;
 * its revoke and fill on the objects: tests/objects/cutover-pending-lever-objects.test.ts).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { coverShard } from "../../durable/pair/desks/seconds-objects.ts";
import { leverFeeHold, leverShard } from "../../durable/pair/desks/lever-objects.ts";
import { systemStep } from "../../worker/domain/ledger/account-cutover.ts";
import { SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { seedSpotPair, units } from "../api/helpers.ts";
import { fundTreasury } from "../api/wallet-fixtures.ts";
import { USDT } from "../api/spot-fixtures.ts";
import { bettor, submit, twoSidedBook } from "../api/seconds-fixtures.ts";
import { leverUser, open, setIndex, stubOf } from "../api/lever-fixtures.ts";

const TREASURY = SYSTEM_USERS.treasury;
const PAIR = 1;

/** The pair's `fee_paid` of a contract, a position and a pending limit open. */
function feePaid(contractId: number, positionId: number, pendingId: number) {
  return runInDurableObject(stubOf(PAIR), (_instance, state) => ({
    contract: state.storage.sql.exec("SELECT fee_paid FROM contracts WHERE id = ?", contractId).one().fee_paid,
    position: state.storage.sql.exec("SELECT fee_paid FROM lever_positions WHERE id = ?", positionId).one().fee_paid,
    pending: state.storage.sql.exec("SELECT fee_paid FROM lever_positions WHERE id = ?", pendingId).one().fee_paid,
  }));
}

beforeAll(async () => {
  await seedSpotPair();
  await fundTreasury(USDT, units("1000000"));
  await twoSidedBook();
});

describe("contracts and positions open at the cut-over", () => {
  it("are marked as having paid their open fee, and their covers are opened as their own holds in the treasury shards", async () => {
    const u = await bettor("1000");
    const c = await submit(u.token, { number: "10", seconds: 300 });
    expect(c.body.type, JSON.stringify(c.body)).toBe("ok");
    const contract = c.body.message as { id: number };
    await setIndex("101.00");
    const trader = await leverUser("1000");
    const p = await open(trader.token, {});
    expect(p.body.type, JSON.stringify(p.body)).toBe("ok");
    const position = p.body.message as { id: number };
    const limit = await open((await leverUser("1000")).token, { target_price: "95" });
    expect(limit.body.message, JSON.stringify(limit.body)).toMatchObject({ status: 1 });
    const pending = limit.body.message as { id: number };
    const rows = {
      contract: (await env.DB.prepare("SELECT hold, fee, fee_held FROM micro_orders WHERE id = ?").bind(contract.id).first<{ hold: number; fee: number; fee_held: number }>())!,
      position: (await env.DB.prepare("SELECT hold, fee, fee_held FROM lever_positions WHERE id = ?").bind(position.id).first<{ hold: number; fee: number; fee_held: number }>())!,
    };
    // D1's path took both fees at the open; the rows from before say nothing of it yet.
    expect(rows.contract.fee).toBeGreaterThan(0);
    expect(rows.position.fee).toBeGreaterThan(0);
    expect(await feePaid(contract.id, position.id, pending.id)).toEqual({ contract: 0, position: 0, pending: 0 });
    const pendingFee = (await env.DB.prepare("SELECT fee FROM lever_positions WHERE id = ?").bind(pending.id).first<{ fee: number }>())!.fee;
    expect(pendingFee).toBeGreaterThan(0);

    const opened = await systemStep(env, { operatorId: 0, reason: "test", checked: false });
    expect(opened.mismatched).toEqual([]);

    // A pending limit's fee D1 would give back at a revoke: the pair marks it held by its fee shard (2).
    expect(await feePaid(contract.id, position.id, pending.id)).toEqual({ contract: 1, position: 1, pending: 2 });
    expect((await env.DB.prepare("SELECT fee_held FROM micro_orders WHERE id = ?").bind(contract.id).first<{ fee_held: number }>())!.fee_held).toBe(0);
    expect((await env.DB.prepare("SELECT fee_held FROM lever_positions WHERE id = ?").bind(position.id).first<{ fee_held: number }>())!.fee_held).toBe(0);
    expect((await env.DB.prepare("SELECT fee_held FROM lever_positions WHERE id = ?").bind(pending.id).first<{ fee_held: number }>())!.fee_held).toBe(2);
    // Its fee is a hold in its fee shard, out of D1's available fees (the shards compared equal with that part frozen).
    const k = leverShard(pending.id);
    expect(await systemStub(env, SYSTEM_USERS.fees, k).systemHold(SYSTEM_USERS.fees, k, leverFeeHold(pending.id))).toMatchObject({ amount: BigInt(pendingFee), spent: 0n, open: true });
    const cover = await systemStub(env, TREASURY, coverShard(contract.id)).systemHold(TREASURY, coverShard(contract.id), `seconds:${contract.id}`);
    expect(cover).toMatchObject({ amount: BigInt(rows.contract.hold), spent: 0n, open: true });
    const leverCover = await systemStub(env, TREASURY, leverShard(position.id)).systemHold(TREASURY, leverShard(position.id), `lever_margin:${position.id}`);
    expect(leverCover).toMatchObject({ amount: BigInt(rows.position.hold), spent: 0n, open: true });

    // A second run marks nothing again and opens nothing twice.
    expect(await stubOf(PAIR).feesPaidOnD1(PAIR)).toEqual({ contracts: 0, positions: 0, held: [pending.id] });
    await systemStep(env, { operatorId: 0, reason: "test", checked: false });
    expect(await systemStub(env, TREASURY, coverShard(contract.id)).systemHold(TREASURY, coverShard(contract.id), `seconds:${contract.id}`)).toEqual(cover);
  });
});
