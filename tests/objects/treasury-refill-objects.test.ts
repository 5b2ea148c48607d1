/**
 * The treasury's shards lend to each other (worker/lib/treasury-refill.ts, objects mode): a record
 * whose house side falls on a shard short of it is paid when the treasury as a whole has the money,
 * as D1's one treasury row would pay it; only a treasury short as a whole refuses. Nothing leaves the
 * treasury on the way, and the move shows in the shards' drained movements.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { shardOf, SYSTEM_SHARDS, SYSTEM_USERS, systemAddress, systemStub } from "../../worker/lib/accounts.ts";
import { reserveOnTreasury } from "../../worker/lib/treasury-refill.ts";
import { api } from "../api/helpers.ts";
import { seedWalletCurrencies, setPrice, u8 } from "../api/wallet-fixtures.ts";
import { BTC, USDT, drainObject, objectBalances, objectTrader } from "./fixtures.ts";

const TREASURY = SYSTEM_USERS.treasury;
const shards = [...Array(SYSTEM_SHARDS).keys()];

/** Every treasury shard's [available, frozen] of one currency in the spot (house) account. */
async function treasury(currencyId: number): Promise<[bigint, bigint][]> {
  return Promise.all(
    shards.map(async (k) => {
      const b = (await systemStub(env, TREASURY, k).systemBalances(TREASURY, k)).find((x) => x.currencyId === currencyId && x.account === "change");
      return [b?.available ?? 0n, b?.frozen ?? 0n] as [bigint, bigint];
    }),
  );
}
const total = (rows: [bigint, bigint][]) => rows.reduce((s, [a, f]) => s + a + f, 0n);

/** Legs of treasury moves not yet answered by their shards. */
const movesOwed = async () => (await env.DB.prepare("SELECT count(*) AS n FROM record_legs WHERE record LIKE 'treasury_move:%'").first<{ n: number }>())!.n;

let funded = 0;
async function fund(k: number, currencyId: number, units: bigint) {
  funded += 1;
  const to = systemAddress(TREASURY, k);
  expect(await systemStub(env, TREASURY, k).systemReceive(TREASURY, k, [{ key: `test:refill:${funded}`, to, ops: [{ t: "credit", kind: "change", cur: String(currencyId), amt: Number(units) }] }])).toEqual(["applied"]);
}

beforeAll(async () => {
  await seedWalletCurrencies();
  await setPrice(BTC, "30000");
});

describe("treasury shards short of a payout", () => {
  it("pays a conversion from the treasury as a whole when its own shard is short, moving only what it lacked", async () => {
    const user = await objectTrader("0", "1");
    const k = shardOf(user.id);
    // The user's shard has 100 USDT (and whatever earlier tests left); a sibling holds far more.
    const rich = (k + 3) % SYSTEM_SHARDS;
    await fund(k, USDT, u8("100"));
    await fund(rich, USDT, u8("50000"));
    const before = await treasury(USDT);
    expect(before[k]![0]).toBeLessThan(u8("3000"));

    const r = await api("/user/shandui_sub", { token: user.token, body: { from_currency: BTC, to_currency: USDT, money: "0.1" } });
    expect(r.body).toMatchObject({ type: "ok", message: { money: "0.10000000", money2: "2994.00000000" } });
    expect(await objectBalances(user.id)).toEqual([
      ["change", BTC, u8("0.9"), 0n],
      ["change", USDT, u8("2994"), 0n],
    ]);
    // The house paid 3,000 USDT in all; the user's shard was lent exactly what it lacked, by the richest sibling, and spent it.
    const after = await treasury(USDT);
    expect(total(after)).toBe(total(before) - u8("3000"));
    expect(after[k]).toEqual([0n, 0n]);
    expect(after[rich]![0]).toBe(before[rich]![0] - (u8("3000") - before[k]![0]));
    expect(await movesOwed()).toBe(0);
    // The move is in both shards' drained movements, one row each, equal and opposite.
    await drainObject(systemStub(env, TREASURY, k));
    await drainObject(systemStub(env, TREASURY, rich));
    const moves = await env.DB.prepare(
      "SELECT shard, CAST(d_available + d_frozen AS TEXT) AS d FROM system_movements WHERE user_id = ? AND ref LIKE 'treasury_move:%' AND currency_id = ? ORDER BY shard",
    )
      .bind(TREASURY, USDT)
      .all<{ shard: number; d: string }>();
    const net = new Map<number, bigint>();
    for (const m of moves.results) net.set(m.shard, (net.get(m.shard) ?? 0n) + BigInt(m.d));
    expect(net.get(k)).toBe(u8("3000") - before[k]![0]);
    expect(net.get(rich)).toBe(-(u8("3000") - before[k]![0]));
  });

  it("still refuses what the treasury as a whole cannot pay, and moves nothing", async () => {
    const XRP = 5;
    await fund(1, XRP, 7_000_000n);
    await fund(6, XRP, 2_000_000n);
    const before = await treasury(XRP);
    const answer = await reserveOnTreasury(env, 0, { forKind: "test_refill", forId: "short", account: "change", currencyId: XRP, amount: total(before) + 1n });
    expect(answer.result).toBe("insufficient");
    expect(await treasury(XRP)).toEqual(before);
    expect(await movesOwed()).toBe(0);
  });

  it("gathers from several siblings when no single one has enough, and the hold then stands", async () => {
    const DOGE = 11;
    for (const k of [2, 4, 5]) await fund(k, DOGE, 400n);
    const before = await treasury(DOGE);
    const want = before[7]![0] + 1_000n;
    const answer = await reserveOnTreasury(env, 7, { forKind: "test_refill", forId: "gather", account: "change", currencyId: DOGE, amount: want });
    expect(answer.result).toBe("reserved");
    const after = await treasury(DOGE);
    expect(total(after)).toBe(total(before));
    expect(after[7]).toEqual([0n, want]);
    expect(await movesOwed()).toBe(0);
  });
});
