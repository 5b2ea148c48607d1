/**
 * What every product whose record lives in D1 relies on in objects mode: the legs a record's
 * transition owes are written in its own batch and reach their object once however often they
 * are sent (worker/lib/record-legs.ts, the every-minute job), and a hold's record and the orphan
 * sweep cannot both claim the hold (durable/account/claims.ts).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { RECORD_OWNER, claimOrphan, claimRecord } from "../../durable/account/claims.ts";
import type { Leg } from "../../durable/money/index.ts";
import { recordLegsJob } from "../../worker/jobs/record-legs.ts";
import { accountStub, userAddress } from "../../worker/lib/accounts.ts";
import { deliverRecordLegs, pendingRecordLegs, recordLegsStatements } from "../../worker/lib/record-legs.ts";
import { seedCurrencies, units } from "../api/helpers.ts";
import { USDT, objectBalances, objectTrader } from "./fixtures.ts";

beforeAll(async () => {
  await seedCurrencies();
});

const credit = (userId: number, key: string, amount: string): Leg => ({ key, to: userAddress(userId), ops: [{ t: "credit", kind: "change", cur: String(USDT), amt: Number(units(amount)) }] });

describe("legs a D1 record owes the account objects", () => {
  it("are written with the record's own batch, sent again by the job until answered, and move money once", async () => {
    const u = await objectTrader("100", "0");
    const leg = credit(u.id, `test_payout:1:${u.id}`, "5");
    // The record's transition and its leg in one batch; the Worker died before sending it.
    await env.DB.batch([env.DB.prepare("INSERT INTO settings (key, value) VALUES ('test_record', '1')"), ...recordLegsStatements(env.DB, "test_payout:1", [leg], 1_000)]);
    expect(await pendingRecordLegs(env.DB, "test_payout:1")).toEqual([leg.key]);
    expect(await objectBalances(u.id)).toEqual([["change", USDT, units("100"), 0n]]);

    await recordLegsJob.run(env, { cron: "* * * * *", now: Date.now() });
    expect(await pendingRecordLegs(env.DB, "test_payout:1")).toEqual([]);
    expect(await objectBalances(u.id)).toEqual([["change", USDT, units("105"), 0n]]);

    // The same leg again (a sender that had not seen the answer): its key was applied, nothing moves.
    expect(await deliverRecordLegs(env, [leg])).toBe(0);
    await recordLegsJob.run(env, { cron: "* * * * *", now: Date.now() });
    expect(await objectBalances(u.id)).toEqual([["change", USDT, units("105"), 0n]]);
  });

  it("are left for the job, not lost, while they are young: the sender itself delivers them", async () => {
    const u = await objectTrader("100", "0");
    const leg = credit(u.id, `test_payout:2:${u.id}`, "1");
    const now = Date.now();
    await env.DB.batch(recordLegsStatements(env.DB, "test_payout:2", [leg], now));
    // A job run at the same moment leaves a row its sender may still be delivering.
    await recordLegsJob.run(env, { cron: "* * * * *", now });
    expect(await pendingRecordLegs(env.DB, "test_payout:2")).toEqual([leg.key]);
    expect(await deliverRecordLegs(env, [leg])).toBe(0);
    expect(await pendingRecordLegs(env.DB, "test_payout:2")).toEqual([]);
    expect(await objectBalances(u.id)).toEqual([["change", USDT, units("101"), 0n]]);
  });
});

describe("a hold made for a record in D1", () => {
  it("is claimed by its record or by the orphan sweep, never both", async () => {
    // The record came: the sweep learns it and keeps the hold.
    await env.DB.batch([claimRecord(env.DB, "savings:1", 1)]);
    expect(await claimOrphan(env.DB, "savings:1", 2)).toBe("record");

    // The record did not come in time: the sweep claims the hold, and the late record's batch
    // (its row with the claim) is refused whole.
    expect(await claimOrphan(env.DB, "savings:2", 3)).toBe("orphan");
    expect(await claimOrphan(env.DB, "savings:2", 4)).toBe("orphan");
    await expect(env.DB.batch([env.DB.prepare("INSERT INTO settings (key, value) VALUES ('late_record', '2')"), claimRecord(env.DB, "savings:2", 5)])).rejects.toThrow(/UNIQUE|PRIMARY KEY|constraint/i);
    expect(await env.DB.prepare("SELECT 1 FROM settings WHERE key = 'late_record'").first()).toBeNull();
  });
});

describe("the account object's sweep of holds whose record lives in D1", () => {
  it("keeps a hold its record claimed, and releases once a hold whose record never came, after which the record is refused", async () => {
    const u = await objectTrader("100", "0");
    const stub = accountStub(env, u.id);
    const hold = (id: string) => stub.accountReserve(u.id, { forKind: "savings", forId: id, account: "change", currencyId: USDT, amount: units("10"), owner: RECORD_OWNER });
    expect((await hold("7")).result).toBe("reserved");
    expect((await hold("8")).result).toBe("reserved");
    // Savings 7's record came with its claim; savings 8's Worker died between the hold and the record.
    await env.DB.batch([claimRecord(env.DB, "savings:7", Date.now())]);

    expect(await stub.accountSweep(0)).toMatchObject({ known: 1, released: 1 });
    expect(await objectBalances(u.id)).toEqual([["change", USDT, units("90"), units("10")]]);
    expect((await stub.accountHold(u.id, "savings:8"))?.open).toBe(false);
    // A second sweep finds nothing to do; the late record of savings 8 cannot land.
    expect(await stub.accountSweep(0)).toMatchObject({ known: 0, released: 0 });
    await expect(env.DB.batch([claimRecord(env.DB, "savings:8", Date.now())])).rejects.toThrow();
    expect(await objectBalances(u.id)).toEqual([["change", USDT, units("90"), units("10")]]);
  });
});
