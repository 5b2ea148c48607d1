/**
 * A pair's commit of many fills delivered as one leg per account (durable/pair/legs.ts
 * `perReceiver`): the same money, fewer legs.
 */
import { describe, expect, it } from "vitest";
import type { Leg } from "../../durable/money/index.ts";
import { perReceiver } from "../../durable/pair/legs.ts";

const fill = (trade: number, buyer: string, seller: string): Leg[] => [
  { key: `trade:1:${trade}:buyer`, to: buyer, ops: [{ t: "spend", hold: `spot_order:${trade}`, cur: "2", amt: 500 }, { t: "credit", kind: "change", cur: "1", amt: 9 }] },
  { key: `trade:1:${trade}:seller`, to: seller, ops: [{ t: "spend", hold: "spot_order:99", cur: "1", amt: 10 }, { t: "credit", kind: "change", cur: "2", amt: 499 }] },
  { key: `trade:1:${trade}:fee`, to: "system:0:1", ops: [{ t: "credit", kind: "change", cur: "1", amt: 1 }, { t: "credit", kind: "change", cur: "2", amt: 1 }] },
];
const done = (order: number, to: string): Leg => ({ key: `spot_order:${order}:done`, to, ops: [{ t: "release", hold: `spot_order:${order}`, cur: "2", amt: 3 }] });

describe("a commit's fill legs", () => {
  it("become one leg per account, in the place of its first fill, carrying every fill's ops", () => {
    const legs = [...fill(1, "user:7", "user:8"), done(1, "user:7"), ...fill(2, "user:7", "user:8"), done(2, "user:7")];
    const out = perReceiver(legs, "1:j40");
    expect(out.map((l) => [l.key, l.to])).toEqual([
      ["trade:1:j40:user:7", "user:7"],
      ["trade:1:j40:user:8", "user:8"],
      ["trade:1:j40:system:0:1", "system:0:1"],
      ["spot_order:1:done", "user:7"],
      ["spot_order:2:done", "user:7"],
    ]);
    // Both fills' ops, in order: the receiver writes them as one movement (one row per account and currency).
    expect(out[0]!.ops.map((op) => [op.t, op.cur, op.amt])).toEqual([
      ["spend", "2", 500],
      ["credit", "1", 9],
      ["spend", "2", 500],
      ["credit", "1", 9],
    ]);
    const total = (ls: Leg[]) => ls.flatMap((l) => l.ops.map((op) => `${l.to} ${op.t} ${op.cur} ${op.amt}`)).sort();
    expect(total(out)).toEqual(total(legs));
  });

  it("leaves a commit of one fill (one order a request) as it was", () => {
    const legs = [...fill(1, "user:7", "user:8"), done(1, "user:7")];
    expect(perReceiver(legs, "1:j41")).toEqual(legs);
  });
});
