/**
 * Invitation rebate fixtures shared by the invite tests: users registered with an invite code and
 * funded through the ledger, identity verified through the console, spot trades that pay fees, and
 * those fees valued in USDT.
 */
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { runScheduled } from "../../worker/scheduled.ts";
import { addDays, beijingDay, dayEnd } from "../../worker/domain/invite/days.ts";
import { api, balance, credit, drainPair, makeUser, proveContact, seedSpotPair, solvedCaptcha, uniqueEmail, units, type TestUser } from "./helpers.ts";
import { BTC, PAIR, USDT, buy, clearBook, sell, trader } from "./spot-fixtures.ts";
import { makeOperator, uploadImage } from "./wallet-fixtures.ts";

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

/** A BTC market at 30,000 (marketAt30000), an operator, and a verified inviter and invitee (verifiedInvite). */
export async function invitedMarket(doc: string): Promise<{ op: TestUser; inviter: TestUser; invitee: TestUser }> {
  await seedSpotPair();
  await clearBook();
  await marketAt30000();
  const op = await makeOperator();
  return { op, ...(await verifiedInvite(op, doc)) };
}

/**
 * The race of a fee row that reaches D1 after its day's run, on the real path (both modes): the
 * invitee sells 0.05 BTC into a bid at 30,000 (taker: 3 USDT of fee) while D1 refuses trade rows,
 * so the pair object answers at once and keeps its drain batch. `close` settles the sale's day
 * meanwhile and answers the run; D1 is then back and the pair's drain brings the row, timed before
 * that run's cut, in its day. Answers the fee.
 */
export async function saleLandingAfter(invitee: TestUser, close: () => Promise<unknown>): Promise<bigint> {
  const day = beijingDay(Date.now());
  const maker = await trader("100000", "0");
  await buy(maker.token, { price: "30000", num: "0.05" });
  await drainPair(PAIR);
  const row = () =>
    env.DB.prepare("SELECT created_at, CAST(seller_fee AS TEXT) AS fee FROM spot_trades WHERE seller_id = ?").bind(invitee.id).first<{ created_at: number; fee: string }>();
  await env.DB.prepare("CREATE TRIGGER test_trades_down BEFORE INSERT ON spot_trades BEGIN SELECT RAISE(ABORT, 'd1 down (test)'); END").run();
  try {
    expect((await sell(invitee.token, { price: "30000", num: "0.05" })).body.message).toMatchObject({ status: "filled" });
    await drainPair(PAIR).catch(() => undefined);
    expect(await row()).toBeNull();
    await close();
  } finally {
    await env.DB.prepare("DROP TRIGGER test_trades_down").run();
  }
  const cut = (await env.DB.prepare("SELECT window_to FROM invite_runs WHERE day = ?").bind(day).first<{ window_to: number }>())!.window_to;
  await drainPair(PAIR);
  const landed = (await row())!;
  expect(landed.created_at).toBeLessThan(cut);
  expect(beijingDay(landed.created_at)).toBe(day);
  expect(BigInt(landed.fee)).toBe(units("3"));
  return BigInt(landed.fee);
}

/**
 * After saleLandingAfter: settling `day` again pays nothing more; the next day's run (the morning
 * cron, twice, and the every-minute job) counts the late fee and pays the inviter 20 % of it, once;
 * the inviter sees that one line.
 */
export async function paidOnceByNextRun(op: TestUser, inviter: TestUser, day: string, fee: bigint) {
  const again = await api("/admin/invite/run", { token: op.token, body: { day, reason: "again" } });
  expect(again.body.message).toMatchObject({ day, status: "done", total_paid_usdt: "0.00000000" });
  expect(await balance(inviter.id, USDT, "lever")).toEqual([0n, 0n]);
  const next = addDays(day, 1);
  const morning = dayEnd(next) + 8 * 3_600_000;
  await runScheduled("0 0 * * *", env, morning);
  await runScheduled("0 0 * * *", env, morning);
  await runScheduled("* * * * *", env, morning + 60_000);
  const runs = (await api("/admin/invite/runs", { token: op.token })).body.message.data;
  expect(runs.find((r: { day: string }) => r.day === next)).toMatchObject({ status: "done", inviters_paid: 1, fees_counted_usdt: "3.00000000", total_paid_usdt: "0.60000000" });
  expect(await balance(inviter.id, USDT, "lever")).toEqual([share(fee, 2000n), 0n]);
  const lines = (await api("/invite/rebates", { token: inviter.token })).body.message.data;
  expect(lines.map((l: { day: string; product: string; amount: string }) => [l.day, l.product, units(l.amount)])).toEqual([[next, "spot", share(fee, 2000n)]]);
}
