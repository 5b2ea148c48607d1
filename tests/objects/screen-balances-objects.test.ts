/**
 * The balances the trading screens show come from the account object in objects mode (issue #28:
 * every API path and field as before). D1's `balances` rows are what they were at the cut-over, so
 * a screen reading them would show money the user no longer has: the spot page's balance and "in
 * orders" (GET /api/transaction/balance), the seconds page's payable coins with one's micro balance
 * (GET /api/microtrade/payable_currencies) and the lever page's balance (GET /api/lever/deal).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, seedSpotPair } from "../api/helpers.ts";
import { BTC, USDT, legsDelivered, objectTrader } from "./fixtures.ts";

const balance = async (token: string) => (await api(`/transaction/balance?currency_id=${BTC}&legal_id=${USDT}`, { token })).body.message;

beforeAll(async () => {
  await seedSpotPair();
});

describe("the screens' balances on the account objects", () => {
  it("the spot page shows the object's balances and what open orders hold, and follows a trade", async () => {
    const seller = await objectTrader("1000", "1");
    const buyer = await objectTrader("10000", "0");
    // D1 knows nothing of these users' money: a D1 read would show zeros.
    expect(await env.DB.prepare("SELECT count(*) AS n FROM balances WHERE user_id IN (?, ?)").bind(seller.id, buyer.id).first<{ n: number }>()).toEqual({ n: 0 });
    expect(await balance(seller.token)).toMatchObject({ user_currency: "1.00000000", user_legal: "1000.00000000", lock_currency: "0.00000000", order_currency: "0.00000000" });

    await api("/transaction/walletOut", { token: seller.token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "50000", num: "0.04" } });
    expect(await balance(seller.token)).toMatchObject({ user_currency: "0.96000000", lock_currency: "0.04000000", order_currency: "0.04000000" });

    // Half of it trades: 0.02 BTC at 50,000 less the maker's 0.1 % fee (1 USDT).
    await api("/transaction/walletIn", { token: buyer.token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "50000", num: "0.02" } });
    await legsDelivered();
    expect(await balance(seller.token)).toMatchObject({ user_currency: "0.96000000", user_legal: "1999.00000000", lock_currency: "0.02000000", order_currency: "0.02000000" });
    expect(await balance(buyer.token)).toMatchObject({ user_legal: "9000.00000000", lock_legal: "0.00000000", order_legal: "0.00000000" });
  });

  it("the seconds and lever pages show the object's micro and lever balances after a transfer", async () => {
    const u = await objectTrader("500", "0");
    for (const to of ["micro", "lever"]) {
      const moved = await api("/wallet/change", { token: u.token, body: { currency_id: USDT, number: "120", from_field: "change", to_field: to } });
      expect(moved.body.type).toBe("ok");
    }
    const payable = (await api("/microtrade/payable_currencies", { token: u.token })).body.message as { id: number; user_wallet: { micro_balance: string } | null }[];
    expect(payable.find((p) => p.id === USDT)?.user_wallet?.micro_balance).toMatch(/^120\.0+$/);
    const deal = (await api(`/lever/deal?currency_id=${BTC}&legal_id=${USDT}`, { token: u.token })).body.message;
    expect(deal).toMatchObject({ lever_balance: expect.stringMatching(/^120\.0+$/), lock_lever_balance: expect.stringMatching(/^0\.0+$/) });
  });
});
