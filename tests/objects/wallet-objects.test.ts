/**
 * Deposits, withdrawals and conversion with balances in the account objects (ACCOUNTS=objects,
 * issue #28): each flow through the API, with exact balances in the objects and in D1's read model
 * after the drain; every leg and operation applied once however often it is sent; refusals move
 * nothing; a withdrawal hold whose record never came released once by the object's sweep (the
 * shared claims of durable/account/claims.ts; legs through worker/lib/record-legs.ts).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { claimRecord, RECORD_OWNER } from "../../durable/account/claims.ts";
import { accountStub, shardOf, SYSTEM_USERS, systemAddress, systemStub } from "../../worker/lib/accounts.ts";
import { reconcile } from "../../worker/domain/ledger/reconcile.ts";
import { holdSourcesOf } from "../../worker/domain/products.ts";
import { accountReads } from "../../worker/domain/wallet/object-reads.ts";
import { deliverRecordLegs, pendingRecordLegs, recordLegsStatements, resendRecordLegs } from "../../worker/lib/record-legs.ts";
import { depositLegs } from "../../worker/domain/wallet/deposit-objects.ts";
import { decisionLegs, holdThenRecord } from "../../worker/domain/withdrawals/objects.ts";
import { CONVERSION_GRACE_MS, reconcileConversionHolds } from "../../worker/domain/conversion/orphans.ts";
import { conversionHoldsJob } from "../../worker/jobs/conversion-holds.ts";
import { JOBS } from "../../worker/scheduled.ts";
import { api, makeUser, type TestUser } from "../api/helpers.ts";
import { FUND_PASSWORD, makeOperator, makeWithdrawer, seedWalletCurrencies, setPrice, u8, uploadImage } from "../api/wallet-fixtures.ts";
import { BTC, USDT, d1LedgerRows, drainObject, objectBalances, objectTrader, readModel } from "./fixtures.ts";

const ADDRESS = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";
const USDT_ADDRESS = "DEMO-usdt-trc20-address-not-real-do-not-send";
const { deposits: DEPOSITS, withdrawals: WITHDRAWALS, fees: FEES, treasury: TREASURY } = SYSTEM_USERS;

/** A shard's balances as [account, currency, available, frozen] (zero rows left out). */
const shardBalances = async (userId: number, shard: number) =>
  (await systemStub(env, userId, shard).systemBalances(userId, shard)).filter((b) => b.available !== 0n || b.frozen !== 0n).map((b) => [b.account, b.currencyId, b.available, b.frozen]);

/** One shard's available of one currency in its `change` account. */
async function shardAvailable(userId: number, shard: number, currencyId = USDT): Promise<bigint> {
  const b = (await systemStub(env, userId, shard).systemBalances(userId, shard)).find((x) => x.currencyId === currencyId && x.account === "change");
  return b?.available ?? 0n;
}

/** A user ready to withdraw, their object opened with `usdt` in the spot account. */
async function withdrawer(usdt = "100"): Promise<TestUser> {
  const u = await makeWithdrawer();
  await accountStub(env, u.id).accountImport(u.id, [{ account: "change", currencyId: USDT, available: u8(usdt), frozen: 0n }]);
  return u;
}

const withdraw = (user: TestUser, body: Record<string, unknown> = {}) =>
  api("/wallet/out", { token: user.token, body: { currency: USDT, address: ADDRESS, number: "50", type: 1, password: FUND_PASSWORD, ...body } });

/** The user's statement lines (kind, amount, held) of one currency, newest first. */
async function statementKinds(user: TestUser, currencyId = USDT) {
  const r = await api(`/wallet/statement?currency_id=${currencyId}`, { token: user.token });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return (r.body.message.lines as { kind: string; amount: string; held: string; ref: { type: string; id: number | null } }[]).map((l) => [l.kind, l.amount, l.held, l.ref.type]);
}

/** The user's object drained, then its read model equal to it. */
async function readModelMatches(userId: number) {
  await drainObject(accountStub(env, userId));
  expect(await readModel(userId)).toEqual(await objectBalances(userId));
}

/** The legs a record still owes the objects (none once every object answered). */
const pendingLegs = async (record: string) => (await pendingRecordLegs(env.DB, record)).length;

beforeAll(async () => {
  await seedWalletCurrencies();
  await setPrice(BTC, "30000");
});

describe("withdrawals on the account objects", () => {
  it("holds amount + fee in the object before the record, and a rejection gives it back once", async () => {
    const user = await withdrawer();
    const op = await makeOperator();
    const r = await withdraw(user);
    expect(r.body).toMatchObject({ type: "ok", message: { status: 0, number: "50.00000000", charge: "1.00000000", total: "51.00000000" } });
    const id = r.body.message.id as number;
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("49"), u8("51")]]);
    expect(await accountStub(env, user.id).accountHold(user.id, `withdrawal:${id}`)).toMatchObject({ amount: u8("51"), open: true, owner: RECORD_OWNER });
    const row = await env.DB.prepare("SELECT user_id, status, amount, fee, freeze_key FROM withdrawals WHERE id = ?").bind(id).first();
    expect(row).toEqual({ user_id: user.id, status: 0, amount: Number(u8("50")), fee: Number(u8("1")), freeze_key: `withdrawal:${id}` });
    // What the form shows and the holds list read the object.
    const info = await api("/wallet/get_info", { token: user.token, body: { currency: USDT } });
    expect(info.body.message).toMatchObject({ change_balance: "49.00000000", lock_change_balance: "51.00000000" });
    const holds = await api("/wallet/holds", { token: user.token });
    expect(JSON.stringify(holds.body.message)).toContain(`"purpose":"withdrawal"`);

    const rejected = await api(`/admin/withdrawals/${id}/reject`, { token: op.token, body: { reason: "address on a sanctions list" } });
    expect(rejected.body.message).toEqual({ id, status: 4 });
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("100"), 0n]]);
    expect(await pendingLegs(`withdrawal:${id}`)).toBe(0);
    // The same decision's legs sent again (a redelivery) apply nothing.
    await deliverRecordLegs(env, decisionLegs({ id, user_id: user.id, currency_id: USDT, amount: u8("50"), fee: u8("1") }, "reject"));
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("100"), 0n]]);
    // A second decision is refused by D1's state machine and moves nothing.
    expect((await api(`/admin/withdrawals/${id}/reject`, { token: op.token, body: { reason: "again" } })).body.code).toBe("state_conflict");
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("100"), 0n]]);
    expect(await d1LedgerRows(user.id)).toBe(0);
    await readModelMatches(user.id);
    expect(await statementKinds(user)).toEqual([
      ["withdrawal_reject", "0.00000000", "-51.00000000", "withdrawal"],
      ["withdrawal_freeze", "0.00000000", "51.00000000", "withdrawal"],
    ]);
  });

  it("chain success spends the hold: the amount to a withdrawals shard, the fee to a fee shard, once", async () => {
    const user = await withdrawer();
    const op = await makeOperator();
    const id = (await withdraw(user)).body.message.id as number;
    const k = shardOf(id);
    const [outBefore, feesBefore] = [await shardAvailable(WITHDRAWALS, k), await shardAvailable(FEES, k)];
    expect((await api(`/admin/withdrawals/${id}/approve`, { token: op.token, body: {} })).body.message).toEqual({ id, status: 1 });
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("49"), u8("51")]]);
    const sent = await api(`/admin/withdrawals/${id}/chain-success`, { token: op.token, body: { txid: "0xabc123" } });
    expect(sent.body.message).toEqual({ id, status: 2 });
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("49"), 0n]]);
    expect((await shardAvailable(WITHDRAWALS, k)) - outBefore).toBe(u8("50"));
    expect((await shardAvailable(FEES, k)) - feesBefore).toBe(u8("1"));
    // Sent twice: every leg answers "seen".
    const legs = decisionLegs({ id, user_id: user.id, currency_id: USDT, amount: u8("50"), fee: u8("1") }, "chain_success");
    expect(legs.map((l) => l.to)).toEqual([`user:${user.id}`, systemAddress(WITHDRAWALS, k), systemAddress(FEES, k)]);
    await deliverRecordLegs(env, legs);
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("49"), 0n]]);
    expect((await shardAvailable(WITHDRAWALS, k)) - outBefore).toBe(u8("50"));
    expect((await shardAvailable(FEES, k)) - feesBefore).toBe(u8("1"));
    await readModelMatches(user.id);
    await drainObject(systemStub(env, WITHDRAWALS, k));
    const model = await env.DB.prepare("SELECT available FROM system_balances WHERE user_id = ? AND shard = ? AND currency_id = ? AND account = 'change'").bind(WITHDRAWALS, k, USDT).first<{ available: number }>();
    expect(BigInt(model!.available)).toBe(await shardAvailable(WITHDRAWALS, k));
    expect((await statementKinds(user))[0]).toEqual(["withdrawal_sent", "-51.00000000", "-51.00000000", "withdrawal"]);
  });

  it("chain failure gives amount + fee back", async () => {
    const user = await withdrawer();
    const op = await makeOperator();
    const id = (await withdraw(user)).body.message.id as number;
    await api(`/admin/withdrawals/${id}/approve`, { token: op.token, body: {} });
    expect((await api(`/admin/withdrawals/${id}/chain-failure`, { token: op.token, body: { reason: "node rejected the transaction" } })).body.message.status).toBe(3);
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("100"), 0n]]);
    await readModelMatches(user.id);
    expect((await statementKinds(user))[0]).toEqual(["withdrawal_chain_failure", "0.00000000", "-51.00000000", "withdrawal"]);
  });

  it("refuses a withdrawal the balance does not cover: nothing held, nothing recorded", async () => {
    const user = await withdrawer("50.5");
    const r = await withdraw(user);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("insufficient_balance");
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("50.5"), 0n]]);
    expect(await accountStub(env, user.id).accountOpenHolds(user.id)).toEqual([]);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM withdrawals WHERE user_id = ?").bind(user.id).first<{ n: number }>())?.n).toBe(0);
  });

  it("gives the hold back at once when D1 refuses its record, and that record can never be written after", async () => {
    const user = await withdrawer();
    let drawn = 0;
    const failing = holdThenRecord(env, user.id, USDT, u8("10"), (id) => {
      drawn = id;
      // A record D1 refuses (its insert misses required fields).
      return { statements: [env.DB.prepare("INSERT INTO withdrawals (id, user_id) VALUES (?, ?)").bind(id, user.id)], legs: [] };
    });
    await expect(failing).rejects.toThrow();
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("100"), 0n]]);
    expect(await accountStub(env, user.id).accountHold(user.id, `withdrawal:${drawn}`)).toMatchObject({ open: false, released: u8("10") });
    // The hold was claimed as an orphan before it went back: a late copy of the record's batch is refused whole.
    expect(await env.DB.prepare("SELECT state FROM object_hold_claims WHERE hold = ?").bind(`withdrawal:${drawn}`).first()).toEqual({ state: "orphan" });
    await expect(env.DB.batch([claimRecord(env.DB, `withdrawal:${drawn}`, Date.now())])).rejects.toThrow();
  });

  it("explains a pending withdrawal's frozen funds to the reconciler", async () => {
    const user = await withdrawer();
    await withdraw(user);
    await drainObject(accountStub(env, user.id));
    const r = await reconcile(env.DB, holdSourcesOf(), accountReads(env));
    expect(r.differences.filter((d) => "user_id" in d && d.user_id === user.id)).toEqual([]);
  });

  it("sends an in-site withdrawal from the sender's object to the recipient's", async () => {
    const sender = await withdrawer();
    const recipient = await makeUser();
    const addr = (await api("/wallet/get_in_address", { token: recipient.token, body: { currency: USDT } })).body.message.internal.address as string;
    const r = await withdraw(sender, { address: addr, number: "30" });
    expect(r.body).toMatchObject({ type: "ok", message: { status: 5, in_site: true, total: "30.00000000" } });
    const id = r.body.message.id as number;
    expect(await objectBalances(sender.id)).toEqual([["change", USDT, u8("70"), 0n]]);
    expect(await objectBalances(recipient.id)).toEqual([["change", USDT, u8("30"), 0n]]);
    expect(await pendingLegs(`withdrawal:${id}`)).toBe(0);
    await readModelMatches(sender.id);
    await readModelMatches(recipient.id);
    expect((await statementKinds(recipient))[0]).toEqual(["withdrawal_in_site", "30.00000000", "0.00000000", "withdrawal"]);
    // The freeze and its spend at once read as one line, as D1's one movement.
    expect((await statementKinds(sender))[0]).toEqual(["withdrawal_in_site", "-30.00000000", "0.00000000", "withdrawal"]);
    const log = await api("/new/users/rechargeLog", { token: recipient.token });
    expect(log.body.data.lists[0]).toMatchObject({ id, kind: "in_site", amount: "30.00000000" });
  });

  it("releases a hold whose record never came, once, and the record can never come after", async () => {
    const user = await withdrawer();
    const stub = accountStub(env, user.id);
    const orphan = 424242;
    // The Worker died between the hold and the record.
    expect((await stub.accountReserve(user.id, { forKind: "withdrawal", forId: String(orphan), account: "change", currencyId: USDT, amount: u8("20"), owner: RECORD_OWNER })).result).toBe("reserved");
    // A withdrawal whose record is there is known and stays held.
    const id = (await withdraw(user)).body.message.id as number;
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("29"), u8("71")]]);
    expect(await stub.accountSweep(0)).toMatchObject({ known: 1, released: 1 });
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("49"), u8("51")]]);
    expect(await stub.accountSweep(0)).toMatchObject({ known: 0, released: 0 });
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("49"), u8("51")]]);
    expect(await stub.accountHold(user.id, `withdrawal:${id}`)).toMatchObject({ open: true });
    // A late record of the released hold (its batch, with the hold's claim) is refused whole by D1.
    const late = env.DB.batch([
      env.DB.prepare("INSERT INTO withdrawals (id, user_id, currency_id, network, address, memo, amount, fee, freeze_key, created_at) VALUES (?, ?, ?, 1, 'x', '', 20, 0, ?, ?)").bind(orphan, user.id, USDT, `withdrawal:${orphan}`, Date.now()),
      claimRecord(env.DB, `withdrawal:${orphan}`, Date.now()),
    ]);
    await expect(late).rejects.toThrow(/object_hold_claims|UNIQUE|PRIMARY KEY/i);
    expect(await env.DB.prepare("SELECT 1 FROM withdrawals WHERE id = ?").bind(orphan).first()).toBeNull();
    await readModelMatches(user.id);
    expect((await statementKinds(user)).map((l) => l[0])).toContain("withdrawal_reject");
  });
});

describe("deposits on the account objects", () => {
  async function claim(user: TestUser, amount: string) {
    const pic = await uploadImage(user);
    const r = await api("/wallet/charge_req", { token: user.token, body: { currency: USDT, type: "TRC20", acc: USDT_ADDRESS, amount, pic, hash: "abc123" } });
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    return r.body.message.id as number;
  }

  it("credits the user's object from a deposits shard on the operator's approval, once", async () => {
    const user = await makeUser();
    const op = await makeOperator();
    const id = await claim(user, "250");
    const k = shardOf(id);
    const ok = await api(`/admin/deposits/${id}/approve`, { token: op.token, body: { reason: "seen on chain" } });
    expect(ok.body).toMatchObject({ type: "ok", message: { id, status: 1 } });
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("250"), 0n]]);
    expect(await pendingLegs(`deposit:${id}`)).toBe(0);
    // A second approval is refused by D1 and moves nothing; the legs sent again apply nothing.
    expect((await api(`/admin/deposits/${id}/approve`, { token: op.token, body: {} })).body.code).toBe("state_conflict");
    await deliverRecordLegs(env, depositLegs({ id, userId: user.id, currencyId: USDT, amount: u8("250") }));
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("250"), 0n]]);
    // The shard took the money in from outside and paid it: its balance stays 0, its movements say both.
    expect(await shardBalances(DEPOSITS, k)).toEqual([]);
    await drainObject(systemStub(env, DEPOSITS, k));
    const moves = await env.DB.prepare("SELECT ref, d_available FROM system_movements WHERE user_id = ? AND shard = ? AND ref LIKE ? ORDER BY seq").bind(DEPOSITS, k, `deposit:${id}%`).all();
    expect(moves.results).toEqual([
      { ref: `deposit:${id}:in#0`, d_available: Number(u8("250")) },
      { ref: `deposit:${id}:paid#0`, d_available: -Number(u8("250")) },
    ]);
    expect(await d1LedgerRows(user.id)).toBe(0);
    await readModelMatches(user.id);
    expect(await statementKinds(user)).toEqual([["deposit", "250.00000000", "0.00000000", "deposit"]]);
    const inbox = await api("/notifications", { token: user.token });
    expect(JSON.stringify(inbox.body)).toContain("deposit");
  });

  it("a rejection moves nothing", async () => {
    const user = await makeUser();
    const op = await makeOperator();
    const id = await claim(user, "10");
    expect((await api(`/admin/deposits/${id}/reject`, { token: op.token, body: { reason: "no such transaction" } })).body.message.status).toBe(2);
    expect(await objectBalances(user.id)).toEqual([]);
    expect(await pendingLegs(`deposit:${id}`)).toBe(0);
  });

  it("sends again the legs a decision left behind, each applied once", async () => {
    const user = await makeUser();
    const legs = depositLegs({ id: 777001, userId: user.id, currencyId: USDT, amount: u8("5") });
    // The decision's batch committed its legs, and the Worker died before delivering them.
    await env.DB.batch(recordLegsStatements(env.DB, "deposit:777001", legs, Date.now() - 60_000));
    expect(await resendRecordLegs(env)).toEqual({ sent: 3, left: 0 });
    expect(await pendingLegs("deposit:777001")).toBe(0);
    // Written and sent again (a decision's batch replayed): each object answers "seen", nothing moves twice.
    await env.DB.batch(recordLegsStatements(env.DB, "deposit:777001", legs, Date.now() - 60_000));
    expect(await resendRecordLegs(env)).toEqual({ sent: 3, left: 0 });
    expect(await objectBalances(user.id)).toEqual([["change", USDT, u8("5"), 0n]]);
    expect(await shardBalances(DEPOSITS, shardOf(777001))).toEqual([]);
  });
});

describe("conversion on the account objects", () => {
  /** Gives treasury shard `k` some of the house's money (the cut-over's opening; tests credit it). */
  async function fundShard(k: number, currencyId: number, units: bigint) {
    const to = systemAddress(TREASURY, k);
    const key = `test:fund:${k}:${currencyId}:${Date.now()}:${Math.random()}`;
    expect(await systemStub(env, TREASURY, k).systemReceive(TREASURY, k, [{ key, to, ops: [{ t: "credit", kind: "change", cur: String(currencyId), amt: Number(units) }] }])).toEqual(["applied"]);
  }

  /** Treasury shard k's USDT and BTC and fee shard k's USDT, available. */
  const house = async (k: number) => [await shardAvailable(TREASURY, k), await shardAvailable(TREASURY, k, BTC), await shardAvailable(FEES, k)];

  /** 0.1 BTC became 2994 USDT: the treasury shard paid 3000 USDT and took the 0.1 BTC, the fee shard took 6 USDT. */
  async function expectConverted(user: TestUser, k: number, before: bigint[]) {
    expect(await objectBalances(user.id)).toEqual([
      ["change", BTC, u8("0.9"), 0n],
      ["change", USDT, u8("2994"), 0n],
    ]);
    const after = await house(k);
    expect(after.map((v, i) => v - before[i]!)).toEqual([-u8("3000"), u8("0.1"), u8("6")]);
  }

  it("spends the source and credits the target in one keyed operation, the house's side to its shards", async () => {
    const user = await objectTrader("0", "1");
    const k = shardOf(user.id);
    await fundShard(k, USDT, u8("10000"));
    const before = await house(k);
    const r = await api("/user/shandui_sub", { token: user.token, body: { from_currency: BTC, to_currency: USDT, money: "0.1" } });
    expect(r.body).toMatchObject({ type: "ok", message: { money: "0.10000000", money2: "2994.00000000", sxf: "6.00000000", usdt_value: "3000.00000000" } });
    await expectConverted(user, k, before);
    const key = (await env.DB.prepare("SELECT movement_key FROM conversions WHERE user_id = ?").bind(user.id).first<{ movement_key: string }>())!.movement_key;
    expect(await pendingLegs(key)).toBe(0);
    const log = await api("/user/shandui_log", { token: user.token });
    expect(log.body.message.lists.data[0]).toMatchObject({ money: "0.10000000", money2: "2994.00000000", from: "BTC", to: "USDT" });
    expect(await d1LedgerRows(user.id)).toBe(0);
    await readModelMatches(user.id);
    expect((await statementKinds(user, BTC))[0]).toEqual(["conversion", "-0.10000000", "0.00000000", "conversion"]);
  });

  it("executes a quote once, however often it is sent", async () => {
    const user = await objectTrader("0", "1");
    const k = shardOf(user.id);
    await fundShard(k, USDT, u8("10000"));
    const tUsdt = await shardAvailable(TREASURY, k);
    const q = await api("/user/shandui_quote", { token: user.token, body: { from_currency: BTC, to_currency: USDT, money: "0.1" } });
    const quote = q.body.message.quote_id as string;
    expect((await api("/user/shandui_sub", { token: user.token, body: { quote_id: quote } })).body.type).toBe("ok");
    const again = await api("/user/shandui_sub", { token: user.token, body: { quote_id: quote } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("quote_expired");
    // The user's operation itself sent twice answers "seen".
    expect(
      await accountStub(env, user.id).accountConvert(user.id, { key: `conversion:q:${quote}`, from: { account: "change", currencyId: BTC, amount: u8("0.1") }, to: { account: "change", currencyId: USDT, amount: u8("2994") } }),
    ).toBe("seen");
    expect(await objectBalances(user.id)).toEqual([
      ["change", BTC, u8("0.9"), 0n],
      ["change", USDT, u8("2994"), 0n],
    ]);
    expect((await shardAvailable(TREASURY, k)) - tUsdt).toBe(-u8("3000"));
    expect((await env.DB.prepare("SELECT count(*) AS n FROM conversions WHERE user_id = ?").bind(user.id).first<{ n: number }>())?.n).toBe(1);
  });

  it("refuses what the balance or the house's shard does not cover, and nothing moves", async () => {
    const user = await objectTrader("100000", "0.05");
    const k = shardOf(user.id);
    await fundShard(k, USDT, u8("10000"));
    const before = [await shardBalances(TREASURY, k), await shardBalances(FEES, k)];
    const short = await api("/user/shandui_sub", { token: user.token, body: { from_currency: BTC, to_currency: USDT, money: "0.1" } });
    expect(short.status).toBe(409);
    expect(short.body.code).toBe("insufficient_balance");
    // 3 BTC for 90,000 USDT: more than the treasury's shards hold together (this file's conversions
    // left them tenths of a BTC), so the conversion cannot be paid, even with a shard borrowing from its siblings.
    const house = await api("/user/shandui_sub", { token: user.token, body: { from_currency: USDT, to_currency: BTC, money: "90000" } });
    expect(house.status).toBe(409);
    expect(house.body.code).toBe("treasury_insufficient");
    expect(await objectBalances(user.id)).toEqual([
      ["change", BTC, u8("0.05"), 0n],
      ["change", USDT, u8("100000"), 0n],
    ]);
    expect([await shardBalances(TREASURY, k), await shardBalances(FEES, k)]).toEqual(before);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM conversions WHERE user_id = ?").bind(user.id).first<{ n: number }>())?.n).toBe(0);
  });

  /** A quote of 0.1 BTC → USDT, and the treasury's hold a Worker made for it before it died. */
  async function heldQuote(user: TestUser) {
    const k = shardOf(user.id);
    await fundShard(k, USDT, u8("10000"));
    const q = await api("/user/shandui_quote", { token: user.token, body: { from_currency: BTC, to_currency: USDT, money: "0.1" } });
    const quote = q.body.message.quote_id as string;
    const key = `conversion:q:${quote}`;
    expect((await systemStub(env, TREASURY, k).systemReserve(TREASURY, k, { forKind: "conversion", forId: `q:${quote}`, account: "change", currencyId: USDT, amount: u8("3000") })).result).toBe("reserved");
    return { k, quote, key };
  }
  const convert = (user: TestUser, key: string) =>
    accountStub(env, user.id).accountConvert(user.id, { key, from: { account: "change", currencyId: BTC, amount: u8("0.1") }, to: { account: "change", currencyId: USDT, amount: u8("2994") } });
  const later = () => Date.now() + 2 * CONVERSION_GRACE_MS;

  it("gives back the house's hold of a conversion whose Worker died before the user's operation, and it can never run after", async () => {
    const user = await objectTrader("0", "1");
    const { k, quote, key } = await heldQuote(user);
    const funded = await shardAvailable(TREASURY, k);
    const usdtRows = async () => (await systemStub(env, TREASURY, k).systemBalances(TREASURY, k)).filter((b) => b.currencyId === USDT);
    // The every-minute job gives it back.
    expect(JOBS["* * * * *"]).toContain(conversionHoldsJob);
    await conversionHoldsJob.run(env, { cron: "* * * * *", now: later() });
    expect(await usdtRows()).toEqual([{ account: "change", currencyId: USDT, available: funded + u8("3000"), frozen: 0n }]);
    // The late Worker's operation, and the quote sent again, move nothing.
    expect(await convert(user, key)).toBe("void");
    const again = await api("/user/shandui_sub", { token: user.token, body: { quote_id: quote } });
    expect(again.body.code).toBe("quote_expired");
    expect(await objectBalances(user.id)).toEqual([["change", BTC, u8("1"), 0n]]);
    expect(await reconcileConversionHolds(env, later())).toMatchObject({ checked: 0 });
    expect(await usdtRows()).toEqual([{ account: "change", currencyId: USDT, available: funded + u8("3000"), frozen: 0n }]);
  });

  it("books the house's side and the record of a conversion whose Worker died after the user's operation, once", async () => {
    const user = await objectTrader("0", "1");
    const { k, quote, key } = await heldQuote(user);
    // What the shards had before the hold (the hold took 3000 USDT out of available).
    const before = await house(k);
    before[0] += u8("3000");
    expect(await convert(user, key)).toBe("moved");
    expect(await reconcileConversionHolds(env, later())).toMatchObject({ voided: 0, completed: 1 });
    expect(await reconcileConversionHolds(env, later())).toMatchObject({ checked: 0 });
    await expectConverted(user, k, before);
    expect((await env.DB.prepare("SELECT money2 FROM conversions WHERE movement_key = ?").bind(key).first())).toEqual({ money2: Number(u8("2994")) });
    expect((await api("/user/shandui_sub", { token: user.token, body: { quote_id: quote } })).body.code).toBe("quote_expired");
    // Sent again after it was booked: nothing more moves.
    await expectConverted(user, k, before);
  });
});

