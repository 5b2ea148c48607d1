/**
 * A seconds contract and a leveraged position still open when the exchange moves its balances from
 * D1 into the account objects (worker/domain/ledger/account-cutover.ts `systemStep`). D1's path took
 * their open fee at the open, so the user's hold the cut-over opens is the stake or the margin alone:
 * the pair must not take the fee again from it on the objects (`fee_paid`), D1's rows must say the
 * same to the reconciler (`fee_held` 0), and the house's cover of each must be a hold of its own in
 * the treasury shard its settle or close pays from (not part of the shards' `migrated` holds).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { coverShard } from "../../durable/pair/desks/seconds-objects.ts";
import { leverShard } from "../../durable/pair/desks/lever-objects.ts";
import { systemStep } from "../../worker/domain/ledger/account-cutover.ts";
import { SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { seedSpotPair, units } from "../api/helpers.ts";
import { fundTreasury } from "../api/wallet-fixtures.ts";
import { USDT } from "../api/spot-fixtures.ts";
import { bettor, submit, twoSidedBook } from "../api/seconds-fixtures.ts";
import { leverUser, open, setIndex, stubOf } from "../api/lever-fixtures.ts";

const TREASURY = SYSTEM_USERS.treasury;
const PAIR = 1;

/** The pair's `fee_paid` of a contract and of a position. */
function feePaid(contractId: number, positionId: number) {
  return runInDurableObject(stubOf(PAIR), (_instance, state) => ({
    contract: state.storage.sql.exec("SELECT fee_paid FROM contracts WHERE id = ?", contractId).one().fee_paid,
    position: state.storage.sql.exec("SELECT fee_paid FROM lever_positions WHERE id = ?", positionId).one().fee_paid,
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
    const rows = {
      contract: (await env.DB.prepare("SELECT hold, fee, fee_held FROM micro_orders WHERE id = ?").bind(contract.id).first<{ hold: number; fee: number; fee_held: number }>())!,
      position: (await env.DB.prepare("SELECT hold, fee, fee_held FROM lever_positions WHERE id = ?").bind(position.id).first<{ hold: number; fee: number; fee_held: number }>())!,
    };
    // D1's path took both fees at the open; the rows from before say nothing of it yet.
    expect(rows.contract.fee).toBeGreaterThan(0);
    expect(rows.position.fee).toBeGreaterThan(0);
    expect(await feePaid(contract.id, position.id)).toEqual({ contract: 0, position: 0 });

    await systemStep(env, { operatorId: 0, reason: "test", checked: false });

    expect(await feePaid(contract.id, position.id)).toEqual({ contract: 1, position: 1 });
    expect((await env.DB.prepare("SELECT fee_held FROM micro_orders WHERE id = ?").bind(contract.id).first<{ fee_held: number }>())!.fee_held).toBe(0);
    expect((await env.DB.prepare("SELECT fee_held FROM lever_positions WHERE id = ?").bind(position.id).first<{ fee_held: number }>())!.fee_held).toBe(0);
    const cover = await systemStub(env, TREASURY, coverShard(contract.id)).systemHold(TREASURY, coverShard(contract.id), `seconds:${contract.id}`);
    expect(cover).toMatchObject({ amount: BigInt(rows.contract.hold), spent: 0n, open: true });
    const leverCover = await systemStub(env, TREASURY, leverShard(position.id)).systemHold(TREASURY, leverShard(position.id), `lever_margin:${position.id}`);
    expect(leverCover).toMatchObject({ amount: BigInt(rows.position.hold), spent: 0n, open: true });

    // A second run marks nothing again and opens nothing twice.
    expect(await stubOf(PAIR).feesPaidOnD1(PAIR)).toEqual({ contracts: 0, positions: 0 });
    await systemStep(env, { operatorId: 0, reason: "test", checked: false });
    expect(await systemStub(env, TREASURY, coverShard(contract.id)).systemHold(TREASURY, coverShard(contract.id), `seconds:${contract.id}`)).toEqual(cover);
  });
});
