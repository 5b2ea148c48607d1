/**
 * The reconciler's frozen-funds check with the balances in the account objects (found by the crash
 * run in objects mode, bench/crash-products.mjs --accounts objects): a running seconds contract
 * holds its stake and fee in the user's object and its cover in a treasury shard, an open lever
 * position its margin and open fee in the user's object and its cover in a treasury shard. The
 * reconciler counted D1's path (stake; margin − overnight; the treasury's D1 balance) and reported
 * every open contract and position as a difference.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { reconcile } from "../../worker/domain/ledger/reconcile.ts";
import { holdSourcesOf } from "../../worker/domain/products.ts";
import { accountReads } from "../../worker/domain/wallet/object-reads.ts";
import { accountStub, shardOf, SYSTEM_SHARDS, SYSTEM_USERS, systemAddress, systemStub } from "../../worker/lib/accounts.ts";
import { makeUser, seedSpotPair, units } from "../api/helpers.ts";
import { PAIR, USDT } from "./fixtures.ts";

const TREASURY = SYSTEM_USERS.treasury;
const CONTRACT = 7_000_001;
const POSITION = 7_000_002;
/** An amount as D1 binds it (an integer number of units). */
const d1 = (v: string) => Number(units(v));

beforeAll(async () => {
  await seedSpotPair();
  for (let k = 0; k < SYSTEM_SHARDS; k++) {
    const to = systemAddress(TREASURY, k);
    await systemStub(env, TREASURY, k).systemReceive(TREASURY, k, [{ key: `test:fund:${k}`, to, ops: [{ t: "credit", kind: "change", cur: String(USDT), amt: Number(units("1000")) }] }]);
  }
});

/** Holds `amount` as `hold` in the user's object and `cover` in the treasury shard of `id`, as the objects paths do. */
async function holdBoth(userId: number, account: string, forKind: string, id: number, amount: bigint, cover: bigint) {
  const shard = shardOf(id);
  const request = { forKind, forId: String(id), currencyId: USDT, owner: `pair:${PAIR}` };
  expect((await systemStub(env, TREASURY, shard).systemReserve(TREASURY, shard, { ...request, account: "change", amount: cover })).result).toBe("reserved");
  expect((await accountStub(env, userId).accountReserve(userId, { ...request, account, amount })).result).toBe("reserved");
}

describe("the reconciler with the balances in the account objects", () => {
  it("finds a running contract's and an open position's holds (stake + fee, margin + open fee, the covers in the treasury shards) explained", async () => {
    const u = await makeUser({ verified: 2 });
    await accountStub(env, u.id).accountImport(u.id, [
      { account: "micro", currencyId: USDT, available: units("100"), frozen: 0n },
      { account: "lever", currencyId: USDT, available: units("100"), frozen: 0n },
    ]);
    // A contract of 10 USDT with a 0.2 fee and an 8 USDT cover, trading (status 1).
    await holdBoth(u.id, "micro", "seconds", CONTRACT, units("10.2"), units("8"));
    await env.DB.prepare(
      "INSERT INTO micro_orders (id, user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps, status, created_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?, 30, 8000, 1, ?)",
    )
      .bind(CONTRACT, u.id, PAIR, USDT, d1("10"), d1("0.2"), d1("8"), Date.now())
      .run();
    // A position with 1.01 margin and a 0.00505 open fee, one overnight fee of 0.001 taken from the hold, a 10.1 cover.
    await holdBoth(u.id, "lever", "lever_margin", POSITION, units("1.01505"), units("10.1"));
    const night = await accountStub(env, u.id).accountApply(u.id, [{ key: `lever:${POSITION}:fee:1`, ops: [{ t: "spend", hold: `lever_margin:${POSITION}`, amount: units("0.001") }] }]);
    expect(night[0]!.result).toBe("applied");
    await env.DB.prepare(
      `INSERT INTO lever_positions (id, user_id, pair_id, currency_id, type, lots, multiple, share_units, quote_price, margin, fee, hold, fee_bps, overnight_bps, maintenance_bps, overnight, status, created_at)
       VALUES (?, ?, ?, ?, 1, 10, 10, 1000000, 10100, ?, ?, ?, 5, 1, 50, ?, 2, ?)`,
    )
      .bind(POSITION, u.id, PAIR, USDT, d1("1.01"), d1("0.00505"), d1("10.1"), d1("0.001"), Date.now())
      .run();

    const result = await reconcile(env.DB, holdSourcesOf(), accountReads(env));
    expect(result.differences.filter((d) => d.check === "frozen_vs_holds")).toEqual([]);

    // A cover left in a shard with no record is a difference (the treasury's holds are checked too).
    const orphan = 7_000_003;
    expect((await systemStub(env, TREASURY, shardOf(orphan)).systemReserve(TREASURY, shardOf(orphan), { forKind: "seconds", forId: String(orphan), account: "change", currencyId: USDT, amount: units("1") })).result).toBe("reserved");
    const after = await reconcile(env.DB, holdSourcesOf(), accountReads(env));
    expect(after.differences.filter((d) => d.check === "frozen_vs_holds")).toEqual([
      { check: "frozen_vs_holds", user_id: TREASURY, currency_id: USDT, account: "change", frozen: String(units("8") + units("10.1") + units("1")), holds: String(units("8") + units("10.1")) },
    ]);
  });
});
