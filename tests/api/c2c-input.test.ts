// Every C2C endpoint with bad input and with another user's ids: a clear translated refusal, no
// 500, and nothing changed. Receiving methods: the holder is the verified real name, the number
// is capped, payment codes are one's own pictures.
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { api } from "./helpers.ts";
import { expectBooksBalanced, makeOperator, uploadImage } from "./wallet-fixtures.ts";
import { c2cFingerprint, FUND_PASSWORD, makeMerchant, makeTaker, makeTrader, pay, placeOrder, postAdvert, release, seedWalletCurrencies } from "./c2c-fixtures.ts";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);

describe("visitors and other users", () => {
  it("answers 999 to a visitor on every endpoint that needs a session, and shows the market to anyone", async () => {
    const routes: [string, string][] = [
      ["POST", "/do_legal_deal"],
      ["GET", "/legal_user_deal"],
      ["GET", "/legal_deal?id=1"],
      ["POST", "/user_legal_pay"],
      ["POST", "/legal_deal_user_sure"],
      ["POST", "/legal_deal_cancel_order"],
      ["POST", "/user_legal_pay_cancel"],
      ["POST", "/handle_one"],
      ["GET", "/c2c/merchant"],
      ["POST", "/c2c/merchant/apply"],
      ["POST", "/c2c/merchant/leave"],
      ["GET", "/c2c/pay_methods"],
      ["POST", "/c2c/pay_methods"],
      ["GET", "/c2c/adverts/mine"],
      ["POST", "/c2c/adverts"],
      ["POST", "/c2c/adverts/1/off"],
      ["GET", "/c2c/merchant/orders"],
      ["GET", "/c2c/orders/1/messages"],
      ["POST", "/c2c/orders/1/appeal"],
    ];
    for (const [method, path] of routes) {
      const r = await api(path, { method, body: method === "POST" ? {} : undefined });
      expect(r.body.type, `${method} ${path}`).toBe("999");
    }
    const market = await api("/new/legal_deal/index?type=buy");
    expect(market.body).toMatchObject({ status: 1, data: { total: expect.any(Number) } });
    const cfg = await api("/c2c/config");
    expect(cfg.body.message).toMatchObject({ pay_window_seconds: 900, appeal_after_seconds: 900, merchant_deposit: "1000", max_unfinished: 3, max_cancels_per_day: 3, fiat: "CNY", cancels_today: 0 });
  });

  it("treats another user's order, advert and receiving method as missing, and changes nothing", async () => {
    const { merchant, ad } = await (async () => {
      const m = await makeMerchant("2000");
      return { merchant: m.merchant, ad: await postAdvert(m.merchant) };
    })();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    await pay(buyer, id);
    const stranger = await makeTaker("10");
    const proof = await uploadImage(stranger);
    const method = (await api("/c2c/pay_methods", { token: buyer.token })).body.message.lists[0].id as number;
    const before = await c2cFingerprint();
    const calls: [string, string, unknown?][] = [
      ["GET", `/legal_deal?id=${id}`],
      ["POST", "/user_legal_pay", { id, pay_orders_img: proof }],
      ["POST", "/legal_deal_user_sure", { id, password: FUND_PASSWORD }],
      ["POST", "/legal_deal_cancel_order", { id }],
      ["POST", "/user_legal_pay_cancel", { id }],
      ["POST", "/handle_one", { id }],
      ["GET", `/c2c/orders/${id}/messages`],
      ["POST", `/c2c/orders/${id}/messages`, { text: "hello" }],
      ["POST", `/c2c/orders/${id}/appeal`, { reason: "x" }],
      ["POST", `/c2c/adverts/${ad.id}/off`, {}],
      ["POST", `/c2c/adverts/${ad.id}/withdraw`, {}],
      ["POST", `/c2c/pay_methods/${method}`, { kind: "wechat", account: "x1", qr_code: proof }],
      ["POST", `/c2c/pay_methods/${method}/delete`, {}],
      ["GET", "/legal_deal?id=999999999999"],
    ];
    for (const [method_, path, body] of calls) {
      const r = await api(path, { method: method_, token: stranger.token, body, lang: "es" });
      expect(r.status, `${method_} ${path}`).toBe(404);
      expect(r.body, `${method_} ${path}`).toMatchObject({ code: "not_found", message: "No se encontraron datos" });
    }
    expect((await api("/legal_user_deal", { token: stranger.token })).body.message).toEqual({ total: 0, pages: 1, data: [] });
    expect((await api("/c2c/merchant/orders", { token: stranger.token })).body.message).toEqual({ total: 0, lists: [] });
    expect(await c2cFingerprint()).toBe(before);
    // The merchant's own view is unaffected and the order still completes.
    expect((await release(merchant, id)).body.message.is_sure).toBe(1);
  });

  it("answers 403 no_permission to a non-operator on every /api/admin/c2c endpoint", async () => {
    const user = await makeTrader("0");
    for (const [method, path] of [
      ["GET", "/admin/c2c/merchants"],
      ["POST", "/admin/c2c/merchants/1/approve"],
      ["POST", "/admin/c2c/merchants/1/reject"],
      ["GET", "/admin/c2c/adverts"],
      ["POST", "/admin/c2c/adverts/1/abnormal"],
      ["GET", "/admin/c2c/appeals"],
      ["GET", "/admin/c2c/appeals/1"],
      ["POST", "/admin/c2c/appeals/1/messages"],
      ["POST", "/admin/c2c/appeals/1/release"],
      ["POST", "/admin/c2c/appeals/1/return"],
    ]) {
      const r = await api(path!, { method, token: user.token, body: method === "POST" ? { reason: "x" } : undefined });
      expect(r.status, path).toBe(403);
      expect(r.body.code, path).toBe("no_permission");
    }
  });
});

describe("bad input", () => {
  it("refuses malformed bodies, queries and ids with translated errors and changes nothing", async () => {
    const { merchant } = await makeMerchant("2000");
    const ad = await postAdvert(merchant);
    const user = await makeTaker("10");
    const op = await makeOperator();
    const before = await c2cFingerprint();
    const cases: [string, string, unknown, string, string?][] = [
      ["POST", "/do_legal_deal", {}, "invalid_param"],
      ["POST", "/do_legal_deal", { id: ad.id }, "invalid_amount"],
      ["POST", "/do_legal_deal", { id: "x", value: "1" }, "invalid_param"],
      ["POST", "/do_legal_deal", { id: ad.id, value: "1e5" }, "invalid_amount"],
      ["POST", "/do_legal_deal", { id: ad.id, value: 0.1 + 0.2 }, "too_many_decimals"],
      ["POST", "/do_legal_deal", { id: -1, value: "1" }, "invalid_param"],
      ["POST", "/do_legal_deal", "not json", "invalid_param"],
      ["POST", "/user_legal_pay", { id: 1 }, "picture_required"],
      ["POST", "/user_legal_pay", { id: 1, pay_orders_img: "" }, "picture_required"],
      ["POST", "/legal_deal_user_sure", { id: "1; DROP TABLE users", password: FUND_PASSWORD }, "invalid_param"],
      ["POST", "/legal_deal_user_sure", { id: 1 }, "c2c_release_password"],
      ["POST", "/handle_one", {}, "invalid_param"],
      ["GET", "/legal_deal?id=abc", undefined, "invalid_param"],
      ["GET", "/legal_deal", undefined, "invalid_param"],
      ["GET", "/legal_user_deal?is_sure=5", undefined, "invalid_field"],
      ["GET", "/legal_user_deal?type=lend", undefined, "invalid_param"],
      ["GET", "/legal_user_deal?page=0", undefined, "invalid_field"],
      ["POST", "/c2c/merchant/apply", { name: "x" }, "c2c_merchant_name"],
      ["POST", "/c2c/merchant/apply", { name: "<script>" }, "c2c_merchant_name"],
      ["POST", "/c2c/pay_methods", { kind: "bank", account: "1" }, "invalid_param"],
      ["POST", "/c2c/pay_methods", { kind: "alipay", account: "" }, "missing_field"],
      ["POST", "/c2c/pay_methods", { kind: "alipay", account: "a b" }, "invalid_field"],
      ["POST", "/c2c/pay_methods", { kind: "alipay", account: "a1" }, "picture_required"],
      ["POST", "/c2c/pay_methods", { kind: "other", account: "a1" }, "missing_field"],
      ["POST", "/c2c/pay_methods/abc/delete", {}, "invalid_param"],
      ["POST", "/c2c/adverts/abc/off", {}, "invalid_param"],
      ["POST", "/c2c/adverts", { type: "sell" }, "invalid_amount"],
      ["GET", "/c2c/orders/1/messages?after_id=-1", undefined, "invalid_param"],
      ["POST", "/c2c/orders/1/messages", { text: "x".repeat(501) }, "too_long"],
      ["POST", "/c2c/orders/1/appeal", { reason: "" }, "reason_required"],
      ["POST", "/c2c/orders/1/appeal", { reason: "x", evidence: ["a", "b", "c", "d", "e", "f"] }, "c2c_evidence_limit"],
      ["GET", "/new/legal_deal/index?type=x", undefined, "invalid_param"],
      ["GET", "/new/legal_deal/index?limit=1000", undefined, "invalid_field"],
    ];
    const wrong: string[] = [];
    for (const [method, path, body, code] of cases) {
      const r = await api(path, { method, token: user.token, body, lang: "jp" });
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBeLessThan(500);
      if (r.body.code !== code) wrong.push(`${method} ${path} ${JSON.stringify(body)}: ${r.body.code}`);
      expect(typeof r.body.message).toBe("string");
    }
    expect(wrong).toEqual([]);
    for (const [method, path, body, code] of [
      ["POST", "/admin/c2c/merchants/abc/approve", { reason: "x" }, "invalid_param"],
      ["POST", "/admin/c2c/appeals/1/release", {}, "reason_required"],
      ["POST", "/admin/c2c/appeals/1/release", { reason: "x" }, "not_found"],
      ["POST", "/admin/c2c/appeals/1/messages", { text: "" }, "c2c_message_empty"],
      ["POST", "/admin/c2c/appeals/1/messages", { text: "hello" }, "not_found"],
      ["POST", "/admin/c2c/adverts/1/abnormal", { reason: "x" }, "not_found"],
      ["GET", "/admin/c2c/appeals?status=9", undefined, "invalid_param"],
    ] as const) {
      const r = await api(path, { method, token: op.token, body });
      expect(r.body.code, path).toBe(code);
    }
    expect(await c2cFingerprint()).toBe(before);
  });
});

describe("receiving methods", () => {
  it("keeps methods in the verified real name, up to the configured number, with one's own payment code", async () => {
    const user = await makeTrader("0", { realName: "Zhao Lei" });
    const qr = await uploadImage(user);
    const added = await api("/c2c/pay_methods", { token: user.token, body: { kind: "wechat", account: "zhaolei88", qr_code: qr } });
    expect(added.body.message).toMatchObject({ kind: "wechat", holder_name: "Zhao Lei", account: "zhaolei88", qr_code: `/api/new/upload/file/${qr}` });
    const other = await api("/c2c/pay_methods", { token: user.token, body: { kind: "other", account: "zl@pay.example", label: "PayPal" } });
    expect(other.body.message).toMatchObject({ kind: "other", label: "PayPal", qr_code: null });
    for (let i = 0; i < 3; i++) await api("/c2c/pay_methods", { token: user.token, body: { kind: "other", account: `acct${i}`, label: "Bank" } });
    const sixth = await api("/c2c/pay_methods", { token: user.token, body: { kind: "other", account: "one-more", label: "Bank" } });
    expect(sixth.body).toMatchObject({ code: "c2c_pay_method_limit", message: "You can save at most 5 receiving methods" });
    const list = await api("/c2c/pay_methods", { token: user.token });
    expect(list.body.message.lists).toHaveLength(5);
    expect(list.body.message.max).toBe(5);

    const updated = await api(`/c2c/pay_methods/${added.body.message.id}`, { token: user.token, body: { kind: "alipay", account: "13700137000", qr_code: qr } });
    expect(updated.body.message).toMatchObject({ id: added.body.message.id, kind: "alipay", account: "13700137000", holder_name: "Zhao Lei" });
    const del = await api(`/c2c/pay_methods/${other.body.message.id}/delete`, { token: user.token, body: {} });
    expect(del.body.message).toEqual({ id: other.body.message.id, deleted: true });

    // Someone else's picture is not a payment code of yours.
    const stranger = await makeTrader("0");
    const theirs = await uploadImage(stranger);
    expect((await api("/c2c/pay_methods", { token: user.token, body: { kind: "alipay", account: "x1", qr_code: theirs } })).body.code).toBe("picture_required");
    // Unverified users have no real name to receive under (998); the database refuses another name.
    const unverified = await makeTrader("0", { verified: 0 });
    expect((await api("/c2c/pay_methods", { token: unverified.token, body: { kind: "other", account: "x", label: "Y" } })).body.type).toBe("998");
    await expect(
      env.DB.prepare("INSERT INTO c2c_pay_methods (user_id, kind, holder_name, account, created_at, updated_at) VALUES (?, 'other', 'Someone Else', 'x', 0, 0)").bind(user.id).run(),
    ).rejects.toThrow(/c2c_holder_name/);
  });
});
