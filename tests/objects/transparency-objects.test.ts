/**
 * The public transparency page in objects mode (issue #28, found by the browser suite run with
 * E2E_ACCOUNTS=objects): fees are legs to the fee shards, drained into `system_movements`, not rows
 * of D1's ledger, and the summary counts them per currency and product as it counts the ledger's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, seedSpotPair, units } from "../api/helpers.ts";
import { BTC, USDT, legsDelivered, objectTrader, pageFee } from "./fixtures.ts";

const spot = (token: string, side: "buy" | "sell", price: string) =>
  api(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price, num: "0.01" } });

/** The page's spot fees of one currency, in units (0 when it shows none), once the fee shards drained. */
const spotFee = (currency: string) => pageFee("spot", currency);

beforeAll(async () => {
  await seedSpotPair();
});

describe("the transparency page's fees in objects mode", () => {
  it("counts a trade's fees once the fee shards drained them", async () => {
    const [btcBefore, usdtBefore] = [await spotFee("BTC"), await spotFee("USDT")];
    const seller = await objectTrader("0", "1");
    const buyer = await objectTrader("10000", "0");
    await spot(seller.token, "sell", "50000");
    expect((await spot(buyer.token, "buy", "50000")).body.message).toMatchObject({ status: "filled" });
    await legsDelivered();
    // The taker's 0.2 % of 0.01 BTC and the maker's 0.1 % of 500 USDT.
    expect((await spotFee("BTC")) - btcBefore).toBe(units("0.00002"));
    expect((await spotFee("USDT")) - usdtBefore).toBe(units("0.5"));
  });
});
