/**
 * A fee shard's movement held back by a failing D1 (ACCOUNTS=objects: the shard hands its movements
 * to a read-model collector, which backs off while D1 fails, up to 30 s; the shard keeps them): the
 * fee of a position closed before today's early rebate run reaches D1 after it, timed before the
 * run's cut. The run counts fee rows in the order D1 received them (migrations/0055,
 * worker/domain/invite/fee-rows.ts), so tomorrow's run pays that fee's rebate, once.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { collectorCount, collectorName, collectorStatements, DrainCollector, type HandOver } from "../../durable/account/collector.ts";
import { SYSTEM_USERS, systemAddress, systemStub } from "../../worker/lib/accounts.ts";
import { addDays, beijingDay, dayEnd } from "../../worker/domain/invite/days.ts";
import { settleDay } from "../../worker/domain/invite/settle.ts";
import { seedSpotPair, units, type TestUser } from "../api/helpers.ts";
import { makeOperator } from "../api/wallet-fixtures.ts";
import { verifiedInvite } from "../api/invite-fixtures.ts";
import { PAIR, USDT, drainObject, objectBalances } from "./fixtures.ts";

let op: TestUser;
beforeAll(async () => {
  await seedSpotPair();
  op = await makeOperator();
});

const FEES = SYSTEM_USERS.fees;

/** The collector fee shard `shard` hands its movements to, and its gatherer writing D1 with `write`. */
const shardCollector = (shard: number) => env.USER.get(env.USER.idFromName(collectorName({ kind: "system", userId: FEES, shard }, collectorCount(env))));
async function collectorWriting(shard: number, write: (handOvers: HandOver[]) => Promise<unknown>) {
  await runInDurableObject(shardCollector(shard), (instance) => {
    (instance as unknown as { collector: DrainCollector }).collector = new DrainCollector(write);
  });
}
const collectorFailures = (shard: number) =>
  runInDurableObject(shardCollector(shard), (instance) => (instance as unknown as { collector: DrainCollector }).collector.stats.failures);

describe("a fee shard's movement held back while D1 fails", () => {
  const SHARD = 4;
  afterEach(async () => {
    await collectorWriting(SHARD, (handOvers) => env.DB.batch(collectorStatements(env.DB, handOvers)));
  });

  it("pays the rebate of a position's fee applied before today's early run but drained after it in tomorrow's run, once", async () => {
    const { inviter, invitee } = await verifiedInvite(op, "OBJ-LATE-LEVER");
    const now = Date.now();
    const position = 8_300_001;
    await env.DB.prepare(
      `INSERT INTO lever_positions (id, user_id, pair_id, currency_id, type, lots, multiple, share_units, quote_price, margin, fee, hold, fee_bps, overnight_bps, maintenance_bps, status, created_at)
       VALUES (?, ?, ?, ?, 1, 10, 10, 1000000, 10100, 100, 1, 100, 5, 1, 50, 4, ?)`,
    )
      .bind(position, invitee.id, PAIR, USDT, now)
      .run();
    // D1 fails for the shard's collector: the shard keeps its movements and asks again later.
    await collectorWriting(SHARD, () => Promise.reject(new Error("D1 unavailable (test)")));
    // The position's close: 3 USDT of fees into fee shard 4, applied now.
    const to = systemAddress(FEES, SHARD);
    expect(
      await systemStub(env, FEES, SHARD).systemReceive(FEES, SHARD, [{ key: `lever:${position}:close:${to}`, to, ops: [{ t: "credit", kind: "change", cur: String(USDT), amt: Number(units("3")) }] }]),
    ).toEqual(["applied"]);
    await expect.poll(() => collectorFailures(SHARD), { timeout: 30_000 }).toBeGreaterThan(0);
    const landed = () => env.DB.prepare("SELECT created_at FROM system_movements WHERE user_id = ? AND shard = ? AND ref LIKE ?").bind(FEES, SHARD, `lever:${position}:%`).first<{ created_at: number }>();
    expect(await landed()).toBeNull();

    const today = beijingDay(now);
    const first = await settleDay(env, today, Date.now(), 600, true);
    expect(first).toMatchObject({ phase: "done", inviters_paid: 0, fees_counted: 0 });

    // D1 is back: the shard's movement lands, timed before the run's cut.
    await collectorWriting(SHARD, (handOvers) => env.DB.batch(collectorStatements(env.DB, handOvers)));
    await drainObject(systemStub(env, FEES, SHARD));
    expect((await landed())!.created_at).toBeLessThan(first.window_to!);

    expect(await settleDay(env, today, Date.now(), 600, true)).toMatchObject({ phase: "done", inviters_paid: 0 });
    const tomorrow = addDays(today, 1);
    const next = await settleDay(env, tomorrow, dayEnd(tomorrow) + 8 * 3_600_000);
    expect(next).toMatchObject({ phase: "done", inviters_paid: 1, fees_counted: Number(units("3")) });
    await settleDay(env, tomorrow, dayEnd(tomorrow) + 9 * 3_600_000);
    expect(await objectBalances(inviter.id)).toEqual([[next.paid_to, USDT, units("0.6"), 0n]]);
  });
});
