// CSV exports (issue #29): the ledger CSV of a user sums, per currency and account, to their
// balances, every line's "balance after" is the running balance, amounts are exact decimals, and
// the trades CSV lists each of their trades; a range of UTC days selects lines.
import { env } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, balancesOf, depositAt, drainPair, makeUser, seedSpotPair, units } from "./helpers.ts";
import { buy, clearBook, PAIR, sell, trader, USDT } from "./spot-fixtures.ts";
import { csv, toUnits } from "./csv-fixtures.ts";

beforeAll(async () => {
  await seedSpotPair();
});
beforeEach(clearBook);

describe("the ledger CSV", () => {
  it("sums, per currency and account, to the user's balances, with the running balance on every line", async () => {
    const alice = await trader("10000", "2");
    const bob = await trader("5000", "1");
    // Deposits (makeUser), a trade with fees, a resting order's hold and a transfer between accounts.
    expect((await sell(bob.token, { price: "100", num: "0.5" })).body.type).toBe("ok");
    expect((await buy(alice.token, { price: "100", num: "0.3" })).body.type).toBe("ok");
    expect((await buy(alice.token, { price: "90", num: "0.123457" })).body.type).toBe("ok");
    await drainPair(PAIR);
    const moved = await api("/wallet/change", { token: alice.token, body: { currency_id: USDT, number: "12.34567891", from_field: "change", to_field: "micro" } });
    expect(moved.body.type, JSON.stringify(moved.body)).toBe("ok");

    const { header, lines } = await csv("/export/ledger.csv", alice.token);
    expect(header).toEqual(["time_utc", "account", "currency", "amount", "frozen_amount", "balance_after", "frozen_after", "kind", "reference_id"]);
    const sums = new Map<string, { a: bigint; f: bigint }>();
    for (const l of lines) {
      expect(l.time_utc).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      const k = `${l.currency}:${l.account}`;
      const s = sums.get(k) ?? { a: 0n, f: 0n };
      s.a += toUnits(l.amount!);
      s.f += toUnits(l.frozen_amount!);
      sums.set(k, s);
      expect([toUnits(l.balance_after!), toUnits(l.frozen_after!)], JSON.stringify(l)).toEqual([s.a, s.f]);
    }
    const names = new Map((await env.DB.prepare("SELECT id, name FROM currencies").all<{ id: number; name: string }>()).results.map((c) => [c.id, c.name]));
    const results = (await balancesOf(alice.id)).filter((b) => b.available !== 0n || b.frozen !== 0n).map((b) => ({ name: names.get(b.currencyId), account: b.account, available: b.available, frozen: b.frozen }));
    expect(results.length).toBeGreaterThanOrEqual(3);
    for (const b of results) expect(sums.get(`${b.name}:${b.account}`), `${b.name}:${b.account}`).toEqual({ a: BigInt(b.available), f: BigInt(b.frozen) });
    for (const [k, s] of sums) {
      const row = results.find((b) => `${b.name}:${b.account}` === k);
      expect([s.a, s.f], k).toEqual([BigInt(row?.available ?? 0), BigInt(row?.frozen ?? 0)]);
    }
    // Exact decimals: the transfer reads as typed, to the unit.
    expect(lines.some((l) => l.account === "micro" && l.amount === "12.34567891")).toBe(true);
  });

  it("selects whole UTC days, keeping true balances after, and refuses a range that ends before it starts", async () => {
    const user = await makeUser();
    // A deposit made two days ago, then a transfer today.
    const twoDaysAgo = Date.now() - 2 * 86_400_000;
    await depositAt(`test-old-deposit:${user.id}`, user.id, USDT, units("100"), twoDaysAgo);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const then = new Date(twoDaysAgo).toISOString().slice(0, 10);
    expect((await csv(`/export/ledger.csv?from=${yesterday}&to=${yesterday}`, user.token)).lines).toEqual([]);
    const old = (await csv(`/export/ledger.csv?from=${then}&to=${then}`, user.token)).lines;
    expect(old.map((l) => [l.currency, l.amount, l.balance_after, l.kind])).toEqual([["USDT", "100.00000000", "100.00000000", "deposit"]]);
    const moved = await api("/wallet/change", { token: user.token, body: { currency_id: USDT, number: "1", from_field: "change", to_field: "micro" } });
    expect(moved.body.type).toBe("ok");
    // The range starts after the deposit: the balance after today's transfer is still the true one.
    const later = (await csv(`/export/ledger.csv?from=${today}`, user.token)).lines;
    expect(later.map((l) => [l.account, l.amount, l.balance_after])).toEqual([
      ["change", "-1.00000000", "99.00000000"],
      ["micro", "1.00000000", "1.00000000"],
    ]);
    const bad = await api(`/export/ledger.csv?from=${today}&to=${yesterday}`, { token: user.token });
    expect([bad.status, bad.body.code]).toEqual([400, "export_range"]);
    expect((await api("/export/ledger.csv?from=2026-13-01", { token: user.token })).body.code).toBe("invalid_day");
    expect((await api("/export/ledger.csv")).body.type).toBe("999");
  });
});

describe("the trades CSV", () => {
  it("lists each of the user's trades with exact price, amount, total and fee", async () => {
    const alice = await trader("10000", "0");
    const bob = await trader("0", "1");
    expect((await sell(bob.token, { price: "101.5", num: "0.25" })).body.type).toBe("ok");
    expect((await buy(alice.token, { price: "101.5", num: "0.25" })).body.type).toBe("ok");
    await drainPair(PAIR);
    const { header, lines } = await csv("/export/trades.csv", alice.token);
    expect(header).toEqual(["time_utc", "pair", "side", "role", "price", "amount", "total", "fee", "fee_currency", "order_id", "trade_id"]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ pair: "BTC/USDT", side: "buy", role: "taker", price: "101.50", amount: "0.250000", total: "25.37500000", fee_currency: "BTC" });
    const theirs = (await csv("/export/trades.csv", bob.token)).lines;
    expect(theirs[0]).toMatchObject({ side: "sell", role: "maker", total: "25.37500000", fee_currency: "USDT" });
    expect(lines[0]!.trade_id).toBe(theirs[0]!.trade_id);
  });
});
