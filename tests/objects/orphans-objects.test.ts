/**
 * Orphaned holds of seconds contracts and leveraged positions with balances in the account objects
 * (ACCOUNTS=objects, issue #28): a Worker that dies between the holds and the pair's answer leaves
 * the stake or margin held in the user's object and the cover in a treasury shard. Each object's
 * sweep asks the pair about holds older than the grace: a record the pair never had is tombstoned
 * there (never accepted after) and the hold's rest goes back, once; a record it knows keeps its hold.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { coverShard } from "../../durable/pair/desks/seconds-objects.ts";
import { leverShard } from "../../durable/pair/desks/lever-objects.ts";
import { seedSpotPair, units } from "../api/helpers.ts";
import { submit } from "../api/seconds-fixtures.ts";
import { PAIR, USDT, fundTreasuryShards, objectBalances, objectUserWith, pairStub, twoSidedObjectBook } from "./fixtures.ts";

const TREASURY = SYSTEM_USERS.treasury;
const owner = `pair:${PAIR}`;

/** A shard's USDT in the house's account, [available, frozen]. */
async function house(shard: number): Promise<[bigint, bigint]> {
  const b = (await systemStub(env, TREASURY, shard).systemBalances(TREASURY, shard)).find((x) => x.currencyId === USDT && x.account === "change");
  return [b?.available ?? 0n, b?.frozen ?? 0n];
}


/** The holds a Worker makes for a contract or position `id` before it asks the pair (and then died). */
async function holdsOnly(userId: number, forKind: "seconds" | "lever_margin", id: number, account: "micro" | "lever", stake: bigint, cover: bigint, shard: number) {
  const request = { forKind, forId: String(id), currencyId: USDT, owner };
  expect((await systemStub(env, TREASURY, shard).systemReserve(TREASURY, shard, { ...request, account: "change", amount: cover })).result).toBe("reserved");
  expect((await accountStub(env, userId).accountReserve(userId, { ...request, account, amount: stake })).result).toBe("reserved");
}

beforeAll(async () => {
  await seedSpotPair();
  await fundTreasuryShards(units("1000"));
  await twoSidedObjectBook();
});

describe("orphaned seconds and lever holds on the account objects", () => {
  it("gives back a contract's stake and cover when the pair never heard of it, once, keeps an accepted contract's, and never accepts the lost one after", async () => {
    const u = await objectUserWith("micro");
    const lost = (Date.now() - Date.UTC(2026, 0, 1)) * 4096 + 7;
    const shard = coverShard(lost);
    const before = await house(shard);
    await holdsOnly(u.id, "seconds", lost, "micro", units("10.2"), units("8"), shard);
    const accepted = (await submit(u.token, { number: "10" })).body.message;
    expect(accepted.status).toBe(1);
    // The lost one's stake and fee held; the accepted one's stake (its fee went at the open).
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("79.6"), units("20.2")]]);

    expect(await accountStub(env, u.id).accountSweep(0)).toMatchObject({ known: 1, released: 1 });
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("89.8"), units("10")]]);
    expect(await accountStub(env, u.id).accountHold(u.id, `seconds:${accepted.id}`)).toMatchObject({ open: true });
    // The treasury shard sweeps its own holds: the lost contract's cover goes back.
    expect((await systemStub(env, TREASURY, shard).accountSweep(0)).released).toBe(1);
    expect(await systemStub(env, TREASURY, shard).systemHold(TREASURY, shard, `seconds:${lost}`)).toMatchObject({ released: units("8"), open: false });
    expect((await house(shard))[0]).toBe(before[0] - (shard === coverShard(accepted.id) ? units("8") : 0n));
    // Asked once each: a second sweep asks nobody and releases nothing.
    expect(await accountStub(env, u.id).accountSweep(0)).toMatchObject({ known: 0, released: 0 });
    expect(await systemStub(env, TREASURY, shard).accountSweep(0)).toMatchObject({ known: 0, released: 0 });
    // The Worker comes back late: the pair refuses the tombstoned contract.
    const late = await pairStub().acceptSeconds({
      pairId: PAIR,
      orderId: lost,
      userId: u.id,
      currencyId: USDT,
      currencyName: "USDT",
      currencyScale: 8,
      type: 1,
      stake: String(units("10")),
      fee: String(units("0.2")),
      hold: String(units("8")),
      ratioBps: 8000,
      seconds: 30,
      pairExposure: String(units("100000")),
      userExposure: String(units("100000")),
      objects: { clientOid: null, createdAt: Date.now() },
    });
    expect(late).toEqual({ ok: false, code: "tombstoned" });
  });

  it("gives back a position's margin and cover when the pair never heard of it, once", async () => {
    const u = await objectUserWith("lever");
    const lost = (Date.now() - Date.UTC(2026, 0, 1)) * 4096 + 9;
    const shard = leverShard(lost);
    const before = await house(shard);
    await holdsOnly(u.id, "lever_margin", lost, "lever", units("20"), units("30"), shard);
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, units("80"), units("20")]]);
    expect(await accountStub(env, u.id).accountSweep(0)).toMatchObject({ known: 0, released: 1 });
    expect(await systemStub(env, TREASURY, shard).accountSweep(0)).toMatchObject({ released: 1 });
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, units("100"), 0n]]);
    expect(await house(shard)).toEqual(before);
    expect(await pairStub().leverVerdict(PAIR, lost)).toEqual({ verdict: "tombstoned" });
    expect(await accountStub(env, u.id).accountSweep(0)).toMatchObject({ known: 0, released: 0 });
  });
});
