/**
 * Factories for the C2C tests: verified users with coins in the legal account, receiving methods,
 * merchants approved by an operator, adverts and orders, all through the API like the screens.
 */
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { advertInput, createAdvert } from "../../worker/domain/c2c/adverts.ts";
import { sha256Hex } from "../../worker/lib/crypto.ts";
import { api, makeUser, type TestUser } from "./helpers.ts";
import { ABC_CARD, FUND_PASSWORD, makeOperator, seedWalletCurrencies, u8, uploadImage, USDT } from "./wallet-fixtures.ts";

export { FUND_PASSWORD, seedWalletCurrencies, u8, USDT };

let names = 0;
/** A verified user (real name and fund password FUND_PASSWORD set) with `legal` USDT in the legal account. */
export async function makeTrader(legal = "0", overrides: { verified?: 0 | 2; realName?: string } = {}): Promise<TestUser> {
  return makeUser({
    verified: overrides.verified ?? 2,
    realName: overrides.realName ?? "Wang Fang",
    fundPassword: FUND_PASSWORD,
    balances: legal === "0" ? [] : [{ currencyId: USDT, units: u8(legal), account: "legal" }],
  });
}

/** Adds an Alipay account with a payment code; returns the method. */
export async function addAlipay(user: TestUser, account = "13800138000") {
  const qr = await uploadImage(user);
  const r = await api("/c2c/pay_methods", { token: user.token, body: { kind: "alipay", account, qr_code: qr } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message;
}

/** Saves a bank card (the receiving account of spec §7). */
export async function addBankCard(user: TestUser) {
  const r = await api("/user/cash_save", { token: user.token, body: { real_name: "Wang Fang", bank_account: ABC_CARD, bank_name: "", bank_branch: "Main" } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
}

/** A merchant: verified, `legal` USDT in the legal account, Alipay + bank card, applied and approved by an operator. */
export async function makeMerchant(legal = "11000", operator?: TestUser): Promise<{ merchant: TestUser; operator: TestUser; name: string }> {
  const merchant = await makeTrader(legal);
  await addAlipay(merchant);
  await addBankCard(merchant);
  names += 1;
  const name = `Shop${Date.now().toString(36)}${names}`;
  const applied = await api("/c2c/merchant/apply", { token: merchant.token, body: { name } });
  expect(applied.body.type, JSON.stringify(applied.body)).toBe("ok");
  const op = operator ?? (await makeOperator());
  const app = await env.DB.prepare("SELECT id FROM c2c_merchants WHERE user_id = ? AND status = 0").bind(merchant.id).first<{ id: number }>();
  const approved = await api(`/admin/c2c/merchants/${app!.id}/approve`, { token: op.token, body: { reason: "documents checked" } });
  expect(approved.body.type, JSON.stringify(approved.body)).toBe("ok");
  return { merchant, operator: op, name };
}

export interface AdvertBody {
  type?: "buy" | "sell";
  price?: string;
  total_number?: string;
  min_money?: string;
  max_money?: string;
  pay_kinds?: string[];
}

/** Posts an advert (default: sell 1,000 USDT at 7.20, 100–50,000 CNY, Alipay or bank). */
export async function postAdvert(merchant: TestUser, body: AdvertBody = {}) {
  const r = await api("/c2c/adverts", {
    token: merchant.token,
    body: { type: "sell", price: "7.20", total_number: "1000", min_money: "100", max_money: "50000", pay_kinds: ["alipay", "bank"], ...body },
  });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message as { id: number; surplus_number: string; status: number };
}

/** A taker ready to order: verified with a receiving method (and `legal` USDT to sell). */
export async function makeTaker(legal = "0"): Promise<TestUser> {
  const u = await makeTrader(legal, { realName: "Li Lei" });
  await addAlipay(u, "13900139000");
  return u;
}

/** Places an order on an advert; returns its id. */
export async function placeOrder(taker: TestUser, advertId: number, value: string): Promise<number> {
  const r = await api("/do_legal_deal", { token: taker.token, body: { id: advertId, value } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message.data.id as number;
}

/** The buyer marks the order paid with a fresh proof picture. */
/** The seller releases the escrow, with the fund password as the screen asks for it. */
export function release(seller: TestUser, orderId: number) {
  return api("/legal_deal_user_sure", { token: seller.token, body: { id: orderId, password: FUND_PASSWORD } });
}

export async function pay(buyer: TestUser, orderId: number) {
  const proof = await uploadImage(buyer);
  return api("/user_legal_pay", { token: buyer.token, body: { id: orderId, pay_orders_img: proof } });
}

/** Row counts and states of the C2C tables plus the balances: "nothing changed" checks. */
export async function c2cFingerprint(): Promise<string> {
  const r = await env.DB.prepare(
    `SELECT (SELECT count(*) || ':' || COALESCE(group_concat(status), '') FROM c2c_merchants) m,
            (SELECT count(*) || ':' || COALESCE(group_concat(status || '/' || remaining), '') FROM c2c_adverts) a,
            (SELECT count(*) || ':' || COALESCE(group_concat(is_sure), '') FROM c2c_orders) o,
            (SELECT count(*) FROM c2c_messages) g, (SELECT count(*) || ':' || COALESCE(group_concat(status), '') FROM c2c_appeals) p,
            (SELECT count(*) FROM c2c_pay_methods) pm, (SELECT count(*) FROM c2c_order_events) e,
            (SELECT count(*) FROM movements) mv, (SELECT COALESCE(SUM(available), 0) || '/' || COALESCE(SUM(frozen), 0) FROM balances) b`,
  ).first<Record<string, string>>();
  return JSON.stringify(r);
}

/** The order row as stored. */
export async function orderState(id: number) {
  return env.DB.prepare("SELECT is_sure, cancel_reason, amount, advert_id FROM c2c_orders WHERE id = ?").bind(id).first<{ is_sure: number; cancel_reason: string | null; amount: number; advert_id: number }>();
}

/** Opens a socket on the user's private channel object (what the Worker's authenticated upgrade does) and collects what it receives. */
export async function listen(user: { id: number; token: string }) {
  const tokenHash = await sha256Hex(user.token);
  const session = await env.DB.prepare("SELECT id FROM sessions WHERE token_hash = ?").bind(tokenHash).first<{ id: number }>();
  const stub = env.USER.get(env.USER.idFromName(`user:${user.id}`));
  const res = await stub.fetch("http://user/", { headers: { upgrade: "websocket", "x-user-id": String(user.id), "x-session-id": String(session!.id), "x-session-token-hash": tokenHash } });
  const ws = res.webSocket!;
  ws.accept();
  const got: { type: string; [k: string]: unknown }[] = [];
  const waiters: (() => void)[] = [];
  ws.addEventListener("message", (e) => {
    got.push(JSON.parse(String(e.data)));
    waiters.splice(0).forEach((w) => w());
  });
  /** Resolves once a message matching `pred` arrived (the test timeout bounds a hang). */
  const next = async (pred: (m: { type: string; [k: string]: unknown }) => boolean) => {
    while (!got.some(pred)) await new Promise<void>((r) => waiters.push(r));
    return got.find(pred)!;
  };
  return { got, next, close: () => ws.close() };
}

/** Posts `n` sell adverts of 1 USDT for `merchantId`, all stamped with one millisecond; answers how many distinct ids they got. */
export async function sameMsSellAdverts(merchantId: number, n: number): Promise<number> {
  const input = await advertInput(env.DB, { type: "sell", currency_id: USDT, price: "7.20", total_number: "1", min_money: "1", max_money: "100", pay_kinds: ["alipay"], remark: "" });
  const now = Date.now();
  const ids = new Set<number>();
  for (let i = 0; i < n; i++) ids.add((await createAdvert(env, merchantId, input, now)).id);
  return ids.size;
}
