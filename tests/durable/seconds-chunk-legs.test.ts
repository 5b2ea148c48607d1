/**
 * A settled chunk of seconds contracts in objects mode (durable/pair/desks/seconds-objects.ts): one
 * leg per account, each contract's own hold spent and released in it, and one credit per account
 * kind and currency with the chunk's sum, so a fee shard applies one op per chunk. A contract whose
 * open fee went at its acceptance (`secondsOpenLegs`) settles without it; one accepted before keeps
 * the old shape (the settle spends the fee and the fee shard gets it).
 */
import { describe, expect, it } from "vitest";
import { netByCurrency } from "../../durable/money/core.ts";
import { coverShard, secondsOpenLegs, settleChunkLegs, type SettledMoney } from "../../durable/pair/desks/seconds-objects.ts";

const contract = (orderId: number, userId: number, result: bigint, feePaid = false): SettledMoney => ({ orderId, userId, currencyId: 3, stake: 100n, fee: 2n, hold: 80n, result, feePaid });

describe("a settled chunk's legs (contracts accepted before the open fee moved at the acceptance)", () => {
  // Ids 8 and 16 share cover and fee shard 0; id 9 is on shard 1.
  const chunk = [contract(8, 1, 80n), contract(16, 1, -100n), contract(9, 2, -100n)];
  const legs = settleChunkLegs("seconds:1:100:8", chunk);
  const to = (name: string) => legs.find((l) => l.to === name)!;

  it("gives each account one leg keyed by the chunk (a user's naming their first contract in it), and the chunk balances per currency", () => {
    expect(coverShard(8)).toBe(coverShard(16));
    expect(legs.map((l) => l.key).sort()).toEqual(
      ["user:1:8", "user:2:9", "system:-3:0", "system:-3:1", "system:0:0", "system:0:1"].map((a) => `seconds:1:100:8:${a}`).sort(),
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

describe("the open fee at the acceptance, and a chunk of contracts that paid it", () => {
  it("takes the fee from the user's hold to the fee shard of the contract's number, balanced, none without a fee", () => {
    const legs = secondsOpenLegs({ orderId: 9, userId: 2, currencyId: 3, fee: 2n });
    expect(legs).toEqual([
      { key: "seconds:9:open:user:2", to: "user:2", ops: [{ t: "spend", hold: "seconds:9", cur: "3", amt: 2 }] },
      { key: "seconds:9:open:system:0:1", to: "system:0:1", ops: [{ t: "credit", kind: "change", cur: "3", amt: 2 }] },
    ]);
    expect([...netByCurrency(legs.flatMap((l) => l.ops))].filter(([, d]) => d !== 0)).toEqual([]);
    expect(secondsOpenLegs({ orderId: 9, userId: 2, currencyId: 3, fee: 0n })).toEqual([]);
  });

  it("settles without the fee: the stake's hold alone, no fee shard leg, balanced", () => {
    const legs = settleChunkLegs("seconds:1:100:8", [contract(8, 1, 80n, true), contract(16, 1, -100n, true), contract(9, 2, -100n)]);
    const to = (name: string) => legs.find((l) => l.to === name);
    expect(to("user:1")!.ops).toEqual([
      { t: "release", hold: "seconds:8", cur: "3", amt: 100 },
      { t: "spend", hold: "seconds:16", cur: "3", amt: 100 },
      { t: "credit", kind: "micro", cur: "3", amt: 80 },
    ]);
    // Contract 9 was accepted before: its settle still takes its fee, to its fee shard; 8 and 16 paid theirs at the acceptance.
    expect(to("user:2")!.ops).toEqual([{ t: "spend", hold: "seconds:9", cur: "3", amt: 102 }]);
    expect(to("system:0:0")).toBeUndefined();
    expect(to("system:0:1")!.ops).toEqual([{ t: "credit", kind: "change", cur: "3", amt: 2 }]);
    expect([...netByCurrency(legs.flatMap((l) => l.ops))].filter(([, d]) => d !== 0)).toEqual([]);
  });
});
