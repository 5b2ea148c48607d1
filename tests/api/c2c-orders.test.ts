// C2C orders over time and under races: the payment window (the job cancels unpaid orders with
// nobody online; payment is refused after the window, by the code and by the database), parallel
// requests on one order (exactly one outcome), the daily and unfinished limits, chat, and appeals
// decided by an operator who is never a party. Every scenario ends with clean books.
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { c2cExpiryJob } from "../../worker/jobs/c2c-expiry.ts";
import { createAppeal } from "../../worker/domain/c2c/appeals.ts";
import { applyMerchant } from "../../worker/domain/c2c/merchants.ts";
import { createOrder, handleOne, orderRow, transitionOrder } from "../../worker/domain/c2c/orders.ts";
import { api, onObjects } from "./helpers.ts";
import { bal, expectBooksBalanced, makeOperator, uploadImage } from "./wallet-fixtures.ts";
import { listen, makeMerchant, makeTaker, makeTrader, orderState, pay, placeOrder, postAdvert, release, sameMsSellAdverts, seedWalletCurrencies, u8, USDT } from "./c2c-fixtures.ts";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);

const WINDOW_MS = 900_000;
const legal = (userId: number) => bal(userId, USDT, "legal");
const surplus = async (advertId: number) => BigInt((await env.DB.prepare("SELECT remaining FROM c2c_adverts WHERE id = ?").bind(advertId).first<{ remaining: number }>())!.remaining);

async function market(total = "1000", extra: Record<string, unknown> = {}) {
  const { merchant, operator } = await makeMerchant("2000");
  const ad = await postAdvert(merchant, { total_number: total, ...extra });
  return { merchant, operator, ad };
}

describe("payment window", () => {
  it("cancels an unpaid order after its window with nobody online, returns the escrow, and refuses payment afterwards", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    const deadline = (await orderRow(env.DB, id))!.pay_deadline;
    expect(await surplus(ad.id)).toBe(u8("900"));

    // Before the window ends the job leaves it alone.
    await c2cExpiryJob(env, deadline - 1);
    expect((await orderState(id))?.is_sure).toBe(0);

    await c2cExpiryJob(env, deadline + 1);
    expect(await orderState(id)).toMatchObject({ is_sure: 2, cancel_reason: "expired" });
    expect(await surplus(ad.id)).toBe(u8("1000"));
    expect(await legal(merchant.id)).toEqual([0n, u8("2000")]);
    const r = await pay(buyer, id);
    expect(r.body.code).toBe("c2c_order_handled");
    expect((await orderState(id))?.is_sure).toBe(2);
    // A second run finds nothing to do and moves nothing twice.
    expect(await c2cExpiryJob(env, deadline + 60_000)).toMatchObject({ expired: 0 });
    const view = await api(`/legal_deal?id=${id}`, { token: buyer.token });
    expect(view.body.message).toMatchObject({ is_sure: 2, cancel_reason: "expired", cancel_time: 0 });
  });

  it("returns a seller's own frozen coins when an order on a buy advert expires", async () => {
    const { ad } = await market("500", { type: "buy", pay_kinds: ["alipay"] });
    const seller = await makeTaker("100");
    const id = await placeOrder(seller, ad.id, "50");
    expect(await legal(seller.id)).toEqual([u8("50"), u8("50")]);
    const deadline = (await orderRow(env.DB, id))!.pay_deadline;
    await c2cExpiryJob(env, deadline);
    expect(await legal(seller.id)).toEqual([u8("100"), 0n]);
    expect(await surplus(ad.id)).toBe(u8("500"));
  });

  it("can never mark an order paid after its window: refused by the code and by the database", async () => {
    const { ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "20");
    const r = (await orderRow(env.DB, id))!;
    const proof = await uploadImage(buyer);
    await expect(transitionOrder(env, r, "pay", "buyer", buyer.id, { now: r.pay_deadline, proof })).rejects.toMatchObject({ key: "c2c_pay_window" });
    await expect(
      env.DB.prepare("UPDATE c2c_orders SET is_sure = 3, paid_at = ?, pay_orders_img = ? WHERE id = ?").bind(r.pay_deadline + 5, proof, id).run(),
    ).rejects.toThrow(/c2c_pay_window/);
    expect((await orderState(id))?.is_sure).toBe(0);
    await c2cExpiryJob(env, r.pay_deadline);
  });

  it("answers handle_one idempotently: nothing before the window ends, a cancellation after it, once", async () => {
    const { ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "20");
    const early = await api("/handle_one", { token: buyer.token, body: { id } });
    expect(early.body.message).toMatchObject({ id, is_sure: 0 });
    const r = (await orderRow(env.DB, id))!;
    await handleOne(env, r, buyer.id, r.pay_deadline + 1);
    await handleOne(env, r, buyer.id, r.pay_deadline + 2);
    expect(await orderState(id)).toMatchObject({ is_sure: 2, cancel_reason: "expired" });
    expect(await surplus(ad.id)).toBe(u8("1000"));
    const again = await api("/handle_one", { token: buyer.token, body: { id } });
    expect(again.body.message).toMatchObject({ id, is_sure: 2 });
  });
});

describe("races", () => {
  it("payment at the same moment as expiry: exactly one outcome, escrow moved at most once", async () => {
    const { merchant, ad } = await market("1000");
    for (let i = 0; i < 3; i++) {
      const buyer = await makeTaker();
      const id = await placeOrder(buyer, ad.id, "30");
      const r = (await orderRow(env.DB, id))!;
      const proof = await uploadImage(buyer);
      const results = await Promise.allSettled([
        transitionOrder(env, r, "pay", "buyer", buyer.id, { now: r.pay_deadline - 1, proof }),
        c2cExpiryJob(env, r.pay_deadline).then((x) => {
          if (x.expired !== 1) throw new Error("not expired");
          return 2;
        }),
      ]);
      expect(results.filter((x) => x.status === "fulfilled")).toHaveLength(1);
      const state = (await orderState(id))!.is_sure;
      expect([2, 3]).toContain(state);
      // D1's movements of the order (in objects mode the escrow moves in the merchant's account object,
      // once per order by its keys: tests/objects/c2c-objects.test.ts expires one order twice at once).
      if (!onObjects()) {
        const moved = await env.DB.prepare("SELECT count(*) AS n FROM movements WHERE key LIKE ?").bind(`c2c:${id}:%`).first<{ n: number }>();
        expect(moved?.n).toBe(state === 2 ? 1 : 0);
      }
      if (state === 3) expect((await release(merchant, id)).body.message.is_sure).toBe(1);
    }
  });

  it("confirm twice in parallel: the buyer receives the coins once", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    await pay(buyer, id);
    const [a, b] = await Promise.all([
      release(merchant, id),
      release(merchant, id),
    ]);
    expect([a.body.type, b.body.type].sort()).toEqual(["error", "ok"]);
    expect([a.body.code, b.body.code]).toContain("c2c_order_handled");
    expect(await legal(buyer.id)).toEqual([u8("100"), 0n]);
    expect(await legal(merchant.id)).toEqual([0n, u8("1900")]);
  });

  it("cancel against pay in parallel, and cancel after paid: exactly one outcome", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    const proof = await uploadImage(buyer);
    const [p, c] = await Promise.all([
      api("/user_legal_pay", { token: buyer.token, body: { id, pay_orders_img: proof } }),
      api("/user_legal_pay_cancel", { token: buyer.token, body: { id } }),
    ]);
    expect([p.body.type, c.body.type].filter((t) => t === "ok")).toHaveLength(1);
    const state = (await orderState(id))!.is_sure;
    if (state === 3) {
      expect((await api("/legal_deal_cancel_order", { token: buyer.token, body: { id } })).body.code).toBe("c2c_order_handled");
      await release(merchant, id);
      expect(await legal(buyer.id)).toEqual([u8("100"), 0n]);
    } else {
      expect(state).toBe(2);
      expect(await surplus(ad.id)).toBe(u8("1000"));
      expect(await legal(buyer.id)).toEqual([0n, 0n]);
    }
  });

  it("two takers racing for the last coins of an advert: the advert is never overdrawn", async () => {
    const { ad } = await market("100", { min_money: "10" });
    const [a, b] = [await makeTaker(), await makeTaker()];
    const results = await Promise.all([
      api("/do_legal_deal", { token: a.token, body: { id: ad.id, value: "60" } }),
      api("/do_legal_deal", { token: b.token, body: { id: ad.id, value: "60" } }),
    ]);
    expect(results.map((r) => r.body.type).sort()).toEqual(["error", "ok"]);
    expect(results.map((r) => r.body.code)).toContain("c2c_remaining");
    expect(await surplus(ad.id)).toBe(u8("40"));
  });
});

describe("limits", () => {
  it("refuses a fourth unfinished order and restricts ordering after three cancellations in a Beijing day", async () => {
    const { ad } = await market("1000");
    const buyer = await makeTaker();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await placeOrder(buyer, ad.id, "20"));
    const fourth = await api("/do_legal_deal", { token: buyer.token, body: { id: ad.id, value: "20" } });
    expect(fourth.body).toMatchObject({ code: "c2c_unfinished_limit", message: "You have 3 unfinished orders: finish them before placing another" });
    // The database refuses it too, whatever statement reaches it.
    const copy = (from: number, now: number) =>
      env.DB.prepare(
        `INSERT INTO c2c_orders (id, advert_id, type, merchant_id, taker_id, buyer_id, seller_id, currency_id, amount, price, deal_money, is_sure, pay_deadline, pay_methods, created_at)
         SELECT id + 1, advert_id, type, merchant_id, taker_id, buyer_id, seller_id, currency_id, amount, price, deal_money, 0, ?2 + 900000, pay_methods, ?2 FROM c2c_orders WHERE id = ?1`,
      ).bind(from, now).run();
    await expect(copy(ids[0]!, Date.now())).rejects.toThrow(/c2c_unfinished_limit/);
    for (const id of ids) expect((await api("/legal_deal_cancel_order", { token: buyer.token, body: { id } })).body.message.is_sure).toBe(2);
    const restricted = await api("/do_legal_deal", { token: buyer.token, body: { id: ad.id, value: "20" }, lang: "zh" });
    expect(restricted.body).toMatchObject({ code: "c2c_cancel_limit", message: "今日已取消 3 次，法币交易限制至明日" });
    await expect(copy(ids[2]!, Date.now())).rejects.toThrow(/c2c_cancel_limit/);
    const cfg = await api("/c2c/config", { token: buyer.token });
    expect(cfg.body.message).toMatchObject({ cancels_today: 3, restricted_until_tomorrow: true, pay_window_seconds: 900 });
    // The database refuses it too, whatever reaches it: the next Beijing day is open again.
    const tomorrow = Date.now() + 24 * 3600 * 1000;
    const next = await createOrder(env, buyer.id, ad.id, "20", tomorrow);
    expect(next.is_sure).toBe(0);
    await c2cExpiryJob(env, tomorrow + WINDOW_MS);
  });
});

describe("chat and appeals", () => {
  it("keeps a chat between the two parties only, with pictures visible to both", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const stranger = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "20");
    const sent = await api(`/c2c/orders/${id}/messages`, { token: buyer.token, body: { text: "paid via Alipay" } });
    expect(sent.body.message).toMatchObject({ sender: "me", kind: "text", text: "paid via Alipay" });
    const pic = await uploadImage(merchant);
    const img = await api(`/c2c/orders/${id}/messages`, { token: merchant.token, body: { image: pic } });
    expect(img.body.message.image).toBe(`/api/c2c/orders/${id}/files/${pic}`);
    const list = await api(`/c2c/orders/${id}/messages`, { token: buyer.token });
    expect(list.body.message.lists.map((m: { sender: string; kind: string }) => `${m.sender}:${m.kind}`)).toEqual(["me:text", "counterparty:image"]);
    const after = await api(`/c2c/orders/${id}/messages?after_id=${sent.body.message.id}`, { token: merchant.token });
    expect(after.body.message.lists).toHaveLength(1);
    expect((await api(`/legal_deal?id=${id}`, { token: buyer.token })).body.message.last_message_id).toBe(img.body.message.id);
    // Nobody else reads or writes it, or sees its pictures.
    expect((await api(`/c2c/orders/${id}/messages`, { token: stranger.token })).status).toBe(404);
    expect((await api(`/c2c/orders/${id}/messages`, { token: stranger.token, body: { text: "hi" } })).status).toBe(404);
    expect((await api(`/c2c/orders/${id}/files/${pic}`, { token: stranger.token })).status).toBe(404);
    // Operators see an order's pictures only once it is under appeal.
    const op = await makeOperator();
    expect((await api(`/c2c/orders/${id}/files/${pic}`, { token: op.token })).status).toBe(404);
    const other = await uploadImage(stranger);
    expect((await api(`/c2c/orders/${id}/messages`, { token: buyer.token, body: { image: other } })).body.code).toBe("picture_required");
    expect((await api(`/c2c/orders/${id}/messages`, { token: buyer.token, body: {} })).body.code).toBe("c2c_message_empty");
    await api("/legal_deal_cancel_order", { token: buyer.token, body: { id } });
  });

  it("appeal → operator releases the coins to the buyer, audited, with order, proof and chat in view", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    await pay(buyer, id);
    await api(`/c2c/orders/${id}/messages`, { token: buyer.token, body: { text: "I paid 720 CNY" } });
    const early = await api(`/c2c/orders/${id}/appeal`, { token: buyer.token, body: { reason: "seller silent" } });
    expect(early.body).toMatchObject({ code: "c2c_appeal_too_early", message: "You can appeal 15 min after the payment was marked" });
    const r = (await orderRow(env.DB, id))!;
    const evidence = await uploadImage(buyer);
    await createAppeal(env, r, buyer.id, "seller silent for 20 minutes", [evidence], r.paid_at! + WINDOW_MS);
    const dup = await createAppeal(env, (await orderRow(env.DB, id))!, merchant.id, "me too", [], r.paid_at! + WINDOW_MS).catch((e) => e);
    expect(dup).toMatchObject({ key: "c2c_appeal_exists" });
    const seen = await api(`/legal_deal?id=${id}`, { token: merchant.token });
    expect(seen.body.message.appeal).toMatchObject({ status: 0, by: "buyer", reason: "seller silent for 20 minutes" });

    const op = await makeOperator();
    const list = await api("/admin/c2c/appeals?status=0", { token: op.token });
    const appeal = list.body.message.lists.find((a: { order_id: number }) => a.order_id === id);
    expect(appeal).toMatchObject({ status: 0, by: "buyer", own: false, order: { id, is_sure: 3, buyer_id: buyer.id, seller_id: merchant.id } });
    const detail = await api(`/admin/c2c/appeals/${appeal.id}`, { token: op.token });
    expect(detail.body.message.messages.map((m: { sender: string; text: string }) => `${m.sender}:${m.text}`)).toEqual(["buyer:I paid 720 CNY"]);
    expect(detail.body.message.events.map((e: { action: string }) => e.action)).toEqual(["pay"]);
    expect(detail.body.message.order.pay_orders_img).toMatch(/^\/api\/c2c\/orders\//);
    const proof = await api(detail.body.message.order.pay_orders_img.replace(/^\/api/, ""), { token: op.token });
    expect(proof.status).toBe(200);
    const said = await api(`/admin/c2c/appeals/${appeal.id}/messages`, { token: op.token, body: { text: "Please both upload your bank statements" } });
    expect(said.body.message).toMatchObject({ sender: "operator", text: "Please both upload your bank statements" });
    const chat = await api(`/c2c/orders/${id}/messages`, { token: merchant.token });
    expect(chat.body.message.lists.map((m: { sender: string }) => m.sender)).toEqual(["counterparty", "operator"]);
    expect((await api(`/admin/c2c/appeals/${appeal.id}/release`, { token: op.token, body: {} })).body.code).toBe("reason_required");
    const decided = await api(`/admin/c2c/appeals/${appeal.id}/release`, { token: op.token, body: { reason: "bank statement shows the payment" } });
    expect(decided.body.message).toEqual({ id: appeal.id, status: 1 });
    expect(await legal(buyer.id)).toEqual([u8("100"), 0n]);
    expect(await legal(merchant.id)).toEqual([0n, u8("1900")]);
    expect((await api(`/admin/c2c/appeals/${appeal.id}/return`, { token: op.token, body: { reason: "again" } })).body.code).toBe("c2c_order_handled");
    const audit = await env.DB.prepare("SELECT operator_id, reason FROM audit_log WHERE action = 'c2c.appeal.release' AND target_id = ?").bind(String(id)).all();
    expect(audit.results).toEqual([{ operator_id: op.id, reason: "bank statement shows the payment" }]);
    expect((await api(`/legal_deal?id=${id}`, { token: buyer.token })).body.message).toMatchObject({ is_sure: 1, appeal: { status: 1, decision_reason: "bank statement shows the payment" } });
  });

  it("appeal → operator returns the coins to the seller's advert", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    await pay(buyer, id);
    const r = (await orderRow(env.DB, id))!;
    await createAppeal(env, r, merchant.id, "no money arrived", [], r.paid_at! + WINDOW_MS);
    const op = await makeOperator();
    const appealId = (await env.DB.prepare("SELECT id FROM c2c_appeals WHERE order_id = ?").bind(id).first<{ id: number }>())!.id;
    const decided = await api(`/admin/c2c/appeals/${appealId}/return`, { token: op.token, body: { reason: "no payment found" } });
    expect(decided.body.message).toEqual({ id: appealId, status: 2 });
    expect(await orderState(id)).toMatchObject({ is_sure: 2, cancel_reason: "appeal" });
    expect(await surplus(ad.id)).toBe(u8("1000"));
    expect(await legal(buyer.id)).toEqual([0n, 0n]);
    // The seller cannot confirm afterwards; nothing moves twice.
    expect((await release(merchant, id)).body.code).toBe("c2c_order_handled");
  });

  it("closes an open appeal when the seller confirms after all, leaving the operator nothing to decide", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "20");
    await pay(buyer, id);
    const r = (await orderRow(env.DB, id))!;
    await createAppeal(env, r, buyer.id, "waiting", [], r.paid_at! + WINDOW_MS);
    expect((await release(merchant, id)).body.message).toMatchObject({ is_sure: 1, appeal: { status: 3 } });
    const appealId = (await env.DB.prepare("SELECT id FROM c2c_appeals WHERE order_id = ?").bind(id).first<{ id: number }>())!.id;
    const op = await makeOperator();
    expect((await api(`/admin/c2c/appeals/${appealId}/return`, { token: op.token, body: { reason: "late" } })).body.code).toBe("c2c_order_handled");
    expect(await legal(buyer.id)).toEqual([u8("20"), 0n]);
  });

  it("refuses an operator deciding an appeal on their own order (audited), and the database refuses it too", async () => {
    const { ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    await pay(buyer, id);
    const r = (await orderRow(env.DB, id))!;
    await createAppeal(env, r, buyer.id, "slow seller", [], r.paid_at! + WINDOW_MS);
    const appealId = (await env.DB.prepare("SELECT id FROM c2c_appeals WHERE order_id = ?").bind(id).first<{ id: number }>())!.id;
    // The buyer becomes an operator (e.g. staff who traded before joining).
    await env.DB.prepare("UPDATE users SET role = 'operator' WHERE id = ?").bind(buyer.id).run();
    const r1 = await api(`/admin/c2c/appeals/${appealId}/release`, { token: buyer.token, body: { reason: "mine" } });
    expect(r1.status).toBe(403);
    expect(r1.body.code).toBe("own_record");
    const refused = await env.DB.prepare("SELECT count(*) AS n FROM audit_log WHERE action = 'c2c.appeal.release.refused' AND operator_id = ?").bind(buyer.id).first<{ n: number }>();
    expect(refused?.n).toBe(1);
    await expect(env.DB.prepare("UPDATE c2c_appeals SET status = 1, decided_by = ? WHERE id = ?").bind(buyer.id, appealId).run()).rejects.toThrow(/own_record/);
    expect((await orderState(id))?.is_sure).toBe(3);
    await env.DB.prepare("UPDATE users SET role = 'user' WHERE id = ?").bind(buyer.id).run();
    const op = await makeOperator();
    expect((await api(`/admin/c2c/appeals/${appealId}/release`, { token: op.token, body: { reason: "paid" } })).body.message.status).toBe(1);
  });

  it("marks an idle advert abnormal (audited, no new orders, escrow kept) and lets the merchant withdraw it", async () => {
    const { merchant, ad } = await market("500");
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "20");
    const op = await makeOperator();
    expect((await api(`/admin/c2c/adverts/${ad.id}/abnormal`, { token: op.token, body: { reason: "reports" } })).body.code).toBe("c2c_trade_running");
    await api("/legal_deal_cancel_order", { token: buyer.token, body: { id } });
    expect((await api(`/admin/c2c/adverts/${ad.id}/abnormal`, { token: op.token, body: { reason: "reports" } })).body.message).toEqual({ id: ad.id, status: 4 });
    expect(await legal(merchant.id)).toEqual([u8("500"), u8("1500")]);
    expect((await api("/do_legal_deal", { token: buyer.token, body: { id: ad.id, value: "20" } })).body.code).toBe("c2c_advert_abnormal");
    expect((await api(`/c2c/adverts/${ad.id}/on`, { token: merchant.token, body: {} })).body.code).toBe("c2c_advert_state");
    expect((await api(`/c2c/adverts/${ad.id}/withdraw`, { token: merchant.token, body: {} })).body.message.status).toBe(3);
    expect(await legal(merchant.id)).toEqual([u8("1000"), u8("1000")]);
    const audit = await env.DB.prepare("SELECT operator_id FROM audit_log WHERE action = 'c2c.advert.abnormal' AND target_id = ?").bind(String(ad.id)).first();
    expect(audit).toEqual({ operator_id: op.id });
  });
});

describe("notifications", () => {
  it("tells the other party about each order change and chat message, not the one who acted", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const [m, b] = [await listen(merchant), await listen(buyer)];
    const id = await placeOrder(buyer, ad.id, "50");
    expect(await m.next((e) => e.type === "c2c_order" && e.id === id)).toEqual({ type: "c2c_order", id, is_sure: 0 });
    await pay(buyer, id);
    expect(await m.next((e) => e.type === "c2c_order" && e.is_sure === 3)).toEqual({ type: "c2c_order", id, is_sure: 3 });
    await api(`/c2c/orders/${id}/messages`, { token: merchant.token, body: { text: "checking my bank" } });
    expect(await b.next((e) => e.type === "c2c_message")).toEqual({ type: "c2c_message", order_id: id });
    await release(merchant, id);
    expect(await b.next((e) => e.type === "c2c_order" && e.is_sure === 1)).toEqual({ type: "c2c_order", id, is_sure: 1 });
    // Nobody is told about their own actions.
    expect(b.got.filter((e) => e.type === "c2c_order" && (e.is_sure === 0 || e.is_sure === 3))).toEqual([]);
    expect(m.got.filter((e) => e.type === "c2c_message" || e.is_sure === 1)).toEqual([]);
    m.close();
    b.close();
  });
});

describe("releasing escrow needs the seller's fund password (issue #26)", () => {
  it("refuses a release without the fund password or with a wrong one, in the caller's language, and moves nothing", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "30");
    await pay(buyer, id);
    const none = await api("/legal_deal_user_sure", { token: merchant.token, body: { id }, lang: "zh" });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ type: "error", code: "c2c_release_password", message: "请输入资金密码以放行币" });
    const wrong = await api("/legal_deal_user_sure", { token: merchant.token, body: { id, password: "000000" }, lang: "en" });
    expect(wrong.body).toMatchObject({ type: "error", code: "fund_password_wrong", message: "The fund password is wrong" });
    expect(await orderState(id)).toMatchObject({ is_sure: 3 });
    expect(await legal(buyer.id)).toEqual([0n, 0n]);
    // With it, the coins go to the buyer.
    expect((await release(merchant, id)).body.message.is_sure).toBe(1);
    expect(await legal(buyer.id)).toEqual([u8("30"), 0n]);
  });

  it("asks a seller with no fund password to set one first", async () => {
    const { merchant, ad } = await market();
    await env.DB.prepare("UPDATE users SET fund_password_hash = NULL WHERE id = ?").bind(merchant.id).run();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "25");
    await pay(buyer, id);
    expect((await release(merchant, id)).body).toMatchObject({ code: "fund_password_required", message: "Please set a fund password first" });
    expect(await orderState(id)).toMatchObject({ is_sure: 3 });
  });

  it("gives the buyer the order's refusal, not a password prompt", async () => {
    const { ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "20");
    await pay(buyer, id);
    expect((await release(buyer, id)).body.code).toBe("c2c_not_authorised");
    expect(await orderState(id)).toMatchObject({ is_sure: 3 });
  });
});

describe("ids drawn in one millisecond", () => {
  // Merchant, advert and order ids are (ms since 2026) × 4096 + 12 random bits: 200 writes stamped
  // with one millisecond draw a taken id almost surely (1 − e^(−200·199/8192) ≈ 0.99); each must draw again.
  const N = 200;

  it("takes every merchant application made in the same millisecond, each under its own id", async () => {
    const users = await Promise.all(Array.from({ length: N }, () => makeTrader("1000")));
    const now = Date.now();
    for (const [k, u] of users.entries()) expect((await applyMerchant(env, u.id, `Same ms ${now.toString(36)} ${k}`, now)).status).toBe(0);
    const rows = await env.DB.prepare(`SELECT COUNT(DISTINCT id) AS n FROM c2c_merchants WHERE user_id IN (${users.map((u) => u.id).join(",")})`).first<{ n: number }>();
    expect(rows!.n).toBe(N);
    for (const u of users) expect(await legal(u.id)).toEqual([0n, u8("1000")]);
  });

  it("posts every advert made in the same millisecond, each under its own id", async () => {
    const { merchant } = await makeMerchant(String(1000 + N));
    expect(await sameMsSellAdverts(merchant.id, N)).toBe(N);
    expect(await legal(merchant.id)).toEqual([0n, u8(String(1000 + N))]);
  });

  it("places every order made in the same millisecond, each under its own id", async () => {
    const { ad } = await market(String(N), { min_money: "1" });
    // Three unfinished orders a taker: enough takers, each with a receiving method.
    const takers = await Promise.all(Array.from({ length: Math.ceil(N / 3) }, () => makeTrader("0", { realName: "Li Lei" })));
    await env.DB.batch(
      takers.map((t) => env.DB.prepare("INSERT INTO c2c_pay_methods (user_id, kind, holder_name, account, created_at, updated_at) VALUES (?, 'alipay', 'Li Lei', '13900139000', 0, 0)").bind(t.id)),
    );
    const now = Date.now();
    const ids = new Set<number>();
    for (let i = 0; i < N; i++) ids.add((await createOrder(env, takers[i % takers.length]!.id, ad.id, "1", now)).id);
    expect(ids.size).toBe(N);
    expect(await surplus(ad.id)).toBe(0n);
    const orders = await env.DB.prepare("SELECT COUNT(*) AS n, SUM(amount) AS total FROM c2c_orders WHERE advert_id = ? AND is_sure = 0").bind(ad.id).first<{ n: number; total: number }>();
    expect(orders).toEqual({ n: N, total: Number(u8(String(N))) });
    await c2cExpiryJob(env, now + WINDOW_MS);
  });
});
