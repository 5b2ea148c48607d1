/**
 * C2C with balances in the account objects (ACCOUNTS=objects; worker/domain/c2c/objects.ts): the
 * escrow is a hold in the seller's object, the record stays in D1, and each ending of an order
 * (release, cancel, timeout, an appeal either way) is a leg keyed by the order, sent after its D1
 * transition. Every case checks the exact balances in the objects, and the same in D1's read model
 * once drained, with no row in D1's own balances or ledger.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub, sendLegs } from "../../worker/lib/accounts.ts";
import { createAppeal } from "../../worker/domain/c2c/appeals.ts";
import { c2cHolds } from "../../worker/domain/c2c/holds.ts";
import { escrowClaim, orderLegs, withEscrow } from "../../worker/domain/c2c/objects.ts";
import { ApiError } from "../../worker/lib/errors.ts";
import { handleOne, orderRow, transitionOrder } from "../../worker/domain/c2c/orders.ts";
import { c2cExpiryJob } from "../../worker/jobs/c2c-expiry.ts";
import { recordLegsJob } from "../../worker/jobs/record-legs.ts";
import { pendingRecordLegs, recordLegsStatements, resendRecordLegs } from "../../worker/lib/record-legs.ts";
import { api, type TestUser } from "../api/helpers.ts";
import { makeOperator } from "../api/wallet-fixtures.ts";
import { addAlipay, addBankCard, makeTrader, orderState, sameMsSellAdverts, pay, placeOrder, postAdvert, release, seedWalletCurrencies, u8, USDT } from "../api/c2c-fixtures.ts";
import { d1LedgerRows, drainObject, objectBalances, readModel } from "./fixtures.ts";

const WINDOW_MS = 900_000;

beforeAll(seedWalletCurrencies);

/** A verified user whose object was opened with `legal` USDT in the legal account (as the cut-over opens it). */
async function objectTrader(legal: string, realName = "Wang Fang"): Promise<TestUser> {
  const u = await makeTrader("0", { realName });
  if (legal !== "0") await accountStub(env, u.id).accountImport(u.id, [{ account: "legal", currencyId: USDT, available: u8(legal), frozen: 0n }]);
  return u;
}

/** A merchant approved by an operator; the 1,000 USDT deposit is held in their object. */
async function objectMerchant(legal = "11000") {
  const merchant = await objectTrader(legal);
  await addAlipay(merchant);
  await addBankCard(merchant);
  const applied = await api("/c2c/merchant/apply", { token: merchant.token, body: { name: `Obj${merchant.id}` } });
  expect(applied.body.type, JSON.stringify(applied.body)).toBe("ok");
  const operator = await makeOperator();
  const app = await env.DB.prepare("SELECT id FROM c2c_merchants WHERE user_id = ? AND status = 0").bind(merchant.id).first<{ id: number }>();
  const approved = await api(`/admin/c2c/merchants/${app!.id}/approve`, { token: operator.token, body: { reason: "documents checked" } });
  expect(approved.body.type, JSON.stringify(approved.body)).toBe("ok");
  return { merchant, operator, applicationId: app!.id };
}

async function objectTaker(legal = "0") {
  const u = await objectTrader(legal, "Li Lei");
  await addAlipay(u, "13900139000");
  return u;
}

/** [available, frozen] of the legal USDT account in the user's object. */
async function legal(userId: number): Promise<[bigint, bigint]> {
  const row = (await objectBalances(userId)).find((r) => r[0] === "legal" && r[1] === USDT);
  return row ? [row[2] as bigint, row[3] as bigint] : [0n, 0n];
}

/** Drains each user's object; D1's read model then equals the object, and D1's own ledger has nothing of them. */
async function expectReadModel(...users: { id: number }[]) {
  for (const u of users) {
    await drainObject(accountStub(env, u.id));
    expect(await readModel(u.id)).toEqual(await objectBalances(u.id));
    expect(await d1LedgerRows(u.id)).toBe(0);
  }
}

const statementKinds = async (u: TestUser) => {
  const r = await api(`/wallet/statement?currency_id=${USDT}&account=legal`, { token: u.token });
  return (r.body.message.lines as { kind: string }[]).map((l) => l.kind);
};

/** The holds screen's items of the legal USDT account: [purpose, record type, record id, amount]. */
const holdsList = async (u: TestUser) => {
  const groups = (await api("/wallet/holds", { token: u.token })).body.message.groups as { currency_id: number; account: string; frozen: string; holds: { purpose: string; amount: string; ref: { type: string; id: number | null } }[] }[];
  const g = groups.find((x) => x.currency_id === USDT && x.account === "legal");
  return { frozen: g?.frozen ?? "0", holds: (g?.holds ?? []).map((h) => [h.purpose, h.ref.type, h.ref.id, h.amount]) };
};

/** The buyer marks the order paid, the merchant appeals it once they may; answers an operator and the appeal's id. */
async function paidAndAppealed(buyer: TestUser, merchant: TestUser, orderId: number, reason: string) {
  expect((await pay(buyer, orderId)).body.type).toBe("ok");
  const r = (await orderRow(env.DB, orderId))!;
  await createAppeal(env, r, merchant.id, reason, [], r.paid_at! + WINDOW_MS);
  return { op: await makeOperator(), appeal: await appealId(orderId) };
}

async function appealId(orderId: number) {
  return (await env.DB.prepare("SELECT id FROM c2c_appeals WHERE order_id = ?").bind(orderId).first<{ id: number }>())!.id;
}

describe("C2C on the account objects", () => {
  it("sell advert: order → paid → release spends the advert's hold and credits the buyer once; a second release is refused and moves nothing", async () => {
    const { merchant } = await objectMerchant("11000");
    expect(await legal(merchant.id)).toEqual([u8("10000"), u8("1000")]);
    const ad = await postAdvert(merchant);
    expect(await legal(merchant.id)).toEqual([u8("9000"), u8("2000")]);
    const buyer = await objectTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    // The coins stay in the advert's hold while the order runs.
    expect(await legal(merchant.id)).toEqual([u8("9000"), u8("2000")]);
    const { holds, frozen } = await holdsList(merchant);
    expect(frozen).toBe("2000.00000000");
    expect(holds).toEqual(
      expect.arrayContaining([
        ["c2c_deposit", "c2c_merchant", expect.any(Number), "1000.00000000"],
        ["c2c_advert", "c2c_advert", ad.id, "1000.00000000"],
      ]),
    );
    expect(holds).toHaveLength(2);
    // The deposit's and the advert's records claimed their holds: the orphan sweep keeps both.
    expect(await accountStub(env, merchant.id).accountSweep(0)).toMatchObject({ known: 2, released: 0 });
    expect(await legal(merchant.id)).toEqual([u8("9000"), u8("2000")]);
    expect((await pay(buyer, id)).body.type).toBe("ok");
    const released = await release(merchant, id);
    expect(released.body.message).toMatchObject({ is_sure: 1 });
    expect(await legal(merchant.id)).toEqual([u8("9000"), u8("1900")]);
    expect(await legal(buyer.id)).toEqual([u8("100"), 0n]);
    expect(await pendingRecordLegs(env.DB, `c2c_order:${id}`)).toEqual([]);

    const again = await release(merchant, id);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("c2c_order_handled");
    // The same legs delivered again (a retry of the sender): seen, nothing moves twice.
    const legs = orderLegs((await orderRow(env.DB, id))!, "release");
    for (const l of legs) expect(await sendLegs(env, l.to, [l])).toEqual(["seen"]);
    expect(await legal(merchant.id)).toEqual([u8("9000"), u8("1900")]);
    expect(await legal(buyer.id)).toEqual([u8("100"), 0n]);

    await expectReadModel(merchant, buyer);
    expect(await readModel(buyer.id)).toEqual([["legal", USDT, u8("100"), 0n]]);
    expect(await readModel(merchant.id)).toEqual([["legal", USDT, u8("9000"), u8("1900")]]);
    expect(await statementKinds(buyer)).toEqual(["c2c_release"]);
    expect(await statementKinds(merchant)).toEqual(["c2c_release", "c2c_escrow", "c2c_deposit"]);
  });

  it("buy advert: the selling user's coins are held in their object; the buyer's cancel gives them back once", async () => {
    const { merchant } = await objectMerchant("11000");
    const ad = await postAdvert(merchant, { type: "buy" });
    // A buy advert escrows nothing: only the deposit is held.
    expect(await legal(merchant.id)).toEqual([u8("10000"), u8("1000")]);
    const poor = await objectTaker("50");
    const refused = await api("/do_legal_deal", { token: poor.token, body: { id: ad.id, value: "100" } });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("insufficient_balance");
    expect(await legal(poor.id)).toEqual([u8("50"), 0n]);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM c2c_orders WHERE taker_id = ?").bind(poor.id).first<{ n: number }>())?.n).toBe(0);

    const seller = await objectTaker("500");
    const id = await placeOrder(seller, ad.id, "100");
    expect(await legal(seller.id)).toEqual([u8("400"), u8("100")]);
    expect(await holdsList(seller)).toEqual({ frozen: "100.00000000", holds: [["c2c_order", "c2c_order", id, "100.00000000"]] });
    expect(await accountStub(env, seller.id).accountSweep(0)).toMatchObject({ known: 1, released: 0 });
    expect(await legal(seller.id)).toEqual([u8("400"), u8("100")]);
    const cancelled = await api("/legal_deal_cancel_order", { token: merchant.token, body: { id } });
    expect(cancelled.body.type, JSON.stringify(cancelled.body)).toBe("ok");
    expect(await orderState(id)).toMatchObject({ is_sure: 2, cancel_reason: "buyer" });
    expect(await legal(seller.id)).toEqual([u8("500"), 0n]);
    const twice = await api("/legal_deal_cancel_order", { token: merchant.token, body: { id } });
    expect(twice.body.code).toBe("c2c_order_handled");
    expect(await legal(seller.id)).toEqual([u8("500"), 0n]);
    expect(await legal(merchant.id)).toEqual([u8("10000"), u8("1000")]);
    await expectReadModel(seller, merchant, poor);
    expect(await readModel(seller.id)).toEqual([["legal", USDT, u8("500"), 0n]]);
    expect(await statementKinds(seller)).toEqual(["c2c_return", "c2c_escrow"]);
  });

  it("timeout: the expiry job returns an unpaid order's escrow to the seller", async () => {
    const { merchant } = await objectMerchant("11000");
    const ad = await postAdvert(merchant, { type: "buy" });
    const seller = await objectTaker("300");
    const id = await placeOrder(seller, ad.id, "120");
    expect(await legal(seller.id)).toEqual([u8("180"), u8("120")]);
    const r = (await orderRow(env.DB, id))!;
    await c2cExpiryJob(env, r.pay_deadline + 1);
    expect(await orderState(id)).toMatchObject({ is_sure: 2, cancel_reason: "expired" });
    expect(await legal(seller.id)).toEqual([u8("300"), 0n]);
    // The job again: nothing left to expire, nothing moves.
    await c2cExpiryJob(env, r.pay_deadline + 2);
    expect(await legal(seller.id)).toEqual([u8("300"), 0n]);
    await expectReadModel(seller);
    expect(await readModel(seller.id)).toEqual([["legal", USDT, u8("300"), 0n]]);
  });

  it("timeout handled twice from one read (the job and a party's client at once): the second is told it is handled, the escrow goes back once", async () => {
    const { merchant } = await objectMerchant("11000");
    const ad = await postAdvert(merchant);
    const buyer = await objectTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    const r = (await orderRow(env.DB, id))!;
    await handleOne(env, r, buyer.id, r.pay_deadline + 1);
    // Handlers that read the order before the first one acted: handled already, nothing moves.
    await handleOne(env, r, merchant.id, r.pay_deadline + 2);
    await expect(transitionOrder(env, r, "expire", "system", null, { now: r.pay_deadline + 3 })).rejects.toMatchObject({ key: "c2c_order_handled" });
    expect(await orderState(id)).toMatchObject({ is_sure: 2, cancel_reason: "expired" });
    const advert = await env.DB.prepare("SELECT remaining, total FROM c2c_adverts WHERE id = ?").bind(ad.id).first<{ remaining: number; total: number }>();
    expect(advert!.remaining).toBe(advert!.total);
    expect(await legal(merchant.id)).toEqual([u8("9000"), u8("2000")]);
    expect(await legal(buyer.id)).toEqual([0n, 0n]);
    await expectReadModel(merchant, buyer);
  });

  it("appeal decided for the buyer releases the seller's escrow; the other decision after it is refused and moves nothing", async () => {
    const { merchant } = await objectMerchant("11000");
    const ad = await postAdvert(merchant, { type: "buy" });
    const seller = await objectTaker("500");
    const id = await placeOrder(seller, ad.id, "100");
    const { op, appeal } = await paidAndAppealed(merchant, merchant, id, "coins not released");
    const decided = await api(`/admin/c2c/appeals/${appeal}/release`, { token: op.token, body: { reason: "payment shown" } });
    expect(decided.body.message).toEqual({ id: appeal, status: 1 });
    expect(await legal(seller.id)).toEqual([u8("400"), 0n]);
    expect(await legal(merchant.id)).toEqual([u8("10100"), u8("1000")]);
    const other = await api(`/admin/c2c/appeals/${appeal}/return`, { token: op.token, body: { reason: "again" } });
    expect(other.body.code).toBe("c2c_order_handled");
    expect(await legal(seller.id)).toEqual([u8("400"), 0n]);
    expect(await legal(merchant.id)).toEqual([u8("10100"), u8("1000")]);
    await expectReadModel(seller, merchant);
    expect(await readModel(seller.id)).toEqual([["legal", USDT, u8("400"), 0n]]);
    expect(await readModel(merchant.id)).toEqual([["legal", USDT, u8("10100"), u8("1000")]]);
  });

  it("appeal decided for the seller returns the coins into the advert; withdrawing it and leaving give back the advert and the deposit", async () => {
    const { merchant } = await objectMerchant("11000");
    const ad = await postAdvert(merchant);
    const buyer = await objectTaker();
    const id = await placeOrder(buyer, ad.id, "100");
    const { op, appeal } = await paidAndAppealed(buyer, merchant, id, "no money arrived");
    const decided = await api(`/admin/c2c/appeals/${appeal}/return`, { token: op.token, body: { reason: "no payment found" } });
    expect(decided.body.message).toEqual({ id: appeal, status: 2 });
    expect(await orderState(id)).toMatchObject({ is_sure: 2, cancel_reason: "appeal" });
    // Back into the advert: still held at the merchant, the advert's remaining whole again.
    expect(await legal(merchant.id)).toEqual([u8("9000"), u8("2000")]);
    expect(await legal(buyer.id)).toEqual([0n, 0n]);
    expect((await env.DB.prepare("SELECT remaining FROM c2c_adverts WHERE id = ?").bind(ad.id).first<{ remaining: number }>())?.remaining).toBe(Number(u8("1000")));

    expect((await api(`/c2c/adverts/${ad.id}/off`, { token: merchant.token, body: {} })).body.type).toBe("ok");
    const withdrawn = await api(`/c2c/adverts/${ad.id}/withdraw`, { token: merchant.token, body: {} });
    expect(withdrawn.body.type, JSON.stringify(withdrawn.body)).toBe("ok");
    expect(await legal(merchant.id)).toEqual([u8("10000"), u8("1000")]);
    const left = await api("/c2c/merchant/leave", { token: merchant.token, body: {} });
    expect(left.body.type, JSON.stringify(left.body)).toBe("ok");
    expect(await legal(merchant.id)).toEqual([u8("11000"), 0n]);
    await expectReadModel(merchant, buyer);
    expect(await readModel(merchant.id)).toEqual([["legal", USDT, u8("11000"), 0n]]);
    expect(await statementKinds(merchant)).toEqual(["c2c_deposit_release", "c2c_escrow_return", "c2c_escrow", "c2c_deposit"]);
  });

  it("legs a Worker did not send (it died after the transition) are sent by the job, once", async () => {
    const { merchant } = await objectMerchant("11000");
    const ad = await postAdvert(merchant, { type: "buy" });
    const seller = await objectTaker("200");
    const id = await placeOrder(seller, ad.id, "100");
    const r = (await orderRow(env.DB, id))!;
    // The transition's batch committed with its legs, and nothing was sent.
    const at = Date.now() - 60_000;
    await env.DB.batch([
      env.DB.prepare("UPDATE c2c_orders SET is_sure = 2, ended_at = ?, cancel_reason = 'buyer' WHERE id = ?").bind(at, id),
      ...recordLegsStatements(env.DB, `c2c_order:${id}`, orderLegs(r, "return"), at),
    ]);
    expect(await pendingRecordLegs(env.DB, `c2c_order:${id}`)).toEqual([`escrow:${id}:return`]);
    expect(await legal(seller.id)).toEqual([u8("100"), u8("100")]);
    // The reconciler's hold source counts what the unsent legs still hold (the order itself has ended in D1).
    const c2cHeld = async () => (await c2cHolds.load(env.DB)).find((h) => h.userId === seller.id && h.currencyId === USDT)?.units ?? 0n;
    expect(await c2cHeld()).toBe(u8("100"));
    await recordLegsJob.run(env, { cron: "* * * * *", now: Date.now() });
    expect(await c2cHeld()).toBe(0n);
    expect(await pendingRecordLegs(env.DB, `c2c_order:${id}`)).toEqual([]);
    expect(await legal(seller.id)).toEqual([u8("200"), 0n]);
    // The same row once more (as if the delete had been lost): seen, nothing moves.
    await env.DB.batch(recordLegsStatements(env.DB, `c2c_order:${id}`, orderLegs(r, "return"), at));
    expect(await resendRecordLegs(env, Date.now())).toMatchObject({ left: 0 });
    expect(await legal(seller.id)).toEqual([u8("200"), 0n]);
    await expectReadModel(seller);
  });

  it("a hold whose order never came is released by the orphan sweep, and that order can never be written after", async () => {
    const seller = await objectTaker("100");
    const id = 987_654_321;
    const stub = accountStub(env, seller.id);
    await stub.accountReserve(seller.id, { forKind: "c2c_order", forId: String(id), account: "legal", currencyId: USDT, amount: u8("40"), owner: "d1" });
    expect(await legal(seller.id)).toEqual([u8("60"), u8("40")]);
    // Inside the grace nothing is asked.
    expect(await stub.accountSweep(60_000)).toMatchObject({ released: 0 });
    expect(await stub.accountSweep(0)).toMatchObject({ released: 1 });
    expect(await legal(seller.id)).toEqual([u8("100"), 0n]);
    // The order's batch, were it to come now, is refused: its claim of the hold is taken.
    await expect(env.DB.batch([escrowClaim(env.DB, "c2c_order", id, Date.now())])).rejects.toThrow(/UNIQUE/);
    // A sweep again finds nothing to do.
    expect(await stub.accountSweep(0)).toMatchObject({ released: 0 });
    expect(await legal(seller.id)).toEqual([u8("100"), 0n]);
    await expectReadModel(seller);
  });

  it("a record the database refuses after its hold gives the hold back at once, and a failure it cannot be sure of leaves it to the sweep", async () => {
    const seller = await objectTaker("100");
    const escrow = { userId: seller.id, kind: "c2c_order" as const, currencyId: USDT, amount: u8("30"), now: Date.now() };
    const refused = await withEscrow(env, escrow, async () => {
      throw new ApiError("c2c_advert_closed", 409);
    }).catch((e) => e);
    expect(refused).toMatchObject({ key: "c2c_advert_closed" });
    expect(await legal(seller.id)).toEqual([u8("100"), 0n]);
    // A lost answer (the batch may have committed): the hold stays for the orphan sweep to decide.
    await expect(withEscrow(env, escrow, async () => Promise.reject(new Error("network")))).rejects.toThrow("network");
    expect(await legal(seller.id)).toEqual([u8("70"), u8("30")]);
    expect(await accountStub(env, seller.id).accountSweep(0)).toMatchObject({ released: 1 });
    expect(await legal(seller.id)).toEqual([u8("100"), 0n]);
    await expectReadModel(seller);
    expect(await statementKinds(seller)).toEqual(["c2c_return", "c2c_escrow", "c2c_return", "c2c_escrow"]);
  });

  it("sell adverts posted in the same millisecond each get their own id and their own hold", async () => {
    const N = 100;
    const { merchant } = await objectMerchant(String(1000 + N));
    expect(await sameMsSellAdverts(merchant.id, N)).toBe(N);
    // Every advert's coin held once: an id already held in the object is drawn again, never held twice.
    expect(await legal(merchant.id)).toEqual([0n, u8(String(1000 + N))]);
    expect((await holdsList(merchant)).holds).toHaveLength(N + 1);
    await expectReadModel(merchant);
  });

  it("two releases and an appeal's return racing on one order: one outcome, the coins move once", async () => {
    const { merchant } = await objectMerchant("11000");
    const ad = await postAdvert(merchant, { type: "buy" });
    const seller = await objectTaker("500");
    const id = await placeOrder(seller, ad.id, "100");
    const { op, appeal } = await paidAndAppealed(merchant, merchant, id, "coins not released");
    const answers = await Promise.all([
      release(seller, id),
      release(seller, id),
      api(`/admin/c2c/appeals/${appeal}/return`, { token: op.token, body: { reason: "no payment found" } }),
    ]);
    expect(answers.filter((a) => a.body.type === "ok")).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.code)).toEqual(["c2c_order_handled", "c2c_order_handled"]);
    const state = await orderState(id);
    // Released to the buyer (the merchant) or returned to the seller: exactly one of the two, once.
    if (state!.is_sure === 1) {
      expect(await legal(seller.id)).toEqual([u8("400"), 0n]);
      expect(await legal(merchant.id)).toEqual([u8("10100"), u8("1000")]);
    } else {
      expect(state).toMatchObject({ is_sure: 2, cancel_reason: "appeal" });
      expect(await legal(seller.id)).toEqual([u8("500"), 0n]);
      expect(await legal(merchant.id)).toEqual([u8("10000"), u8("1000")]);
    }
    expect(await pendingRecordLegs(env.DB, `c2c_order:${id}`)).toEqual([]);
    await expectReadModel(seller, merchant);
  });
});
