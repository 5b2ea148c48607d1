/**
 * The account object (durable/account/, issue #28): the per-user object holding the user's money
 * in its own SQLite through the money core. Exactly-once under duplicate delivery, holds that can
 * never go below zero (the storage's CHECKs), the notification written with its money, and the
 * drain into D1's read model equal to the object however often it runs.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AccountBalance, AccountLeg } from "../../durable/account/types.ts";
import { MoneyCore, doSqlPort, migrateMoney, tradeLegs, type Leg } from "../../durable/money/index.ts";
import { userStub } from "../../worker/lib/notify.ts";
import { makeUser } from "../api/helpers.ts";

const USDT = 3;
const BTC = 1;

/** A user with an object opened with `usdt` units in the spot account (the migration's opening). */
async function funded(usdt: bigint) {
  const u = await makeUser();
  const stub = userStub(env, u.id);
  await stub.accountImport(u.id, [{ account: "change", currencyId: USDT, available: usdt, frozen: 0n }]);
  return { id: u.id, stub };
}

const row = (b: AccountBalance) => [b.account, b.currencyId, b.available, b.frozen];

async function drainAll(stub: ReturnType<typeof userStub>) {
  for (let i = 0; i < 100; i++) if (!(await stub.accountDrain()).more) return;
  throw new Error("drain never ended");
}

async function readModel(userId: number) {
  const { results } = await env.DB.prepare("SELECT account, currency_id, available, frozen FROM account_balances WHERE user_id = ? ORDER BY account, currency_id")
    .bind(userId)
    .all<{ account: string; currency_id: number; available: number; frozen: number }>();
  return results.filter((r) => r.available !== 0 || r.frozen !== 0).map((r) => [r.account, r.currency_id, BigInt(r.available), BigInt(r.frozen)]);
}

describe("account object: money moves exactly once", () => {
  it("applies a fill delivered three times, twice at the same moment, once", async () => {
    const { id, stub } = await funded(1_000n);
    expect((await stub.accountReserve(id, { forKind: "order", forId: "7", account: "change", currencyId: USDT, amount: 300n })).result).toBe("reserved");
    const fill: AccountLeg = { key: "trade:70:buyer", ops: [{ t: "spend", hold: "order:7", amount: 120n }, { t: "credit", account: "change", currencyId: BTC, amount: 12n }] };
    const [a, b] = await Promise.all([stub.accountApply(id, [fill]), stub.accountApply(id, [fill])]);
    expect([a[0]!.result, b[0]!.result].sort()).toEqual(["applied", "seen"]);
    expect((await stub.accountApply(id, [fill]))[0]).toEqual({ key: "trade:70:buyer", result: "seen" });
    expect((await stub.accountBalances(id)).map(row)).toEqual([
      ["change", BTC, 12n, 0n],
      ["change", USDT, 700n, 180n],
    ]);
    expect(await stub.accountHold(id, "order:7")).toMatchObject({ amount: 300n, spent: 120n, released: 0n, open: true });
  });

  it("answers a reservation retried with the same record with the hold it made, and reserves nothing more", async () => {
    const { id, stub } = await funded(500n);
    const ask = { forKind: "contract", forId: "12", account: "change", currencyId: USDT, amount: 200n };
    expect(await stub.accountReserve(id, ask)).toMatchObject({ result: "reserved", hold: { hold: "contract:12", amount: 200n } });
    expect(await stub.accountReserve(id, ask)).toMatchObject({ result: "exists", hold: { hold: "contract:12", amount: 200n } });
    expect((await stub.accountBalances(id)).map(row)).toEqual([["change", USDT, 300n, 200n]]);
  });

  it("reserves a batch in one call, earlier requests first, refusing only those the balance no longer covers", async () => {
    const { id, stub } = await funded(250n);
    const ask = (n: number, amount: bigint) => ({ forKind: "spot_order", forId: String(n), account: "change", currencyId: USDT, amount });
    const answers = await stub.accountReserveMany(id, [ask(1, 100n), ask(2, 100n), ask(3, 100n), ask(4, 50n), ask(1, 100n)]);
    expect(answers.map((a) => a.result)).toEqual(["reserved", "reserved", "insufficient", "reserved", "exists"]);
    expect((await stub.accountBalances(id)).map(row)).toEqual([["change", USDT, 0n, 250n]]);
  });

  it("answers every request of a batch as one after another would: the hold made, what was left to a refused one, a client id's first order", async () => {
    const { id, stub } = await funded(250n);
    const ask = (n: number, amount: bigint, more: { owner?: string; clientId?: string; terms?: string } = {}) => ({ forKind: "spot_order", forId: String(n), account: "change", currencyId: USDT, amount, ...more });
    expect((await stub.accountReserveMany(id, [ask(1, 60n, { clientId: "bot-1", terms: "first" })]))[0]).toMatchObject({ result: "reserved" });
    const answers = await stub.accountReserveMany(id, [
      ask(2, 100n, { owner: "pair:1" }),
      ask(3, 30n),
      // Only 60 left after the three before it.
      ask(4, 95n),
      ask(5, 10n, { clientId: "bot-1", terms: "again" }),
      ask(6, 60n, { owner: "pair:2", clientId: "bot-2" }),
    ]);
    expect(answers[0]).toEqual({ result: "reserved" });
    expect(await stub.accountHold(id, "spot_order:2")).toMatchObject({ amount: 100n, spent: 0n, open: true, owner: "pair:1" });
    expect(answers[1]).toEqual({ result: "reserved" });
    expect(await stub.accountHold(id, "spot_order:3")).toMatchObject({ amount: 30n, open: true });
    expect(answers[2]).toEqual({ result: "insufficient", available: 60n });
    expect(answers[3]).toMatchObject({ result: "replay", terms: "first", hold: { hold: "spot_order:1", amount: 60n } });
    expect(answers[4]).toEqual({ result: "reserved" });
    expect((await stub.accountBalances(id)).map(row)).toEqual([["change", USDT, 0n, 250n]]);
    expect(await stub.accountHold(id, "spot_order:6")).toMatchObject({ amount: 60n, owner: "pair:2", open: true });
    // bot-2's first order now answers its client id.
    expect((await stub.accountReserveMany(id, [ask(7, 1n, { clientId: "bot-2" })]))[0]).toMatchObject({ result: "replay", hold: { hold: "spot_order:6" } });
  });

  it("resolves a hold once: spends part, credits the payout, gives back the rest; a second copy changes nothing", async () => {
    const { id, stub } = await funded(500n);
    await stub.accountReserve(id, { forKind: "position", forId: "3", account: "change", currencyId: USDT, amount: 200n });
    const close = { key: "position:3:close", hold: "position:3", spend: 50n, release: "rest" as const, credits: [{ account: "change", currencyId: BTC, amount: 5n }] };
    expect(await stub.accountResolve(id, close)).toEqual({ key: "position:3:close", result: "applied" });
    expect(await stub.accountResolve(id, close)).toEqual({ key: "position:3:close", result: "seen" });
    expect((await stub.accountBalances(id)).map(row)).toEqual([
      ["change", BTC, 5n, 0n],
      ["change", USDT, 450n, 0n],
    ]);
    expect(await stub.accountOpenHolds(id)).toEqual([]);
  });

  it("moves between the user's own accounts in one step, once per key, and never past what is there", async () => {
    const { id, stub } = await funded(100n);
    const move = { key: "transfer:1", from: "change", to: "micro", currencyId: USDT, amount: 60n };
    expect(await stub.accountTransfer(id, move)).toBe("moved");
    expect(await stub.accountTransfer(id, move)).toBe("seen");
    expect(await stub.accountTransfer(id, { ...move, key: "transfer:2" })).toBe("insufficient");
    // The refused key was not used up: with the money there it moves.
    expect(await stub.accountTransfer(id, { ...move, key: "transfer:2", amount: 40n })).toBe("moved");
    expect((await stub.accountBalances(id)).map(row)).toEqual([
      ["change", USDT, 0n, 0n],
      ["micro", USDT, 100n, 0n],
    ]);
  });

  it("refuses the object of one user for another", async () => {
    const { id, stub } = await funded(10n);
    // Inside the object (a refusal over RPC is reported by the test pool as unhandled as well).
    await runInDurableObject(stub, async (obj) => {
      await expect(obj.accountBalances(id + 1)).rejects.toThrow(/called for user/);
    });
    expect((await stub.accountBalances(id)).map(row)).toEqual([["change", USDT, 10n, 0n]]);
  });
});

describe("account object: holds never go below zero", () => {
  it("refuses a hold past the available balance and a spend past the hold, changing nothing", async () => {
    const { id, stub } = await funded(100n);
    expect(await stub.accountReserve(id, { forKind: "order", forId: "1", account: "change", currencyId: USDT, amount: 101n })).toEqual({ result: "insufficient", available: 100n });
    await stub.accountReserve(id, { forKind: "order", forId: "2", account: "change", currencyId: USDT, amount: 80n });
    const over = await stub.accountApply(id, [{ key: "trade:9:buyer", ops: [{ t: "credit", account: "change", currencyId: BTC, amount: 1n }, { t: "spend", hold: "order:2", amount: 81n }] }]);
    expect(over[0]).toMatchObject({ result: "refused", reason: expect.stringMatching(/80 left/) });
    // Nothing of the refused leg landed (not even its credit), and its key stays refused.
    expect((await stub.accountBalances(id)).map(row)).toEqual([["change", USDT, 20n, 80n]]);
    expect((await stub.accountApply(id, [{ key: "trade:9:buyer", ops: [{ t: "release", hold: "order:2", amount: 1n }] }]))[0]!.result).toBe("refused");
    expect((await stub.accountApply(id, [{ key: "trade:10:buyer", ops: [{ t: "spend", hold: "order:404", amount: 1n }] }]))[0]).toMatchObject({ result: "refused", reason: "no hold order:404" });
  });

  it("aborts in storage any write that would take a balance or a hold below zero", async () => {
    const { id, stub } = await funded(100n);
    await stub.accountReserve(id, { forKind: "order", forId: "5", account: "change", currencyId: USDT, amount: 40n });
    await runInDurableObject(stub, async (_obj, state) => {
      const sql = state.storage.sql;
      expect(() => sql.exec("UPDATE money_holds SET spent = spent + 41 WHERE hold = 'order:5'")).toThrow(/CHECK/);
      expect(() => sql.exec("UPDATE money_balances SET frozen = frozen - 41 WHERE kind = 'change'")).toThrow(/CHECK/);
      expect(() => sql.exec("UPDATE money_balances SET available = available - 61 WHERE kind = 'change'")).toThrow(/CHECK/);
    });
    expect((await stub.accountBalances(id)).map(row)).toEqual([["change", USDT, 60n, 40n]]);
  });
});

describe("account object: notifications and the read model", () => {
  it("writes a notification only with the money it describes, and drains both into D1 once", async () => {
    const { id, stub } = await funded(100n);
    await stub.accountReserve(id, { forKind: "contract", forId: "8", account: "change", currencyId: USDT, amount: 30n });
    const win = { key: "contract:8:settle", ops: [{ t: "release" as const, hold: "contract:8", amount: "rest" as const }, { t: "credit" as const, account: "change", currencyId: USDT, amount: 24n }], notice: { eventKey: "contract:8:settled", kind: "seconds_settled", params: { id: 8, won: true } } };
    const refused = { key: "contract:9:settle", ops: [{ t: "spend" as const, hold: "contract:9", amount: 1n }], notice: { eventKey: "contract:9:settled", kind: "seconds_settled" } };
    expect((await stub.accountApply(id, [win, refused, win])).map((a) => a.result)).toEqual(["applied", "refused", "seen"]);
    await drainAll(stub);
    await drainAll(stub);
    const { results } = await env.DB.prepare("SELECT event_key, kind, params FROM notifications WHERE user_id = ? AND event_key LIKE 'contract:%'").bind(id).all();
    expect(results).toEqual([{ event_key: "contract:8:settled", kind: "seconds_settled", params: '{"id":8,"won":true}' }]);
    expect(await readModel(id)).toEqual([["change", USDT, 124n, 0n]]);
  });

  it("keeps the read model equal to the object when a drain is repeated from the start (a crash before its bookmark moved)", async () => {
    const { id, stub } = await funded(1_000n);
    for (let i = 1; i <= 40; i++) {
      await stub.accountReserve(id, { forKind: "order", forId: String(i), account: "change", currencyId: USDT, amount: 10n });
      await stub.accountApply(id, [{ key: `trade:${i}:buyer`, ops: [{ t: "spend", hold: `order:${i}`, amount: 4n }, { t: "credit", account: "change", currencyId: BTC, amount: 1n }, { t: "release", hold: `order:${i}`, amount: i % 2 ? "rest" : 1n }] }]);
    }
    // Small steps: the drain works in batches and each one moves the bookmark.
    let steps = 0;
    while ((await stub.accountDrain(16)).more) steps++;
    expect(steps).toBeGreaterThan(3);
    const object = (await stub.accountBalances(id)).map(row);
    expect(await readModel(id)).toEqual(object);
    // The object forgets how far it drained: everything is sent again, and D1 takes none of it twice.
    await runInDurableObject(stub, (_obj, state) => {
      state.storage.sql.exec("UPDATE money_meta SET value = 0 WHERE name = 'drained'");
      state.storage.sql.exec("UPDATE account_bookmarks SET value = 0");
    });
    const again = await stub.accountDrain(1_000);
    expect(again.movements).toBeGreaterThan(100);
    expect(await readModel(id)).toEqual(object);
    const { count } = (await env.DB.prepare("SELECT count(*) AS count FROM account_movements WHERE user_id = ?").bind(id).first<{ count: number }>())!;
    expect(count).toBe(again.movements);
    expect(object).toEqual([
      ["change", BTC, 40n, 0n],
      ["change", USDT, 740n, 100n],
    ]);
  });

  it("drains by itself a moment after a write (the object's alarm)", async () => {
    const { id, stub } = await funded(70n);
    await stub.accountTransfer(id, { key: "t:1", from: "change", to: "lever", currencyId: USDT, amount: 20n });
    await expect.poll(() => readModel(id)).toEqual([
      ["change", USDT, 50n, 0n],
      ["lever", USDT, 20n, 0n],
    ]);
  });
});

describe("account object: legs from another object's outbox", () => {
  it("applies a trade committed by a sender once in each account, however often the sender redelivers", async () => {
    const buyer = await funded(1_000n);
    const seller = await makeUser();
    const sellerStub = userStub(env, seller.id);
    await sellerStub.accountImport(seller.id, [{ account: "change", currencyId: BTC, available: 10n, frozen: 0n }]);
    await buyer.stub.accountReserve(buyer.id, { forKind: "spot_order", forId: "1", account: "change", currencyId: USDT, amount: 500n });
    await sellerStub.accountReserve(seller.id, { forKind: "spot_order", forId: "2", account: "change", currencyId: BTC, amount: 10n });
    // The sender: a money core in an object's storage (as the pair object will hold it), with its
    // outbox delivering to the account objects by name.
    const sent: Leg[][] = [];
    const pair = env.PAIR.get(env.PAIR.idFromName(`account-legs-test:${Date.now()}`));
    const trade = tradeLegs({
      id: "77", kind: "change", base: String(BTC), quote: String(USDT), qty: 4, cost: 200, feeBase: 0, feeQuote: 2, fees: "system:fees:0",
      buyer: { to: `user:${buyer.id}`, hold: "spot_order:1", rest: 300 },
      seller: { to: `user:${seller.id}`, hold: "spot_order:2", rest: 0 },
    });
    await runInDurableObject(pair, (_obj, state) => {
      const sql = doSqlPort(state.storage);
      migrateMoney(sql);
      const core = new MoneyCore("pair:1", { sql, clock: { now: () => Date.now() }, random: { next: () => 0 }, transport: { send: (_f, _t, legs) => void sent.push(legs) } });
      // The fee leg goes to a system shard (not built yet): only the two users' legs are delivered here.
      expect(core.commit({ key: "trade:77", legs: trade.filter((l) => l.to.startsWith("user:")), local: [{ t: "credit", kind: "system", cur: String(USDT), amt: 2 }] })).toBe("committed");
      core.deliverDue();
    });
    const deliver = async () => {
      const answers: string[] = [];
      for (const legs of sent) {
        const userId = Number(legs[0]!.to.slice("user:".length));
        answers.push(...(await userStub(env, userId).accountReceive(userId, legs)));
      }
      return answers.sort();
    };
    expect(await deliver()).toEqual(["applied", "applied"]);
    expect(await deliver()).toEqual(["seen", "seen"]);
    expect((await buyer.stub.accountBalances(buyer.id)).map(row)).toEqual([
      ["change", BTC, 4n, 0n],
      ["change", USDT, 800n, 0n],
    ]);
    expect((await sellerStub.accountBalances(seller.id)).map(row)).toEqual([
      ["change", BTC, 0n, 6n],
      ["change", USDT, 198n, 0n],
    ]);
  });
});
