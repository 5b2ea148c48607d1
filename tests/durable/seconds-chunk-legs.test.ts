/**
 * A settled chunk of seconds contracts in objects mode (durable/pair/desks/seconds-objects.ts): one
 * leg per account, each contract's own hold spent and released in it, and one credit per account
 * kind and currency with the chunk's sum, so a fee shard applies one op per chunk.
 */
import { describe, expect, it } from "vitest";
import { netByCurrency } from "../../durable/money/core.ts";
import { coverShard, settleChunkLegs, type SettledMoney } from "../../durable/pair/desks/seconds-objects.ts";

const contract = (orderId: number, userId: number, result: bigint): SettledMoney => ({ orderId, userId, currencyId: 3, stake: 100n, fee: 2n, hold: 80n, result });

describe("a settled chunk's legs", () => {
  // Ids 8 and 16 share cover and fee shard 0; id 9 is on shard 1.
  const chunk = [contract(8, 1, 80n), contract(16, 1, -100n), contract(9, 2, -100n)];
  const legs = settleChunkLegs("seconds:1:100:8", chunk);
  const to = (name: string) => legs.find((l) => l.to === name)!;

  it("gives each account one leg keyed by the chunk, and the chunk balances per currency", () => {
    expect(coverShard(8)).toBe(coverShard(16));
    expect(legs.map((l) => l.key).sort()).toEqual(
      ["user:1", "user:2", "system:-3:0", "system:-3:1", "system:0:0", "system:0:1"].map((a) => `seconds:1:100:8:${a}`).sort(),
    );
    expect([...netByCurrency(legs.flatMap((l) => l.ops))].filter(([, d]) => d !== 0)).toEqual([]);
  });

  it("spends and releases each contract's own hold and sums the credits per account", () => {
    expect(to("user:1").ops).toEqual([
      { t: "spend", hold: "seconds:8", cur: "3", amt: 2 },
      { t: "release", hold: "seconds:8", cur: "3", amt: 100 },
      { t: "spend", hold: "seconds:16", cur: "3", amt: 102 },
      { t: "credit", kind: "micro", cur: "3", amt: 80 },
    ]);
    // Shard 0's treasury paid the win of 8 from its cover, took back the rest of both covers and the lost stake of 16.
    expect(to("system:-3:0").ops).toEqual([
      { t: "spend", hold: "seconds:8", cur: "3", amt: 80 },
      { t: "release", hold: "seconds:16", cur: "3", amt: 80 },
      { t: "credit", kind: "change", cur: "3", amt: 100 },
    ]);
    // Two contracts' fees on fee shard 0: one credit.
    expect(to("system:0:0").ops).toEqual([{ t: "credit", kind: "change", cur: "3", amt: 4 }]);
    expect(to("system:0:1").ops).toEqual([{ t: "credit", kind: "change", cur: "3", amt: 2 }]);
  });
});
