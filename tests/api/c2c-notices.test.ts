// What the parties of a C2C order are told (issue #16 §1) and what they see of each other
// (§3): every order event leaves exactly one item in the inbox of exactly the right people,
// written in the event's own batch (a lost race, a retry or a second run of the expiry job adds
// none, and nobody else ever sees it), announced live on /ws/user; and the counterparty's
// verified real name is shown while the order is open, and only then.
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { c2cExpiryJob } from "../../worker/jobs/c2c-expiry.ts";
import { createAppeal } from "../../worker/domain/c2c/appeals.ts";
import { handleOne, orderRow } from "../../worker/domain/c2c/orders.ts";
import { api, type TestUser } from "./helpers.ts";
import { expectBooksBalanced, makeOperator, uploadImage } from "./wallet-fixtures.ts";
import { addAlipay, c2cFingerprint, listen, makeMerchant, makeTaker, makeTrader, pay, placeOrder, postAdvert, release, seedWalletCurrencies } from "./c2c-fixtures.ts";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);

const APPEAL_AFTER_MS = 900_000;

type Item = { id: number; kind: string; title: string; body: string; link: string; read: boolean };

/** The user's inbox (newest first), in `lang`. */
async function inbox(user: TestUser, lang = "en"): Promise<Item[]> {
  const r = await api("/notifications?limit=50", { token: user.token, lang });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message.data;
}
const kinds = async (user: TestUser) => (await inbox(user)).map((n) => n.kind).reverse();

async function market(body: Parameters<typeof postAdvert>[1] = {}) {
  const { merchant, operator } = await makeMerchant("2000");
  const ad = await postAdvert(merchant, body);
  return { merchant, operator, ad };
}

describe("C2C notifications", () => {
  it("tells the merchant of a new order and of the payment, the buyer of the release, each once and to nobody else", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const stranger = await makeTaker();
    const live = await listen(merchant);

    const id = await placeOrder(buyer, ad.id, "100");
    await live.next((e) => e.type === "notification");
    const [fresh] = await inbox(merchant);
    expect(fresh).toMatchObject({ kind: "c2c_new_order", title: "New C2C order", link: `/legal/show?id=${id}`, read: false });
    expect(fresh!.body).toBe(`Order #C${id} on your advert: 100.00 USDT for 720.00 CNY.`);
    expect(await kinds(buyer)).toEqual([]);

    expect((await pay(buyer, id)).body.type).toBe("ok");
    expect(await kinds(merchant)).toEqual(["c2c_new_order", "c2c_paid"]);
    const [paid] = await inbox(merchant, "zh");
    expect(paid).toMatchObject({ title: "买家已标记付款", link: `/legal/show?id=${id}` });
    expect(paid!.body).toContain("720.00 CNY");
    expect(await kinds(buyer)).toEqual([]);

    expect((await release(merchant, id)).body.type).toBe("ok");
    expect(await kinds(buyer)).toEqual(["c2c_released"]);
    expect((await inbox(buyer))[0]).toMatchObject({ title: "Coins released", body: `Order #C${id}: 100.00 USDT was released to your account.` });
    expect(await kinds(merchant)).toEqual(["c2c_new_order", "c2c_paid"]);
    expect(await kinds(stranger)).toEqual([]);
    live.close();
  });

  it("on a buy advert tells the merchant (the buyer here) of the order and the user who sells of the payment", async () => {
    const { merchant, ad } = await market({ type: "buy", total_number: "500", pay_kinds: ["alipay"] });
    const seller = await makeTaker("100");
    const id = await placeOrder(seller, ad.id, "50");
    expect(await kinds(merchant)).toEqual(["c2c_new_order"]);
    expect(await kinds(seller)).toEqual([]);
    expect((await pay(merchant, id)).body.type).toBe("ok");
    expect(await kinds(seller)).toEqual(["c2c_paid"]);
    expect((await release(seller, id)).body.type).toBe("ok");
    expect(await kinds(merchant)).toEqual(["c2c_new_order", "c2c_released"]);
    expect(await kinds(seller)).toEqual(["c2c_paid"]);
  });

  it("gives one item when the same action races: two payments, two confirmations", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    const [p1, p2] = await Promise.all([uploadImage(buyer), uploadImage(buyer)]);
    const paid = await Promise.all([
      api("/user_legal_pay", { token: buyer.token, body: { id, pay_orders_img: p1 } }),
      api("/user_legal_pay", { token: buyer.token, body: { id, pay_orders_img: p2 } }),
    ]);
    expect(paid.map((r) => r.body.type).sort()).toEqual(["error", "ok"]);
    expect(await kinds(merchant)).toEqual(["c2c_new_order", "c2c_paid"]);
    const confirmed = await Promise.all([
      release(merchant, id),
      release(merchant, id),
    ]);
    expect(confirmed.map((r) => r.body.type).sort()).toEqual(["error", "ok"]);
    expect(await kinds(buyer)).toEqual(["c2c_released"]);
  });

  it("tells both parties of a cancellation, once", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "20");
    const results = await Promise.all([
      api("/user_legal_pay_cancel", { token: buyer.token, body: { id } }),
      api("/legal_deal_cancel_order", { token: buyer.token, body: { id } }),
    ]);
    expect(results.map((r) => r.body.type).sort()).toEqual(["error", "ok"]);
    expect(await kinds(buyer)).toEqual(["c2c_cancelled"]);
    expect(await kinds(merchant)).toEqual(["c2c_new_order", "c2c_cancelled"]);
    expect((await inbox(merchant))[0]!.body).toBe(`Order #C${id} (20.00 USDT) was cancelled.`);
  });

  it("tells both parties of a timeout once, however many times the job and the clients handle it", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const stranger = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "20");
    const r = (await orderRow(env.DB, id))!;
    const after = r.pay_deadline + 1;
    await Promise.all([c2cExpiryJob(env, after), c2cExpiryJob(env, after), handleOne(env, r, buyer.id, after), handleOne(env, r, merchant.id, after)]);
    await c2cExpiryJob(env, after + 60_000);
    expect(await kinds(buyer)).toEqual(["c2c_expired"]);
    expect(await kinds(merchant)).toEqual(["c2c_new_order", "c2c_expired"]);
    expect((await inbox(buyer, "zh"))[0]).toMatchObject({ title: "C2C 订单已超时", link: `/legal/show?id=${id}` });
    expect(await kinds(stranger)).toEqual([]);
  });

  it("tells both parties of an appeal and of the decision: released (the buyer also of the coins) or returned", async () => {
    const { merchant, ad } = await market();
    const op = await makeOperator();
    const decide = async (release: boolean) => {
      const buyer = await makeTaker();
      const id = await placeOrder(buyer, ad.id, "20");
      await pay(buyer, id);
      const r = (await orderRow(env.DB, id))!;
      const opened = await Promise.allSettled([
        createAppeal(env, r, buyer.id, "seller silent", [], r.paid_at! + APPEAL_AFTER_MS),
        createAppeal(env, r, merchant.id, "no money", [], r.paid_at! + APPEAL_AFTER_MS),
      ]);
      expect(opened.filter((x) => x.status === "fulfilled")).toHaveLength(1);
      expect(await kinds(buyer)).toEqual(["c2c_appeal_opened"]);
      const appealId = (await env.DB.prepare("SELECT id FROM c2c_appeals WHERE order_id = ?").bind(id).first<{ id: number }>())!.id;
      const path = `/admin/c2c/appeals/${appealId}/${release ? "release" : "return"}`;
      const decided = await Promise.all([api(path, { token: op.token, body: { reason: "checked" } }), api(path, { token: op.token, body: { reason: "checked" } })]);
      expect(decided.map((x) => x.body.type).sort()).toEqual(["error", "ok"]);
      return { buyer, id };
    };

    const won = await decide(true);
    expect(await kinds(won.buyer)).toEqual(["c2c_appeal_opened", "c2c_released", "c2c_appeal_decided"]);
    const items = await inbox(won.buyer);
    expect(items.find((n) => n.kind === "c2c_appeal_decided")!.body).toBe(`The appeal on order #C${won.id} was decided: coins released to the buyer.`);
    const mine = (await inbox(merchant)).filter((n) => n.link === `/legal/show?id=${won.id}`).map((n) => n.kind).reverse();
    expect(mine).toEqual(["c2c_new_order", "c2c_paid", "c2c_appeal_opened", "c2c_appeal_decided"]);

    const lost = await decide(false);
    expect(await kinds(lost.buyer)).toEqual(["c2c_appeal_opened", "c2c_appeal_decided"]);
    expect((await inbox(lost.buyer, "zh"))[0]!.body).toBe(`订单 #C${lost.id} 的申诉结果：币已退回卖家。`);
    const theirs = (await inbox(merchant)).filter((n) => n.link === `/legal/show?id=${lost.id}`).map((n) => n.kind).reverse();
    expect(theirs).toEqual(["c2c_new_order", "c2c_paid", "c2c_appeal_opened", "c2c_appeal_decided"]);
    expect(await kinds(op)).toEqual([]);
  });

  it("adds no item when an action is refused", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "20");
    expect((await release(merchant, id)).body.type).toBe("error");
    expect((await api("/user_legal_pay_cancel", { token: merchant.token, body: { id } })).body.type).toBe("error");
    expect(await kinds(buyer)).toEqual([]);
    expect(await kinds(merchant)).toEqual(["c2c_new_order"]);
  });
});

describe("the counterparty's verified name", () => {
  it("is shown to both parties while the order is open (also under appeal), not once it is finished, and never to others", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTrader("0", { realName: "Dong Xiaoming" });
    await addAlipay(buyer, "13700137000");
    const id = await placeOrder(buyer, ad.id, "20");
    const seen = async (u: TestUser) => (await api(`/legal_deal?id=${id}`, { token: u.token })).body.message;

    const unpaid = await seen(merchant);
    expect(unpaid).toMatchObject({ role: "seller", counterparty_name: "D**********", counterparty_real_name: "Dong Xiaoming" });
    expect(await seen(buyer)).toMatchObject({ role: "buyer", counterparty_real_name: "Wang Fang" });
    const list = await api("/c2c/merchant/orders", { token: merchant.token });
    expect(list.body.message.lists[0]).toMatchObject({ id, counterparty_real_name: "Dong Xiaoming" });

    await pay(buyer, id);
    const r = (await orderRow(env.DB, id))!;
    await createAppeal(env, r, buyer.id, "waiting", [], r.paid_at! + APPEAL_AFTER_MS);
    expect(await seen(merchant)).toMatchObject({ is_sure: 3, appeal: { status: 0 }, counterparty_real_name: "Dong Xiaoming" });

    const stranger = await makeTaker();
    expect((await api(`/legal_deal?id=${id}`, { token: stranger.token })).body.code).toBe("not_found");
    expect(JSON.stringify((await api("/legal_user_deal", { token: stranger.token })).body)).not.toContain("Dong");

    await release(merchant, id);
    expect(await seen(merchant)).toMatchObject({ is_sure: 1, counterparty_name: "D**********", counterparty_real_name: null });
    expect((await seen(buyer)).counterparty_real_name).toBeNull();

    const cancelled = await placeOrder(buyer, ad.id, "20");
    await api("/user_legal_pay_cancel", { token: buyer.token, body: { id: cancelled } });
    expect((await api(`/legal_deal?id=${cancelled}`, { token: merchant.token })).body.message).toMatchObject({ is_sure: 2, counterparty_real_name: null });
  });
});

describe("ordering at the price shown", () => {
  it("refuses an order sent with a price the advert no longer has, changes nothing, and takes it at the current one", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const ok = await api("/do_legal_deal", { token: buyer.token, body: { id: ad.id, value: "20", price: "7.20" } });
    expect(ok.body.type, JSON.stringify(ok.body)).toBe("ok");
    await api(`/c2c/adverts/${ad.id}/off`, { token: merchant.token, body: {} });
    const edited = await api(`/c2c/adverts/${ad.id}/edit`, { token: merchant.token, body: { price: "7.35", min_money: "100", max_money: "50000", pay_kinds: ["alipay"] } });
    expect(edited.body.type, JSON.stringify(edited.body)).toBe("ok");
    await api(`/c2c/adverts/${ad.id}/on`, { token: merchant.token, body: {} });

    const before = await c2cFingerprint();
    const stale = await api("/do_legal_deal", { token: buyer.token, body: { id: ad.id, value: "20", price: "7.20" }, lang: "zh" });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ type: "error", code: "c2c_price_changed", message: "商家已将价格改为 7.35 CNY，请核对新的总额后重新下单" });
    expect(await c2cFingerprint()).toBe(before);
    expect(await kinds(merchant)).toEqual(["c2c_new_order"]);

    const fresh = await api("/do_legal_deal", { token: buyer.token, body: { id: ad.id, value: "20", price: "7.35" } });
    expect(fresh.body.type, JSON.stringify(fresh.body)).toBe("ok");
    expect((await api(`/legal_deal?id=${fresh.body.message.data.id}`, { token: buyer.token })).body.message).toMatchObject({ price: "7.35", deal_money: "147.00" });
    const bad = await api("/do_legal_deal", { token: buyer.token, body: { id: ad.id, value: "20", price: "abc" } });
    expect(bad.status).toBe(400);
  });
});

describe("C2C chat notifications", () => {
  const say = (user: TestUser, id: number, body: Record<string, unknown>) => api(`/c2c/orders/${id}/messages`, { token: user.token, body });
  const chatItems = async (user: TestUser, lang = "en") => (await inbox(user, lang)).filter((n) => n.kind === "c2c_message");

  it("tells the other party of a message, never the sender, one unread item per order however many lines, and a new one once it was read", async () => {
    const { merchant, ad } = await market();
    const buyer = await makeTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    const live = await listen(merchant);

    expect((await say(buyer, id, { text: "Hello, paying now" })).body.type).toBe("ok");
    await live.next((e) => e.type === "notification");
    expect(await chatItems(merchant)).toEqual([
      expect.objectContaining({ title: `New message on order #C${id}`, body: "Hello, paying now", link: `/legal/chat?id=${id}`, read: false }),
    ]);
    expect(await chatItems(buyer)).toEqual([]);

    // More lines while the first is unread: still one item.
    expect((await say(buyer, id, { text: "@merchant sent" })).body.type).toBe("ok");
    expect(await chatItems(merchant)).toHaveLength(1);

    // Read, then another line: a new item, quoting the user's own "@" text as typed.
    const [first] = await chatItems(merchant);
    expect((await api("/notifications/read", { token: merchant.token, body: { ids: [first!.id] } })).body.type).toBe("ok");
    expect((await say(buyer, id, { text: "@merchant are you there?" })).body.type).toBe("ok");
    const items = await chatItems(merchant);
    expect(items.map((n) => [n.body, n.read])).toEqual([
      ["@merchant are you there?", false],
      ["Hello, paying now", true],
    ]);
    expect((await chatItems(merchant, "zh"))[0]!.title).toBe(`订单 #C${id} 有新消息`);

    // The merchant answers: the buyer is told, the merchant is not.
    expect((await say(merchant, id, { image: await uploadImage(merchant) })).body.type).toBe("ok");
    expect((await chatItems(buyer)).map((n) => n.body)).toEqual(["(a picture)"]);
    expect((await chatItems(buyer, "zh")).map((n) => n.body)).toEqual(["[图片]"]);
    expect(await chatItems(merchant)).toHaveLength(2);
  });
});
