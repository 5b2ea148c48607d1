/**
 * Invitation rebate fixtures shared by the invite tests: users registered with an invite code and
 * funded through the ledger, identity verified through the console, spot trades that pay fees, and
 * those fees valued in USDT.
 */
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { api, credit, drainPair, makeUser, proveContact, solvedCaptcha, uniqueEmail, units, type TestUser } from "./helpers.ts";
import { BTC, PAIR, USDT, buy, sell, trader } from "./spot-fixtures.ts";
import { uploadImage } from "./wallet-fixtures.ts";

let seq = 0;

export async function codeOf(u: TestUser): Promise<string> {
  return (await api("/invite/info", { token: u.token })).body.message.code;
}

/** Registers through the API with an invite code, proves the e-mail with its code, then funds the new user through the ledger. */
export async function registerWith(code: string | undefined): Promise<TestUser> {
  const account = uniqueEmail("inv");
  const password = "Fresh2026pass";
  const r = await api("/user/register", {
    body: { type: 1, user_string: account, password, re_password: password, ...(await solvedCaptcha()), ...(code ? { extension_code: code } : {}) },
  });
  expect(r.body.type).toBe("ok");
  // A funded account has proven its e-mail (deposits need it): with the code, as its owner would.
  await proveContact({ account, token: r.body.message.token });
  const id = (await env.DB.prepare("SELECT id FROM users WHERE account = ?").bind(account).first<{ id: number }>())!.id;
  seq += 1;
  for (const [currencyId, amount] of [[USDT, units("10000")], [BTC, units("1")]] as const) {
    await credit(`invite-test-credit:${id}:${currencyId}:${seq}`, id, currencyId, amount);
  }
  return { id, account, password, token: r.body.message.token };
}

export async function approvePending(op: TestUser, u: TestUser) {
  const k = await env.DB.prepare("SELECT id FROM kyc_submissions WHERE user_id = ? AND status = 1").bind(u.id).first<{ id: number }>();
  expect((await api(`/admin/kyc/${k!.id}/approve`, { token: op.token, body: {} })).body.type).toBe("ok");
}

/**
 * Identity verification submitted by the user and approved through the console: level 1 (name and
 * document, enough to trade) and, unless `levels` is 1, level 2 (the pictures), which the spec asks
 * of an invitee before their fees earn the inviter anything.
 */
export async function verify(op: TestUser, u: TestUser, cardId: string, levels: 1 | 2 = 2) {
  expect((await api("/user/real_name", { token: u.token, body: { name: "Test Person", type: 1, card_id: cardId } })).body.type).toBe("ok");
  await approvePending(op, u);
  if (levels === 1) return;
  const pics = { front_pic: await uploadImage(u), reverse_pic: await uploadImage(u), hand_pic: await uploadImage(u) };
  expect((await api("/user/real_name", { token: u.token, body: pics })).body.type).toBe("ok");
  await approvePending(op, u);
}

/** An inviter and the invitee registered with their link, both verified at level 2 (documents `{doc}-A`, `{doc}-B`). */
export async function verifiedInvite(op: TestUser, doc: string): Promise<{ inviter: TestUser; invitee: TestUser }> {
  const inviter = await makeUser({ verified: 0 });
  await verify(op, inviter, `${doc}-A`);
  const invitee = await registerWith(await codeOf(inviter));
  await verify(op, invitee, `${doc}-B`);
  return { inviter, invitee };
}

/**
 * A BTC market whose index is 30,000: a trade at 30,000, then a bid at 29,900 and an ask at 30,100
 * that stay. Rebates value fees at the index ticks (never the last trade), and a book has an index
 * only while it is two-sided. Call after clearBook(), before the trades.
 */
export async function marketAt30000() {
  const [a, b] = [await trader("100000", "5"), await trader("100000", "5")];
  await sell(a.token, { price: "30000", num: "0.01" });
  expect((await buy(b.token, { price: "30000", num: "0.01" })).body.message).toMatchObject({ status: "filled" });
  await buy(a.token, { price: "29900", num: "0.01" });
  await sell(b.token, { price: "30100", num: "0.01" });
  await drainPair(PAIR);
}

/** The user buys `num` BTC from a counterparty's ask at 30,000 (taker: 20 bps fee in BTC). */
export async function buyAt30000(u: TestUser, num: string) {
  const maker = await trader("10000", "5");
  await sell(maker.token, { price: "30000", num });
  const r = await buy(u.token, { price: "30000", num });
  expect(r.body.message).toMatchObject({ status: "filled" });
  await drainPair(PAIR);
}

/** The user sells `num` BTC into a counterparty's bid at 30,000 (taker: 20 bps fee in USDT). */
export async function sellAt30000(u: TestUser, num: string) {
  const maker = await trader("100000", "0");
  await buy(maker.token, { price: "30000", num });
  const r = await sell(u.token, { price: "30000", num });
  expect(r.body.message).toMatchObject({ status: "filled" });
  await drainPair(PAIR);
}

/** The user's spot fees today in USDT minimal units, valued at the close (every trade here is at 30,000.00). */
export async function feesUsdt(userId: number): Promise<bigint> {
  const r = await env.DB.prepare(
    "SELECT COALESCE(SUM(CASE WHEN buyer_id = ?1 THEN buyer_fee ELSE 0 END), 0) AS btc, COALESCE(SUM(CASE WHEN seller_id = ?1 THEN seller_fee ELSE 0 END), 0) AS usdt FROM spot_trades",
  )
    .bind(userId)
    .first<{ btc: number; usdt: number }>();
  // BTC fee (8 decimals) × 3000000 (price, 2 decimals) → USDT units (8 decimals).
  return (BigInt(r!.btc) * 3000000n) / 100n + BigInt(r!.usdt);
}

export const share = (fee: bigint, bp: bigint) => (fee * bp) / 10000n;
