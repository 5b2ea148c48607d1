// C2C end to end through the Worker: a merchant applies (deposit frozen), an operator approves,
// the merchant posts adverts (a sell advert escrows its coins), users buy and sell against them,
// pay with a proof picture, the seller confirms, and every balance moves exactly. Each scenario
// ends with the reconciliation finding nothing wrong (C2C escrow counted among frozen funds).
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { app } from "../../worker/app.ts";
import { api } from "./helpers.ts";
import { bal, expectBooksBalanced, makeOperator } from "./wallet-fixtures.ts";
import { addAlipay, c2cFingerprint, makeMerchant, makeTaker, makeTrader, orderState, pay, placeOrder, postAdvert, release, seedWalletCurrencies, u8, USDT } from "./c2c-fixtures.ts";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);

const legal = (userId: number) => bal(userId, USDT, "legal");

describe("merchants", () => {
  it("freezes the deposit at application, makes the user a seller on approval, and releases it on leaving", async () => {
    const user = await makeTrader("1500");
    const applied = await api("/c2c/merchant/apply", { token: user.token, body: { name: "Honest Shop A" } });
    expect(applied.body.message).toMatchObject({ status: 0, is_seller: 0, name: "Honest Shop A", deposit: "1000.00000000", deposit_currency: "USDT" });
    expect(await legal(user.id)).toEqual([u8("500"), u8("1000")]);
    await expectBooksBalanced();

    const op = await makeOperator();
    const list = await api("/admin/c2c/merchants?status=0", { token: op.token });
    const row = list.body.message.lists.find((m: { user_id: number }) => m.user_id === user.id);
    expect(row).toMatchObject({ name: "Honest Shop A", deposit: "1000.00000000", status: 0, own: false });
    const approved = await api(`/admin/c2c/merchants/${row.id}/approve`, { token: op.token, body: { reason: "ok" } });
    expect(approved.body.message).toEqual({ id: row.id, status: 1 });
    const info = await api("/user/info", { token: user.token });
    expect(info.body.message.is_seller).toBe(1);
    const audit = await env.DB.prepare("SELECT operator_id, reason FROM audit_log WHERE action = 'c2c.merchant.approve' AND target_id = ?").bind(String(row.id)).first();
    expect(audit).toEqual({ operator_id: op.id, reason: "ok" });

    const left = await api("/c2c/merchant/leave", { token: user.token, body: {} });
    expect(left.body.message).toMatchObject({ status: 3, is_seller: 0, deposit: null });
    expect(await legal(user.id)).toEqual([u8("1500"), 0n]);
  });

  it("returns the deposit when an operator rejects the application, with the reason shown", async () => {
    const user = await makeTrader("1000");
    await api("/c2c/merchant/apply", { token: user.token, body: { name: "Rejected Shop" } });
    const op = await makeOperator();
    const app = await env.DB.prepare("SELECT id FROM c2c_merchants WHERE user_id = ?").bind(user.id).first<{ id: number }>();
    const noReason = await api(`/admin/c2c/merchants/${app!.id}/reject`, { token: op.token, body: {} });
    expect(noReason.body.code).toBe("reason_required");
    const r = await api(`/admin/c2c/merchants/${app!.id}/reject`, { token: op.token, body: { reason: "name misleading" } });
    expect(r.body.message).toEqual({ id: app!.id, status: 2 });
    expect(await legal(user.id)).toEqual([u8("1000"), 0n]);
    const view = await api("/c2c/merchant", { token: user.token });
    expect(view.body.message).toMatchObject({ status: 2, reason: "name misleading", is_seller: 0 });
    const again = await api(`/admin/c2c/merchants/${app!.id}/approve`, { token: op.token, body: { reason: "changed my mind" } });
    expect(again.body.code).toBe("state_conflict");
  });

  it("refuses an application without the deposit, a taken name, and a second application", async () => {
    const poor = await makeTrader("999");
    const r = await api("/c2c/merchant/apply", { token: poor.token, body: { name: "Poor Shop" } });
    expect(r.body.code).toBe("insufficient_balance");
    expect(await legal(poor.id)).toEqual([u8("999"), 0n]);
    const { name, merchant } = await makeMerchant();
    const other = await makeTrader("2000");
    expect((await api("/c2c/merchant/apply", { token: other.token, body: { name: name.toUpperCase() } })).body.code).toBe("c2c_name_exists");
    expect((await api("/c2c/merchant/apply", { token: merchant.token, body: { name: "Second Shop" } })).body.code).toBe("c2c_already_merchant");
    const unverified = await makeTrader("2000", { verified: 0 });
    expect((await api("/c2c/merchant/apply", { token: unverified.token, body: { name: "Ghost" } })).body.type).toBe("998");
  });

  it("lets an operator never decide their own application", async () => {
    const op = await makeOperator();
    // An operator cannot apply (no money actions): their application comes from before they became one.
    await env.DB.prepare("UPDATE users SET review_status = 2, real_name = 'Op' WHERE id = ?").bind(op.id).run();
    const id = 770_000 + op.id;
    await env.DB.prepare("UPDATE users SET role = 'user' WHERE id = ?").bind(op.id).run();
    await env.DB.prepare("INSERT INTO c2c_merchants (id, user_id, name, status, currency_id, deposit, created_at) VALUES (?, ?, ?, 0, 3, 0, 0)").bind(id, op.id, `Op Shop ${op.id}`).run();
    await env.DB.prepare("UPDATE users SET role = 'operator' WHERE id = ?").bind(op.id).run();
    const r = await api(`/admin/c2c/merchants/${id}/approve`, { token: op.token, body: { reason: "mine" } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("own_record");
    const refused = await env.DB.prepare("SELECT count(*) AS n FROM audit_log WHERE action = 'c2c.merchant.approve.refused' AND operator_id = ?").bind(op.id).first<{ n: number }>();
    expect(refused?.n).toBe(1);
    expect((await env.DB.prepare("SELECT status FROM c2c_merchants WHERE id = ?").bind(id).first<{ status: number }>())?.status).toBe(0);
  });
});

describe("adverts", () => {
  it("escrows a sell advert's coins on the shelf and returns what remains when withdrawn (only after taking it off)", async () => {
    const { merchant } = await makeMerchant("3000");
    expect(await legal(merchant.id)).toEqual([u8("2000"), u8("1000")]);
    const ad = await postAdvert(merchant, { total_number: "500" });
    expect(ad).toMatchObject({ status: 1, surplus_number: "500.00000000", min_number: "13.88888900", max_number: "500.00000000" });
    expect(await legal(merchant.id)).toEqual([u8("1500"), u8("1500")]);
    await expectBooksBalanced();

    const market = await api("/new/legal_deal/index?type=sell&currency_id=3");
    expect(market.body.status).toBe(1);
    expect(market.body.data.lists.some((a: { id: number }) => a.id === ad.id)).toBe(true);

    expect((await api(`/c2c/adverts/${ad.id}/withdraw`, { token: merchant.token, body: {} })).body.code).toBe("c2c_withdraw_off_first");
    expect((await api(`/c2c/adverts/${ad.id}/off`, { token: merchant.token, body: {} })).body.message.status).toBe(2);
    const hidden = await api("/new/legal_deal/index?type=sell&currency_id=3&limit=100");
    expect(hidden.body.data.lists.some((a: { id: number }) => a.id === ad.id)).toBe(false);
    const withdrawn = await api(`/c2c/adverts/${ad.id}/withdraw`, { token: merchant.token, body: {} });
    expect(withdrawn.body.message).toMatchObject({ status: 3, surplus_number: "0.00000000" });
    expect(await legal(merchant.id)).toEqual([u8("2000"), u8("1000")]);
    expect((await api(`/c2c/adverts/${ad.id}/withdraw`, { token: merchant.token, body: {} })).body.code).toBe("c2c_advert_state");
    expect((await api(`/c2c/adverts/${ad.id}/on`, { token: merchant.token, body: {} })).body.code).toBe("c2c_advert_state");
    expect(await legal(merchant.id)).toEqual([u8("2000"), u8("1000")]);
  });

  it("refuses adverts from non-merchants, beyond the balance, and with inconsistent limits", async () => {
    const user = await makeTrader("5000");
    await addAlipay(user);
    expect((await api("/c2c/adverts", { token: user.token, body: { type: "sell", price: "7.2", total_number: "10", min_money: "10", max_money: "72", pay_kinds: ["alipay"] } })).body.code).toBe("c2c_not_merchant");
    const { merchant } = await makeMerchant("1100");
    const before = await c2cFingerprint();
    const cases: [Record<string, unknown>, string][] = [
      [{ total_number: "101" }, "insufficient_balance"],
      [{ min_money: "0" }, "c2c_limits"],
      [{ min_money: "600", max_money: "500" }, "c2c_limits"],
      [{ total_number: "10", min_money: "73", max_money: "100" }, "c2c_limits"],
      [{ price: "7.201" }, "invalid_field"],
      [{ price: "0" }, "price_positive"],
      [{ total_number: "1.0000001" }, "too_many_decimals"],
      [{ pay_kinds: [] }, "c2c_pay_kinds"],
      [{ pay_kinds: ["paypal"] }, "invalid_param"],
      [{ pay_kinds: ["wechat"] }, "c2c_pay_method_missing"],
      [{ type: "lend" }, "invalid_param"],
      [{ currency_id: 1 }, "currency_unsupported"],
    ];
    for (const [patch, code] of cases) {
      const r = await api("/c2c/adverts", { token: merchant.token, body: { type: "sell", price: "7.20", total_number: "100", min_money: "100", max_money: "500", pay_kinds: ["alipay"], ...patch } });
      expect(r.body.code, JSON.stringify(patch)).toBe(code);
    }
    expect(await c2cFingerprint()).toBe(before);
  });
});

describe("orders", () => {
  it("buys from a sell advert: pay with proof, seller confirms, coins move exactly", async () => {
    const { merchant, name } = await makeMerchant("2000");
    const ad = await postAdvert(merchant, { total_number: "1000" });
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    // The advert's escrow covers the order: nothing new is frozen, the advert has less left.
    expect(await legal(merchant.id)).toEqual([0n, u8("2000")]);
    const detail = await api(`/legal_deal?id=${id}`, { token: buyer.token });
    expect(detail.body.message).toMatchObject({
      id,
      type: "sell",
      is_sure: 0,
      currency_name: "USDT",
      number: "100.00000000",
      price: "7.20",
      deal_money: "720.00",
      seller_name: name,
      ordernumber: `C${id}`,
      pay_orders_img: null,
      role: "buyer",
      is_merchant: false,
      account_number: "6228480402564890018",
    });
    expect(detail.body.message.cancel_time).toBeGreaterThan(890);
    expect(detail.body.message.cancel_time).toBeLessThanOrEqual(900);
    expect(detail.body.message.pay_methods.map((m: { kind: string }) => m.kind)).toEqual(["bank", "alipay"]);
    // The buyer can see the seller's payment code through the order.
    const qr = detail.body.message.pay_methods.find((m: { kind: string }) => m.kind === "alipay").qr_code as string;
    const img = await app.request(qr, { headers: { authorization: buyer.token } }, env);
    expect(img.status).toBe(200);
    expect(img.headers.get("content-type")).toBe("image/png");
    await img.arrayBuffer();
    expect((await api("/new/legal_deal/index?type=sell&limit=100")).body.data.lists.find((a: { id: number }) => a.id === ad.id).surplus_number).toBe("900.00000000");
    await expectBooksBalanced();

    // The merchant sees the order among theirs and cannot mark it paid (they are the seller).
    const mine = await api("/c2c/merchant/orders", { token: merchant.token });
    expect(mine.body.message.lists[0]).toMatchObject({ id, role: "seller", is_merchant: true, counterparty_name: "L*****" });
    expect((await pay(merchant, id)).body.code).toBe("c2c_not_authorised");
    expect((await release(merchant, id)).body.code).toBe("c2c_order_handled");

    const paid = await pay(buyer, id);
    expect(paid.body.message).toMatchObject({ is_sure: 3, cancel_time: 0 });
    expect(paid.body.message.pay_orders_img).toMatch(new RegExp(`^/api/c2c/orders/${id}/files/`));
    const proof = await app.request(paid.body.message.pay_orders_img, { headers: { authorization: merchant.token } }, env);
    expect(proof.status).toBe(200);
    await proof.arrayBuffer();
    expect((await api("/legal_deal_cancel_order", { token: buyer.token, body: { id } })).body.code).toBe("c2c_order_handled");

    const sure = await release(merchant, id);
    expect(sure.body.message).toMatchObject({ is_sure: 1 });
    expect(await legal(buyer.id)).toEqual([u8("100"), 0n]);
    expect(await legal(merchant.id)).toEqual([0n, u8("1900")]);
    const list = await api("/legal_user_deal?is_sure=1", { token: buyer.token });
    expect(list.body.message).toMatchObject({ total: 1, pages: 1 });
    expect(list.body.message.data[0]).toMatchObject({ id, is_sure: 1 });
    const events = await env.DB.prepare("SELECT action FROM c2c_order_events WHERE order_id = ? ORDER BY id").bind(id).all<{ action: string }>();
    expect(events.results.map((e) => e.action)).toEqual(["pay", "confirm"]);
  });

  it("sells to a buy advert: the user's coins are frozen at the order and reach the merchant on the user's confirmation", async () => {
    const { merchant } = await makeMerchant("1000");
    const ad = await postAdvert(merchant, { type: "buy", price: "7.05", total_number: "500", pay_kinds: ["alipay"] });
    expect(await legal(merchant.id)).toEqual([0n, u8("1000")]);
    const seller = await makeTaker("300");
    expect((await api("/do_legal_deal", { token: seller.token, body: { id: ad.id, value: "400" } })).body.code).toBe("insufficient_balance");
    const id = await placeOrder(seller, ad.id, "200");
    expect(await legal(seller.id)).toEqual([u8("100"), u8("200")]);
    const view = await api(`/legal_deal?id=${id}`, { token: seller.token });
    expect(view.body.message).toMatchObject({ type: "buy", role: "seller", deal_money: "1410.00", account_number: "13900139000" });
    expect((await pay(seller, id)).body.code).toBe("c2c_not_authorised");
    expect((await pay(merchant, id)).body.message.is_sure).toBe(3);
    expect((await release(seller, id)).body.message.is_sure).toBe(1);
    expect(await legal(seller.id)).toEqual([u8("100"), 0n]);
    expect(await legal(merchant.id)).toEqual([u8("200"), u8("1000")]);
  });

  it("refuses one's own advert, unverified users (998) and users without a receiving method (997)", async () => {
    const { merchant } = await makeMerchant("2000");
    const ad = await postAdvert(merchant, { max_money: "500" });
    expect((await api("/do_legal_deal", { token: merchant.token, body: { id: ad.id, value: "20" } })).body.code).toBe("c2c_own_advert");
    const unverified = await makeTrader("0", { verified: 0 });
    expect((await api("/do_legal_deal", { token: unverified.token, body: { id: ad.id, value: "20" } })).body.type).toBe("998");
    const noMethod = await makeTrader("0");
    const r = await api("/do_legal_deal", { token: noMethod.token, body: { id: ad.id, value: "20" } });
    expect(r.body).toMatchObject({ type: "997", code: "bank_required" });
    const before = await c2cFingerprint();
    const taker = await makeTaker();
    const cases: [string, string][] = [
      ["13", "below_min"],
      ["100", "above_max"],
      ["7000", "c2c_remaining"],
      ["0", "amount_positive"],
      ["-5", "amount_positive"],
      ["1.0000001", "too_many_decimals"],
      ["abc", "invalid_amount"],
    ];
    const mid = await c2cFingerprint();
    for (const [value, code] of cases) expect((await api("/do_legal_deal", { token: taker.token, body: { id: ad.id, value } })).body.code, value).toBe(code);
    expect(await c2cFingerprint()).toBe(mid);
    expect(before).not.toBe("");
  });

  it("answers feature_off on every C2C route when PRODUCT_C2C is off", async () => {
    const user = await makeTaker("10");
    const off = { ...env, PRODUCT_C2C: "off" };
    for (const [method, path] of [
      ["GET", "/api/new/legal_deal/index"],
      ["POST", "/api/do_legal_deal"],
      ["GET", "/api/legal_user_deal"],
      ["POST", "/api/handle_one"],
      ["GET", "/api/c2c/config"],
      ["POST", "/api/c2c/merchant/apply"],
      ["GET", "/api/c2c/pay_methods"],
      ["POST", "/api/c2c/adverts"],
    ] as const) {
      const r = await app.request(path, { method, headers: { authorization: user.token, "content-type": "application/json", lang: "en" }, body: method === "POST" ? JSON.stringify({ id: 1, value: "1", name: "x" }) : undefined }, off);
      const body = (await r.json()) as { code: string };
      expect(body.code, path).toBe("feature_off");
    }
    const op = await makeOperator();
    const r = await app.request("/api/admin/c2c/appeals", { headers: { authorization: op.token } }, off);
    expect(((await r.json()) as { code: string }).code).toBe("feature_off");
    expect(await orderState(1)).toBeNull();
  });
});
