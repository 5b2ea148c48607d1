import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { SYSTEM } from "../../worker/lib/ledger.ts";
import { app } from "../../worker/app.ts";
import { api, makeUser, statementLines } from "./helpers.ts";
import { bal, BTC, clearPrice, DOGE, ETH, expectBooksBalanced, fundTreasury, seedWalletCurrencies, setPrice, u8, USDT, walletFingerprint, XRP } from "./wallet-fixtures.ts";
import { SWITCHED_PRODUCTS } from "../../schemas/products.ts";

beforeAll(async () => {
  await seedWalletCurrencies();
  await env.DB.prepare("INSERT INTO currencies (id, name, scale, show) VALUES (50, 'HIDDEN', 8, 0) ON CONFLICT DO NOTHING").run();
  await setPrice(BTC, "30000");
  await fundTreasury(USDT, u8("10000000"));
  await fundTreasury(BTC, u8("100"));
});

afterEach(expectBooksBalanced);

describe("wallet list", () => {
  it("lists the three accounts with decimal-string balances and USDT values at the real last price", async () => {
    const user = await makeUser({
      balances: [
        { currencyId: BTC, units: u8("0.5") },
        { currencyId: USDT, units: u8("100") },
        { currencyId: USDT, units: u8("5"), account: "micro" },
      ],
    });
    const r = await api("/wallet/list", { method: "POST", token: user.token });
    expect(r.body.type).toBe("ok");
    const { change_wallet, micro_wallet, legal_wallet } = r.body.message;
    const btc = change_wallet.balance.find((b: any) => b.currency === BTC);
    expect(btc).toMatchObject({ currency_name: "BTC", show: 1, change_balance: "0.50000000", lock_change_balance: "0.00000000", usdt_totle: "15000.00", usdt_price: "30000" });
    expect(change_wallet.usdt_totle).toBe("15100.00");
    expect(micro_wallet.usdt_totle).toBe("5.00");
    expect(micro_wallet.balance.find((b: any) => b.currency === USDT)).toMatchObject({ micro_balance: "5.00000000", lock_micro_balance: "0.00000000", usdt_totle: "5.00" });
    expect(legal_wallet.balance.find((b: any) => b.currency === USDT)).toMatchObject({ legal_balance: "0.00000000", lock_legal_balance: "0.00000000" });
    expect(r.body.message.total_usdt).toBe("15105.00");
    expect(r.body.message.totalProfits).toBe("0.00");
  });

  it("values a coin that has never traded at 0.00 instead of inventing a price", async () => {
    const user = await makeUser({ balances: [{ currencyId: ETH, units: u8("2") }] });
    const r = await api("/wallet/list", { method: "POST", token: user.token });
    const eth = r.body.message.change_wallet.balance.find((b: any) => b.currency === ETH);
    expect(eth).toMatchObject({ change_balance: "2.00000000", usdt_totle: "0.00", usdt_price: null });
    expect(r.body.message.change_wallet.usdt_totle).toBe("0.00");
  });

  it("lists the currencies flagged show, with XRP at its own scale, and one not shown only where its holder has some", async () => {
    // Currency 50 is not shown (as a launch's token before its listing): its holder still sees what they own.
    const user = await makeUser({ balances: [{ currencyId: 50, units: 5n }, { currencyId: XRP, units: 1_500_000n }] });
    const other = await makeUser({ balances: [{ currencyId: XRP, units: 1n }] });
    const r = await api("/wallet/list", { method: "POST", token: user.token });
    const ids = r.body.message.change_wallet.balance.map((b: any) => b.currency);
    expect(ids).toEqual(expect.arrayContaining([BTC, ETH, USDT, XRP, DOGE, 50]));
    expect(r.body.message.change_wallet.balance.find((b: any) => b.currency === 50)).toMatchObject({ show: 0, change_balance: expect.stringMatching(/^0\.0+5$/) });
    expect(r.body.message.change_wallet.balance.find((b: any) => b.currency === XRP)).toMatchObject({ show: 1, change_balance: "1.500000" });
    // Not in the accounts where the holder has none, nor in another user's lists.
    expect(r.body.message.micro_wallet.balance.map((b: any) => b.currency)).not.toContain(50);
    const theirs = await api("/wallet/list", { method: "POST", token: other.token });
    expect(theirs.body.message.change_wallet.balance.map((b: any) => b.currency)).not.toContain(50);
    // The spot wallet (the spot and transfer screens) the same.
    expect((await api("/user/user_wallet", { token: user.token })).body.message.map((b: any) => b.currency)).toContain(50);
    expect((await api("/user/user_wallet", { token: other.token })).body.message.map((b: any) => b.currency)).not.toContain(50);
  });

  it("answers 999 without a session", async () => {
    const r = await api("/wallet/list", { method: "POST" });
    expect(r.status).toBe(401);
    expect(r.body.type).toBe("999");
  });
});

describe("transfers between own accounts", () => {
  it("refuses an account of a product switched off in this deployment, and says so in the config", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
    const off = { ...env, PRODUCT_SECONDS: "off" };
    const call = async (path: string, init: RequestInit = {}): Promise<any> => {
      const res = await app.request(`/api${path}`, { ...init, headers: { authorization: user.token, lang: "en", "content-type": "application/json", "cf-connecting-ip": "198.18.9.9" } }, off);
      return res.json();
    };
    // Every other switched product stays on, as wrangler.toml has them.
    expect((await call("/cfg/kefu")).message.products).toEqual(Object.fromEntries(SWITCHED_PRODUCTS.map((id) => [id, id !== "seconds"])));
    const before = await walletFingerprint();
    const r = await call("/wallet/change", { method: "POST", body: JSON.stringify({ number: "10", from_field: "change", to_field: "micro", currency_id: USDT }) });
    expect(r).toMatchObject({ type: "error", code: "feature_off", message: "This feature is not open" });
    expect(await walletFingerprint()).toBe(before);
    const toLegal = await call("/wallet/change", { method: "POST", body: JSON.stringify({ number: "10", from_field: "change", to_field: "legal", currency_id: USDT }) });
    expect(toLegal.type).toBe("ok");
  });

  it("moves funds from change to micro in one balanced movement", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("10") }] });
    const r = await api("/wallet/change", { token: user.token, body: { number: "1.5", from_field: "change", to_field: "micro", currency_id: USDT } });
    expect(r.body).toMatchObject({ type: "ok", message: { number: "1.50000000", from_field: "change", to_field: "micro" } });
    expect(await bal(user.id, USDT)).toEqual([u8("8.5"), 0n]);
    expect(await bal(user.id, USDT, "micro")).toEqual([u8("1.5"), 0n]);
    // One movement: a line out of change and a line into micro, the same movement's.
    const lines = (await statementLines(user.token)).filter((l) => l.kind === "transfer");
    expect(lines.map((l) => [l.account, l.amount]).sort()).toEqual([
      ["change", "-1.50000000"],
      ["micro", "1.50000000"],
    ]);
    expect(new Set(lines.map((l) => l.id.split("|")[0])).size).toBe(1);
  });

  it("refuses the same source and target account with same_account and changes nothing", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("10") }] });
    const before = await walletFingerprint();
    const r = await api("/wallet/change", { token: user.token, body: { number: "1", from_field: "legal", to_field: "legal", currency_id: USDT } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: "error", code: "same_account", message: "The source and target accounts must be different" });
    expect(await walletFingerprint()).toBe(before);
  });

  it("refuses more than the available balance with insufficient_balance and changes nothing", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("1") }] });
    const before = await walletFingerprint();
    const r = await api("/wallet/change", { token: user.token, body: { number: "1.00000001", from_field: "change", to_field: "legal", currency_id: USDT } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("insufficient_balance");
    expect(await walletFingerprint()).toBe(before);
  });

  it.each([
    ["a negative amount", "-1", USDT, "amount_positive"],
    ["a zero amount", "0.000", USDT, "amount_positive"],
    ["more decimals than USDT has", "1.123456789", USDT, "too_many_decimals"],
    ["more decimals than XRP has", "1.1234567", XRP, "too_many_decimals"],
    ["a huge amount", "123456789012345678901234567890", USDT, "amount_too_large"],
    ["an amount above what a balance can hold", "99999999999", USDT, "amount_too_large"],
    ["a JSON number that is huge", 1e30, USDT, "amount_too_large"],
    ["a JSON number that does not print exactly", 0.1 + 0.2, USDT, "too_many_decimals"],
    ["a JSON number in exponent form", 1e-7, USDT, "invalid_amount"],
    ["text", "ten", USDT, "invalid_amount"],
    ["an exponent string", "1e3", USDT, "invalid_amount"],
  ])("refuses %s with a translated error and no ledger change", async (_name, number, currency, code) => {
    const user = await makeUser({ balances: [{ currencyId: currency as number, units: u8("5") }] });
    const before = await walletFingerprint();
    const r = await api("/wallet/change", { token: user.token, body: { number, from_field: "change", to_field: "micro", currency_id: currency }, lang: "es" });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(code);
    expect(r.body.message).not.toMatch(/^[a-z_]+$/);
    expect(await walletFingerprint()).toBe(before);
  });

  it("accepts an amount sent as a JSON number that prints exactly", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("5") }] });
    const r = await api("/wallet/change", { token: user.token, body: { number: 2.25, from_field: "change", to_field: "legal", currency_id: "3" } });
    expect(r.body.type).toBe("ok");
    expect(await bal(user.id, USDT, "legal")).toEqual([u8("2.25"), 0n]);
  });

  it("refuses an unknown account name or currency", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("5") }] });
    const bad = await api("/wallet/change", { token: user.token, body: { number: "1", from_field: "savings", to_field: "micro", currency_id: USDT } });
    expect(bad.body.code).toBe("invalid_param");
    const unknown = await api("/wallet/change", { token: user.token, body: { number: "1", from_field: "change", to_field: "micro", currency_id: 777 } });
    expect(unknown.body.code).toBe("currency_unsupported");
  });
});

describe("flash exchange", () => {
  it("publishes its settings: fee tiers, threshold, bounds and interval", async () => {
    const user = await makeUser();
    const r = await api("/user/shandui_set", { token: user.token });
    expect(r.body.message).toMatchObject({ shandui_sxf1: "0.2", shandui_sxf2: "0.1", shandui_sxf_money: "10000", shanduiMin: "10", shanduiMax: "100000", shandui_time: "0" });
    expect(r.body.message.prices).toEqual(expect.arrayContaining([{ currency_id: BTC, currency_name: "BTC", price: "30000" }, { currency_id: ETH, currency_name: "ETH", price: null }]));
  });

  it("converts a coin to USDT at the last traded price, fee to the fee account, counter-asset from the treasury", async () => {
    const user = await makeUser({ balances: [{ currencyId: BTC, units: u8("1") }] });
    const [feesBefore] = await bal(SYSTEM.fees, USDT);
    const [tUsdt] = await bal(TREASURY, USDT);
    const [tBtc] = await bal(TREASURY, BTC);
    const r = await api("/user/shandui_sub", { token: user.token, body: { from_currency: BTC, to_currency: USDT, money: "0.1" } });
    expect(r.body).toMatchObject({
      type: "ok",
      message: { money: "0.10000000", money2: "2994.00000000", money2_display: "2994.00000", huilv: "30000.00000000", sxf: "6.00000000", fee_percent: "0.2", usdt_value: "3000.00000000" },
    });
    expect(await bal(user.id, BTC)).toEqual([u8("0.9"), 0n]);
    expect(await bal(user.id, USDT)).toEqual([u8("2994"), 0n]);
    expect((await bal(SYSTEM.fees, USDT))[0] - feesBefore).toBe(u8("6"));
    expect((await bal(TREASURY, USDT))[0] - tUsdt).toBe(-u8("3000"));
    expect((await bal(TREASURY, BTC))[0] - tBtc).toBe(u8("0.1"));
  });

  it("executes exactly a confirmed quote even after the price moved, and only once", async () => {
    const user = await makeUser({ balances: [{ currencyId: BTC, units: u8("1") }] });
    const q = await api("/user/shandui_quote", { token: user.token, body: { from_currency: BTC, to_currency: USDT, money: "0.1" } });
    expect(q.body.message).toMatchObject({ money: "0.10000000", money2: "2994.00000000", huilv: "30000.00000000", ttl_seconds: 10 });
    expect(q.body.message.quote_id).toMatch(/^[0-9a-f]{32}$/);
    expect(q.body.message.expires_at).toBeGreaterThan(Date.now());
    // Nothing moves at quote time.
    expect(await bal(user.id, BTC)).toEqual([u8("1"), 0n]);
    await setPrice(BTC, "31000");
    try {
      const r = await api("/user/shandui_sub", { token: user.token, body: { quote_id: q.body.message.quote_id } });
      expect(r.body.message).toMatchObject({ money2: "2994.00000000", huilv: "30000.00000000", price: "30000" });
      expect(await bal(user.id, USDT)).toEqual([u8("2994"), 0n]);
      const again = await api("/user/shandui_sub", { token: user.token, body: { quote_id: q.body.message.quote_id } });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe("quote_expired");
      expect(await bal(user.id, BTC)).toEqual([u8("0.9"), 0n]);
    } finally {
      await setPrice(BTC, "30000");
    }
  });

  it("refuses an expired quote, or another user's, with a translated message and moves nothing", async () => {
    const user = await makeUser({ balances: [{ currencyId: BTC, units: u8("1") }] });
    const other = await makeUser({ balances: [{ currencyId: BTC, units: u8("1") }] });
    const q = await api("/user/shandui_quote", { token: user.token, body: { from_currency: BTC, to_currency: USDT, money: "0.1" } });
    const id = q.body.message.quote_id;
    const before = await walletFingerprint();
    const stolen = await api("/user/shandui_sub", { token: other.token, body: { quote_id: id } });
    expect(stolen.body.code).toBe("quote_expired");
    await env.DB.prepare("UPDATE conversion_quotes SET expires_at = ? WHERE id = ?").bind(Date.now() - 1, id).run();
    const late = await api("/user/shandui_sub", { token: user.token, body: { quote_id: id }, lang: "zh" });
    expect(late.status).toBe(409);
    expect(late.body.message).toBe("报价已过期，请重新获取报价");
    expect(await walletFingerprint()).toBe(before);
    const bad = await api("/user/shandui_sub", { token: user.token, body: { quote_id: "nope" } });
    expect(bad.status).toBe(400);
  });

  it("converts USDT to a coin and rounds the coin down to its minimal unit", async () => {
    await setPrice(ETH, "1999.99");
    try {
      const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
      await fundTreasury(ETH, u8("10"));
      const r = await api("/user/shandui_sub", { token: user.token, body: { from_currency: USDT, to_currency: ETH, money: "100" } });
      // fee 0.2 % of 100 = 0.2 USDT; 99.8 / 1999.99 = 0.0499002495… → 0.04990024 (down)
      expect(r.body.message).toMatchObject({ money2: "0.04990024", money2_display: "0.04990", sxf: "0.20000000", huilv: "0.00050000" });
      expect(await bal(user.id, ETH)).toEqual([4_990_024n, 0n]);
      expect(await bal(user.id, USDT)).toEqual([0n, 0n]);
    } finally {
      await clearPrice(ETH);
    }
  });

  it("uses the lower fee tier above the threshold", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("20000") }] });
    const r = await api("/user/shandui_sub", { token: user.token, body: { from_currency: USDT, to_currency: BTC, money: "20000" } });
    expect(r.body.message).toMatchObject({ sxf: "20.00000000", fee_percent: "0.1", money2: "0.66600000" });
  });

  it.each([
    ["a coin worth less than the minimum in USDT", BTC, USDT, "0.0003", "below_min"],
    ["a USDT amount below the minimum", USDT, BTC, "5", "below_min"],
    ["a USDT amount above the maximum", USDT, BTC, "100001", "above_max"],
    ["a coin worth more than the maximum in USDT", BTC, USDT, "3.5", "above_max"],
  ])("refuses %s and changes nothing", async (_name, from, to, money, code) => {
    const user = await makeUser({ balances: [{ currencyId: BTC, units: u8("5") }, { currencyId: USDT, units: u8("200000") }] });
    const before = await walletFingerprint();
    const r = await api("/user/shandui_sub", { token: user.token, body: { from_currency: from, to_currency: to, money } });
    expect(r.body.code).toBe(code);
    expect(r.body.message).toContain("USDT");
    expect(await walletFingerprint()).toBe(before);
  });

  it("refuses a coin that has no traded price, naming it", async () => {
    const user = await makeUser({ balances: [{ currencyId: ETH, units: u8("1") }] });
    const r = await api("/user/shandui_sub", { token: user.token, body: { from_currency: ETH, to_currency: USDT, money: "1" } });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: "no_price", message: "There is no traded price for ETH yet, so it cannot be converted" });
  });

  it("refuses coin-to-coin and USDT-to-USDT", async () => {
    const user = await makeUser({ balances: [{ currencyId: BTC, units: u8("1") }] });
    expect((await api("/user/shandui_sub", { token: user.token, body: { from_currency: BTC, to_currency: ETH, money: "0.1" } })).body.code).toBe("conversion_pair");
    expect((await api("/user/shandui_sub", { token: user.token, body: { from_currency: USDT, to_currency: USDT, money: "20" } })).body.code).toBe("conversion_pair");
  });

  it("refuses when the treasury cannot pay the counter-asset, and changes nothing", async () => {
    await setPrice(DOGE, "0.1");
    try {
      const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("50") }] });
      const before = await walletFingerprint();
      const r = await api("/user/shandui_sub", { token: user.token, body: { from_currency: USDT, to_currency: DOGE, money: "50" } });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe("treasury_insufficient");
      expect(await walletFingerprint()).toBe(before);
    } finally {
      await clearPrice(DOGE);
    }
  });

  it("refuses more than the user holds", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("15") }] });
    const before = await walletFingerprint();
    const r = await api("/user/shandui_sub", { token: user.token, body: { from_currency: USDT, to_currency: BTC, money: "15.00000001" } });
    expect(r.body.code).toBe("insufficient_balance");
    expect(await walletFingerprint()).toBe(before);
  });

  it("refuses too many decimals for the source currency", async () => {
    const user = await makeUser({ balances: [{ currencyId: BTC, units: u8("1") }] });
    const r = await api("/user/shandui_sub", { token: user.token, body: { from_currency: BTC, to_currency: USDT, money: "0.123456789" } });
    expect(r.body).toMatchObject({ code: "too_many_decimals", message: "Too many decimal places (at most 8)" });
  });

  it("waits the configured interval between two conversions of a user", async () => {
    await env.DB.prepare("UPDATE settings SET value = '5' WHERE key = 'shandui_time'").run();
    try {
      const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
      expect((await api("/user/shandui_sub", { token: user.token, body: { from_currency: USDT, to_currency: BTC, money: "20" } })).body.type).toBe("ok");
      const again = await api("/user/shandui_sub", { token: user.token, body: { from_currency: USDT, to_currency: BTC, money: "20" } });
      expect(again.body).toMatchObject({ code: "conversion_wait", message: "Please wait 5 min between two conversions" });
    } finally {
      await env.DB.prepare("UPDATE settings SET value = '0' WHERE key = 'shandui_time'").run();
    }
  });

  it("lists only the caller's own conversions, newest first, with a count", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
    const other = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
    await api("/user/shandui_sub", { token: other.token, body: { from_currency: USDT, to_currency: BTC, money: "30" } });
    await api("/user/shandui_sub", { token: user.token, body: { from_currency: USDT, to_currency: BTC, money: "20" } });
    await api("/user/shandui_sub", { token: user.token, body: { from_currency: USDT, to_currency: BTC, money: "40" } });
    const r = await api("/user/shandui_log?page=1", { token: user.token });
    expect(r.body.message.lists.count).toBe(2);
    expect(r.body.message.lists.data.map((d: any) => d.money)).toEqual(["40.00000000", "20.00000000"]);
    expect(r.body.message.lists.data[0]).toMatchObject({ from: "USDT", to: "BTC", huilv: "0.00003333", sxf: "0.08000000", money2: "0.00133066" });
    expect(r.body.message.lists.data[0].addtime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it("shows the change balances the converter works with", async () => {
    const user = await makeUser({ balances: [{ currencyId: BTC, units: u8("0.25") }] });
    const r = await api("/user/user_wallet", { token: user.token });
    expect(r.body.message.find((w: any) => w.currency === BTC)).toMatchObject({ currency_name: "BTC", change_balance: "0.25000000", lock_change_balance: "0.00000000" });
  });
});
