/**
 * Notifications of the operator's money and identity decisions (issue #16 §1): a deposit credited
 * or rejected, a withdrawal sent (with its transaction id, which "chain success" now requires) or
 * returned, an identity verification approved or rejected. Each reaches its owner once, even when
 * the decision is posted several times at once, and nobody else.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { api, makeUser, type TestUser } from "./helpers.ts";
import { bal, expectBooksBalanced, FUND_PASSWORD, makeOperator, makeWithdrawer, seedWalletCurrencies, u8, uploadImage, USDT, walletFingerprint } from "./wallet-fixtures.ts";

const USDT_ADDRESS = "DEMO-usdt-trc20-address-not-real-do-not-send";
const WITHDRAW_TO = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";
const TXID = "9f1c2b3a4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);

type Item = { id: number; kind: string; title: string; body: string; link: string; read: boolean };

async function inbox(user: TestUser, lang = "en"): Promise<{ total: number; unread: number; data: Item[] }> {
  const r = await api("/notifications?limit=50", { token: user.token, lang });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.message;
}

async function claim(user: TestUser, amount = "125.5") {
  const pic = await uploadImage(user);
  const r = await api("/wallet/charge_req", { token: user.token, body: { currency: USDT, type: "TRC20", acc: USDT_ADDRESS, amount, pic, hash: "abc123" } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message.id as number;
}

/** The same decision posted `n` times at once: exactly one is applied. */
async function parallel(n: number, path: string, token: string, body: Record<string, unknown>) {
  const results = await Promise.all(Array.from({ length: n }, () => api(path, { token, body })));
  expect(results.filter((r) => r.body.type === "ok"), JSON.stringify(results.map((r) => r.body))).toHaveLength(1);
  return results;
}

describe("deposit notifications", () => {
  it("tells the owner once that a deposit was credited, with the amount, however often the approval is posted at once", async () => {
    const user = await makeUser();
    const other = await makeUser();
    const op = await makeOperator();
    const id = await claim(user);
    await parallel(4, `/admin/deposits/${id}/approve`, op.token, {});
    expect(await bal(user.id, USDT)).toEqual([u8("125.5"), 0n]);
    const mine = await inbox(user);
    expect(mine.total).toBe(1);
    expect(mine.unread).toBe(1);
    expect(mine.data[0]).toMatchObject({ kind: "deposit_credited", title: "Deposit credited", link: "/recharge/log", read: false });
    expect(mine.data[0]!.body).toBe("125.5 USDT has been credited to your spot account.");
    expect((await inbox(user, "zh")).data[0]!.body).toContain("125.5 USDT 已存入");
    expect((await inbox(other)).total).toBe(0);
    expect((await inbox(op)).total).toBe(0);
  });

  it("tells the owner once that a deposit was rejected, with the reason", async () => {
    const user = await makeUser();
    const op = await makeOperator();
    const id = await claim(user, "30");
    await parallel(3, `/admin/deposits/${id}/reject`, op.token, { reason: "No such transfer on chain" });
    const mine = await inbox(user);
    expect(mine.total).toBe(1);
    expect(mine.data[0]).toMatchObject({ kind: "deposit_rejected", title: "Deposit rejected" });
    expect(mine.data[0]!.body).toBe("Your deposit of 30 USDT was rejected: No such transfer on chain");
  });

  it("says nothing at a first approval that waits for a second operator, and once when the second credits it", async () => {
    const user = await makeUser();
    const first = await makeOperator();
    const second = await makeOperator();
    const id = await claim(user, "20000");
    expect((await api(`/admin/deposits/${id}/approve`, { token: first.token, body: {} })).body.message).toMatchObject({ awaiting_second_approval: true });
    expect((await inbox(user)).total).toBe(0);
    expect((await api(`/admin/deposits/${id}/approve`, { token: second.token, body: {} })).body.message).toMatchObject({ status: 1 });
    const mine = await inbox(user);
    expect(mine.data.map((n) => n.kind)).toEqual(["deposit_credited"]);
    expect(mine.data[0]!.body).toContain("20000 USDT");
  });
});

describe("withdrawal notifications", () => {
  async function approved(amount = "50") {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const op = await makeOperator();
    const r = await api("/wallet/out", { token: user.token, body: { currency: USDT, address: WITHDRAW_TO, number: amount, type: 1, password: FUND_PASSWORD } });
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    const id = r.body.message.id as number;
    expect((await api(`/admin/withdrawals/${id}/approve`, { token: op.token, body: {} })).body.type).toBe("ok");
    // Approval is no news for the owner: nothing has left yet.
    expect((await inbox(user)).total).toBe(0);
    return { user, op, id };
  }

  it("tells the owner once that the withdrawal was sent, with the amount, the network and the transaction id", async () => {
    const { user, op, id } = await approved("42.5");
    const other = await makeUser();
    await parallel(3, `/admin/withdrawals/${id}/chain-success`, op.token, { txid: `  ${TXID} ` });
    const mine = await inbox(user);
    expect(mine.total).toBe(1);
    expect(mine.data[0]).toMatchObject({ kind: "withdrawal_sent", title: "Withdrawal sent", link: "/withdrawal/log" });
    expect(mine.data[0]!.body).toBe(`42.5 USDT was sent on TRC20. Transaction id: ${TXID}`);
    expect((await inbox(other)).total).toBe(0);
    const log = await api("/new/users/withdrawalLog", { token: user.token });
    expect(log.body.data.lists[0]).toMatchObject({ status: 2, txid: TXID });
  });

  it("refuses chain success without a sane transaction id, translated, and changes nothing", async () => {
    const { user, op, id } = await approved();
    for (const [body, code] of [
      [{}, "txid_required"],
      [{ txid: "" }, "txid_required"],
      [{ txid: "    " }, "txid_required"],
      [{ txid: "abc" }, "txid_invalid"],
      [{ txid: "0x12-34-56-78" }, "txid_invalid"],
      [{ txid: "a".repeat(129) }, "txid_invalid"],
      [{ txid: 12345678 }, "txid_invalid"],
    ] as const) {
      const before = await walletFingerprint();
      const r = await api(`/admin/withdrawals/${id}/chain-success`, { token: op.token, body, lang: "zh" });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code, JSON.stringify(body)).toBe(code);
      expect(r.body.message).toMatch(/交易哈希/);
      expect(await walletFingerprint()).toBe(before);
    }
    expect((await api(`/admin/withdrawals/${id}/chain-success`, { token: op.token, body: {} })).body.message).toBe("Enter the transaction id of the transfer on chain");
    expect((await inbox(user)).total).toBe(0);
    expect((await env.DB.prepare("SELECT status FROM withdrawals WHERE id = ?").bind(id).first<{ status: number }>())!.status).toBe(1);
  });

  it("tells the owner once that the withdrawal was rejected and the funds are back, with the reason", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const op = await makeOperator();
    const id = (await api("/wallet/out", { token: user.token, body: { currency: USDT, address: WITHDRAW_TO, number: "50", type: 1, password: FUND_PASSWORD } })).body.message.id;
    await parallel(3, `/admin/withdrawals/${id}/reject`, op.token, { reason: "Address on a sanctions list" });
    const mine = await inbox(user);
    expect(mine.total).toBe(1);
    expect(mine.data[0]).toMatchObject({ kind: "withdrawal_rejected", title: "Withdrawal rejected" });
    expect(mine.data[0]!.body).toBe("Your withdrawal of 50 USDT was rejected and the funds are back in your account: Address on a sanctions list");
  });

  it("tells the owner once that a withdrawal failed on chain and the funds are back", async () => {
    const { user, op, id } = await approved();
    await parallel(3, `/admin/withdrawals/${id}/chain-failure`, op.token, { reason: "Node rejected the transaction" });
    const mine = await inbox(user);
    expect(mine.data.map((n) => n.kind)).toEqual(["withdrawal_rejected"]);
    expect(mine.data[0]!.body).toContain("Node rejected the transaction");
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
  });
});

describe("identity verification notifications", () => {
  const level1 = { name: "Li Lei", type: 1, card_id: "110101199003070011" };
  const pendingId = async (userId: number) =>
    (await env.DB.prepare("SELECT id FROM kyc_submissions WHERE user_id = ? AND status = 1").bind(userId).first<{ id: number }>())!.id;

  it("tells the owner once that the verification was approved, with its level", async () => {
    const user = await makeUser();
    const other = await makeUser();
    const op = await makeOperator();
    expect((await api("/user/real_name", { token: user.token, body: level1 })).body.type).toBe("ok");
    const id = await pendingId(user.id);
    await parallel(3, `/admin/kyc/${id}/approve`, op.token, {});
    const mine = await inbox(user);
    expect(mine.total).toBe(1);
    expect(mine.data[0]).toMatchObject({ kind: "kyc_approved", title: "Identity verified", link: "/verifyed" });
    expect(mine.data[0]!.body).toBe("Your identity verification (level 1) was approved.");
    expect((await inbox(other)).total).toBe(0);
  });

  it("tells the owner once that the verification was rejected, with the reason, and again for a later submission", async () => {
    const user = await makeUser();
    const op = await makeOperator();
    await api("/user/real_name", { token: user.token, body: level1 });
    const first = await pendingId(user.id);
    await parallel(3, `/admin/kyc/${first}/reject`, op.token, { reason: "The photo is blurred" });
    let mine = await inbox(user);
    expect(mine.total).toBe(1);
    expect(mine.data[0]).toMatchObject({ kind: "kyc_rejected", title: "Identity verification rejected" });
    expect(mine.data[0]!.body).toBe("Your identity verification (level 1) was rejected: The photo is blurred");
    // A new submission is a new event.
    await api("/user/real_name", { token: user.token, body: level1 });
    await api(`/admin/kyc/${await pendingId(user.id)}/approve`, { token: op.token, body: {} });
    mine = await inbox(user);
    expect(mine.data.map((n) => n.kind)).toEqual(["kyc_approved", "kyc_rejected"]);
  });
});
