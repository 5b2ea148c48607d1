/**
 * The read model's collector objects (durable/account/collector.ts, session 15): in objects mode an
 * account object's alarm hands its movements to a collector (`drain:{k}`), which writes many
 * accounts' rows in one D1 batch. What a user would notice: every movement shows in the read model
 * and in their statement exactly once, also when a collector dies in the middle of a batch (the
 * accounts hand over again; D1 keeps one copy) and while D1 fails (the collector backs off, the
 * accounts keep their rows, nothing is lost).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { collectorCount, collectorName, collectorStatements, DrainCollector, type HandOver } from "../../durable/account/collector.ts";
import { accountStub } from "../../worker/lib/accounts.ts";
import { api, seedCurrencies, units } from "../api/helpers.ts";
import { USDT, objectBalances, objectTrader, readModel } from "./fixtures.ts";

const transfer = (token: string, number: string, from_field: string, to_field: string) => api("/wallet/change", { token, body: { currency_id: USDT, number, from_field, to_field } });

/** The collector a user's object hands over to (the test Worker's DRAIN_COLLECTORS). */
const collectorOf = (userId: number) => env.USER.get(env.USER.idFromName(collectorName({ kind: "user", userId }, collectorCount(env))));

/** The user's transfer movements in the read model (a transfer moves two accounts: two refs), with their copies. */
async function transferRows(userId: number) {
  const { results } = await env.DB.prepare(
    "SELECT ref, count(*) AS copies FROM account_movements WHERE user_id = ? AND ref LIKE 'transfer:%' GROUP BY ref ORDER BY ref",
  )
    .bind(userId)
    .all<{ ref: string; copies: number }>();
  return results;
}

/** The user's statement lines of transfers (the screen they read): their keys, in the order shown. */
async function statementTransfers(token: string) {
  const r = await api(`/wallet/statement?currency_id=${USDT}&limit=100`, { token });
  expect(r.status).toBe(200);
  return (r.body.message.lines as { kind: string; amount: string }[]).filter((l) => l.kind === "transfer");
}

/** Replaces the collector's in-memory gatherer with one whose D1 write is `write` (the object's real one otherwise). */
async function collectorWriting(userId: number, write: (handOvers: HandOver[], state: DurableObjectState) => Promise<unknown>) {
  await runInDurableObject(collectorOf(userId), (instance, state) => {
    (instance as unknown as { collector: DrainCollector }).collector = new DrainCollector((handOvers) => write(handOvers, state));
  });
}

/** Puts back a collector that writes D1 as the object does. */
async function restoreCollector(userId: number) {
  await collectorWriting(userId, (handOvers) => env.DB.batch(collectorStatements(env.DB, handOvers)));
}

beforeAll(async () => {
  await seedCurrencies();
});

let touched: number[] = [];
afterEach(async () => {
  for (const id of touched) await restoreCollector(id);
  touched = [];
});

describe("read model through collector objects", () => {
  it("brings several users' movements into the read model in shared D1 batches, each movement once", async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => objectTrader("100", "0")));
    const before = (await collectorOf(users[0]!.id).collectorStats())?.batches ?? 0;
    // Each user moves money; nobody drains by hand: the objects' alarms hand over to the collector.
    await Promise.all(users.map(async (u) => {
      expect((await transfer(u.token, "10", "change", "micro")).body.type).toBe("ok");
      expect((await transfer(u.token, "3", "micro", "change")).body.type).toBe("ok");
    }));
    for (const u of users) {
      await expect.poll(() => readModel(u.id)).toEqual(await objectBalances(u.id));
      expect((await transferRows(u.id)).map((r) => r.copies)).toEqual([1, 1, 1, 1]);
    }
    // Six accounts' hand-overs arrive within one collector window: fewer D1 batches than accounts.
    const after = (await collectorOf(users[0]!.id).collectorStats())!.batches;
    expect(after - before).toBeGreaterThan(0);
    expect(after - before).toBeLessThan(users.length);
  });

  it("shows each movement once after the collector dies mid-batch, once D1 has committed it (the account hands over again)", async () => {
    const u = await objectTrader("100", "0");
    touched.push(u.id);
    let crashes = 0;
    // The collector writes the batch, then dies before it can answer: the account never hears that D1 has the rows.
    await collectorWriting(u.id, async (handOvers, state) => {
      await env.DB.batch(collectorStatements(env.DB, handOvers));
      if (crashes === 0 && handOvers.some((h) => h.source.kind === "user" && h.source.userId === u.id)) {
        crashes += 1;
        state.abort("collector crash (test)");
      }
    });
    expect((await transfer(u.token, "10", "change", "micro")).body.type).toBe("ok");
    expect((await transfer(u.token, "4", "micro", "lever")).body.type).toBe("ok");
    await expect.poll(() => crashes).toBe(1);
    // The rows are in D1 already, yet the object still holds them as not handed over (its bookmark did not move).
    await expect.poll(async () => (await transferRows(u.id)).length).toBe(4);
    // A fresh collector (the crashed one came back empty) takes the account's retry: D1 keeps one copy of each.
    await expect.poll(async () => (await accountStub(env, u.id).accountHandOver()).more).toBe(false);
    expect((await transferRows(u.id)).map((r) => r.copies)).toEqual([1, 1, 1, 1]);
    expect(await readModel(u.id)).toEqual(await objectBalances(u.id));
    expect(await readModel(u.id)).toEqual([
      ["change", USDT, units("90"), 0n],
      ["lever", USDT, units("4"), 0n],
      ["micro", USDT, units("6"), 0n],
    ]);
    // The statement the user reads: each transfer's two lines once (out of one account, into the other).
    expect((await statementTransfers(u.token)).map((l) => l.amount).sort()).toEqual(["-10.00000000", "-4.00000000", "10.00000000", "4.00000000"]);
  });

  it("keeps every movement while D1 fails, backs off, and writes each once when D1 answers again", async () => {
    const u = await objectTrader("100", "0");
    touched.push(u.id);
    let d1Down = true;
    let refusedCalls = 0;
    await collectorWriting(u.id, async (handOvers) => {
      if (d1Down) {
        refusedCalls += 1;
        throw new Error("D1_ERROR: the database is unreachable (test)");
      }
      return env.DB.batch(collectorStatements(env.DB, handOvers));
    });
    expect((await transfer(u.token, "7", "change", "micro")).body.type).toBe("ok");
    // The account's alarm hands over, the batch fails, the collector backs off and the account asks again later.
    await expect.poll(() => refusedCalls).toBeGreaterThanOrEqual(2);
    const stats = (await collectorOf(u.id).collectorStats())!;
    expect(stats.failures).toBeGreaterThanOrEqual(2);
    // Meanwhile nothing reached D1 through the collector, the money is exact in the object and the user keeps trading.
    expect(await transferRows(u.id)).toEqual([]);
    expect((await transfer(u.token, "2", "micro", "change")).body.type).toBe("ok");
    expect(await objectBalances(u.id)).toEqual([
      ["change", USDT, units("95"), 0n],
      ["micro", USDT, units("5"), 0n],
    ]);
    // D1 answers again: the next hand-over after the back-off writes both transfers, once each.
    d1Down = false;
    await expect.poll(async () => (await transferRows(u.id)).length).toBe(4);
    expect((await transferRows(u.id)).map((r) => r.copies)).toEqual([1, 1, 1, 1]);
    await expect.poll(() => readModel(u.id)).toEqual(await objectBalances(u.id));
    expect((await statementTransfers(u.token)).map((l) => l.amount).sort()).toEqual(["-2.00000000", "-7.00000000", "2.00000000", "7.00000000"]);
  });
});
