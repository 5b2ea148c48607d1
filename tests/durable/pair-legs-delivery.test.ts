/**
 * The pair's delivery of legs (durable/pair/legs.ts, `ACCOUNTS=objects`): each receiver has at most
 * one call out, and a receiver's next legs leave as soon as its own call is answered, never waiting
 * for a slow receiver's call (a hot user's object applying thousands of contracts).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { migrateMoney, type Leg, type LegResult } from "../../durable/money/index.ts";
import { PairLegs } from "../../durable/pair/legs.ts";
import { PairStorage } from "../../durable/pair/storage.ts";

/** A leg that moves nothing on balance (a release of the receiver's hold): the event balances. */
const leg = (key: string, to: string): Leg => ({ key, to, ops: [{ t: "release", hold: `h:${key}`, cur: "USDT", amt: 1 }] });

describe("the pair's delivery of legs", () => {
  it("sends a fast receiver its next legs while a slow receiver's call is still out, and the slow one's once it answers", async () => {
    const pair = env.PAIR.get(env.PAIR.idFromName(`pair-legs-delivery:${Date.now()}`));
    await runInDurableObject(pair, async (_obj, state) => {
      const calls: { to: string; keys: string[] }[] = [];
      let answerSlow: (() => void) | null = null;
      const send = (to: string, legs: Leg[]): Promise<LegResult[]> => {
        calls.push({ to, keys: legs.map((l) => l.key) });
        const applied = legs.map((): LegResult => "applied");
        if (to !== "user:slow") return Promise.resolve(applied);
        return new Promise((resolve) => {
          answerSlow = () => resolve(applied);
        });
      };
      const legs = new PairLegs(new PairStorage(state.storage), "pair:test", send);
      legs.migrate(migrateMoney);
      const commit = (n: number) => state.storage.transactionSync(() => legs.commitInside(`chunk:${n}`, [leg(`chunk:${n}:slow`, "user:slow"), leg(`chunk:${n}:fast`, "user:fast")]));
      commit(1);
      const run = legs.deliver();
      await expect.poll(() => calls.filter((c) => c.to === "user:fast").length).toBe(1);
      // A second chunk while the slow receiver still works on the first.
      commit(2);
      void legs.deliver();
      await expect.poll(() => calls.filter((c) => c.to === "user:fast").map((c) => c.keys)).toEqual([["chunk:1:fast"], ["chunk:2:fast"]]);
      expect(calls.filter((c) => c.to === "user:slow").map((c) => c.keys)).toEqual([["chunk:1:slow"]]);
      // The slow receiver answers: its waiting leg goes in the next call, and nothing is left.
      answerSlow!();
      await expect.poll(() => calls.filter((c) => c.to === "user:slow").map((c) => c.keys)).toEqual([["chunk:1:slow"], ["chunk:2:slow"]]);
      answerSlow!();
      expect(await run).toBeNull();
      expect(legs.pending()).toBe(false);
    });
  });
});
