/**
 * The treasury's opening at the cut-over (worker/domain/ledger/account-objects.ts
 * `openTreasuryShards`, driven locally by POST /api/dev/accounts/treasury and the crash runs in
 * objects mode): D1's treasury balance split over its shard objects, once, what it holds frozen
 * left in D1.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { openTreasuryShards } from "../../worker/domain/ledger/account-objects.ts";
import { SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { seedCurrencies } from "../api/helpers.ts";
import { BTC, USDT } from "./fixtures.ts";

const TREASURY = SYSTEM_USERS.treasury;

/** Each treasury shard's balances as [currency, available, frozen] (zero rows left out). */
async function shards() {
  const out: [number, number, bigint, bigint][] = [];
  for (let k = 0; k < SYSTEM_SHARDS; k++)
    for (const b of await systemStub(env, TREASURY, k).systemBalances(TREASURY, k)) if (b.available !== 0n || b.frozen !== 0n) out.push([k, b.currencyId, b.available, b.frozen]);
  return out;
}

beforeAll(async () => {
  await seedCurrencies();
  // 1,000,003 units of USDT available (700 of them frozen for a D1 product), 5 units of BTC.
  await env.DB.prepare("INSERT INTO balances (user_id, currency_id, account, available, frozen) VALUES (?1, ?2, 'change', 1000003, 700), (?1, ?3, 'change', 5, 0) ON CONFLICT DO NOTHING")
    .bind(TREASURY, USDT, BTC)
    .run();
});

describe("the treasury's opening over its shards", () => {
  it("splits what D1's treasury has available over the shards exactly, once, and leaves what it holds frozen in D1", async () => {
    const first = await openTreasuryShards(env);
    expect(first.applied).toBe(SYSTEM_SHARDS + 1); // USDT in every shard; 5 units of BTC only in shard 0 (5 / 8 = 0 each, the rest to 0)
    const opened = await shards();
    const total = (currency: number) => opened.filter(([, c]) => c === currency).reduce((a, [, , v]) => a + v, 0n);
    expect(total(USDT)).toBe(1_000_003n);
    expect(total(BTC)).toBe(5n);
    expect(opened.filter(([, c]) => c === USDT).map(([, , v]) => v)).toEqual([125_003n, ...Array(SYSTEM_SHARDS - 1).fill(125_000n)]);
    expect(opened.every(([, , , frozen]) => frozen === 0n)).toBe(true);
    // Run again (a driver restarted): nothing applied twice.
    const again = await openTreasuryShards(env);
    expect(again).toMatchObject({ applied: 0, seen: SYSTEM_SHARDS + 1 });
    expect(await shards()).toEqual(opened);
  });
});
