/**
 * The exchange-wide switch of issue #28 (worker/lib/accounts.ts) off, as deployed by default
 * (ACCOUNTS="d1"): an order and a transfer move money in D1 exactly as before, and neither the
 * trader's account object nor the pair object stores any money (tests/objects/ run it on).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountsOnObjects, accountStub } from "../../worker/lib/accounts.ts";
import { api, balance, drainPair, seedSpotPair, units } from "./helpers.ts";
import { BTC, PAIR, USDT, buy, clearBook, pairStub, sell, trader } from "./spot-fixtures.ts";

const moneyTables = (stub: DurableObjectStub) =>
  runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'money_%'").one().n);

beforeAll(async () => {
  await seedSpotPair();
});

describe("balances switch off (ACCOUNTS=d1)", () => {
  it("freezes, fills and transfers in D1 only; the objects keep no money", async () => {
    expect(accountsOnObjects(env)).toBe(false);
    await clearBook();
    const seller = await trader("0", "1");
    const buyer = await trader("1000", "0");
    await sell(seller.token, { price: "50000", num: "0.01" });
    expect((await buy(buyer.token, { price: "50000", num: "0.01" })).body.message.status).toBe("filled");
    await drainPair(PAIR);
    expect(await balance(buyer.id, USDT)).toEqual([units("500"), 0n]);
    expect(await balance(buyer.id, BTC)).toEqual([units("0.00998"), 0n]);
    expect((await api("/wallet/change", { token: buyer.token, body: { currency_id: USDT, number: "10", from_field: "change", to_field: "micro" } })).body.type).toBe("ok");
    expect(await balance(buyer.id, USDT, "micro")).toEqual([units("10"), 0n]);
    expect(await moneyTables(accountStub(env, buyer.id))).toBe(0);
    expect(await moneyTables(pairStub())).toBe(0);
  });
});
