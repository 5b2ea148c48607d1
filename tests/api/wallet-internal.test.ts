import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { deriveInternalAddress, inSiteWithdrawal, maskAccount } from "../../worker/domain/wallet/internal-addresses.ts";
import { api, makeUser, onObjects, statementLines, type TestUser } from "./helpers.ts";
import { bal, expectBooksBalanced, FUND_PASSWORD, makeWithdrawer, seedWalletCurrencies, u8, USDT, walletFingerprint } from "./wallet-fixtures.ts";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);

/** Shows the deposit screen to a user, which gives them their internal address. */
async function internalAddress(user: TestUser, lang = "en"): Promise<{ address: string; qrcode: string; tips: string }> {
  const r = await api("/wallet/get_in_address", { token: user.token, body: { currency: USDT }, lang });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message.internal;
}

function withdraw(user: TestUser, address: string, body: Record<string, unknown> = {}) {
  return api("/wallet/out", { token: user.token, body: { currency: USDT, address, number: "50", type: 1, password: FUND_PASSWORD, ...body } });
}

describe("internal addresses", () => {
  it("are stable per user, derived with the pepper, shown with a QR code and translated tips", async () => {
    const user = await makeUser();
    const first = await internalAddress(user);
    const again = await internalAddress(user, "zh");
    expect(first.address).toMatch(/^HX[0-9a-f]{30}$/);
    expect(again.address).toBe(first.address);
    expect(first.address).toBe(await deriveInternalAddress(env.PEPPER, user.id));
    expect(first.qrcode).toMatch(/^data:image\/png;base64,/);
    expect(first.tips).toBe("Transfers from other users of this exchange to this address arrive instantly and free of charge");
    expect(again.tips).toBe("本交易所其他用户向此地址转账即时到账，免手续费");
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM internal_addresses WHERE user_id = ?").bind(user.id).first<{ n: number }>();
    expect(rows!.n).toBe(1);
    const other = await makeUser();
    expect((await internalAddress(other)).address).not.toBe(first.address);
  });

  it("mask the sender's account for the recipient", () => {
    expect(maskAccount("lilei@example.com")).toBe("li***@example.com");
    expect(maskAccount("13800135678")).toBe("138****5678");
  });
});

describe("an in-site withdrawal", () => {
  it("moves exactly the amount at once, without fee, and both sides see it", async () => {
    const sender = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const recipient = await makeUser({ balances: [{ currencyId: USDT, units: u8("1") }] });
    const to = (await internalAddress(recipient)).address;

    const r = await withdraw(sender, to.toUpperCase(), { number: "50", charge: "0" }) // case does not matter;
    expect(r.body, JSON.stringify(r.body)).toMatchObject({
      type: "ok",
      message: { status: 5, status_text: "In-site success", in_site: true, number: "50.00000000", charge: "0.00000000", total: "50.00000000" },
    });
    expect(r.body.message.note).toMatch(/no fee/);
    expect(await bal(sender.id, USDT)).toEqual([u8("50"), 0n]);
    expect(await bal(recipient.id, USDT)).toEqual([u8("51"), 0n]);

    const id = r.body.message.id as number;
    const row = await env.DB.prepare("SELECT status, fee, amount, recipient_user_id, freeze_key, address FROM withdrawals WHERE id = ?").bind(id).first();
    // The row names its money's key: D1's movement, or in objects mode the hold in the sender's object.
    expect(row).toMatchObject({ status: 5, fee: 0, recipient_user_id: recipient.id, freeze_key: onObjects() ? `withdrawal:${id}` : `withdraw-internal:${id}`, address: to });
    // One line each: out of the sender's account, into the recipient's.
    const lines = async (u: TestUser) => (await statementLines(u.token)).filter((l) => l.ref.type === "withdrawal" && l.ref.id === id).map((l) => [l.kind, l.amount, l.held]);
    // In objects mode a freeze and its spend at once, which the statement reads as one line.
    expect(await lines(sender)).toEqual([["withdrawal_in_site", "-50.00000000", "0.00000000"]]);
    expect(await lines(recipient)).toEqual([["withdrawal_in_site", "50.00000000", "0.00000000"]]);

    const log = await api("/new/users/withdrawalLog?page=1", { token: sender.token });
    expect(log.body.data.lists[0]).toMatchObject({ id, status: 5, status_text: "In-site success", in_site: true, charge: "0.00000000", number: "50.00000000", address: to });
    const zh = await api("/new/users/withdrawalLog?page=1", { token: sender.token, lang: "zh" });
    expect(zh.body.data.lists[0].status_text).toBe("站内转账成功");

    const deposits = await api("/new/users/rechargeLog?page=1", { token: recipient.token });
    expect(deposits.body.data.total).toBe(1);
    expect(deposits.body.data.lists[0]).toMatchObject({ kind: "in_site", status: 1, status_text: "Credited", amount: "50.00000000", currency_name: "USDT", pic: "", note: `In-site from ${maskAccount(sender.account)}` });
    // The sender's own deposit log does not show it.
    expect((await api("/new/users/rechargeLog?page=1", { token: sender.token })).body.data.total).toBe(0);
  });

  it("needs no network type, and refuses a non-zero fee confirmation", async () => {
    const sender = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const to = (await internalAddress(await makeUser())).address;
    const before = await walletFingerprint();
    const wrongFee = await withdraw(sender, to, { charge: "1" });
    expect(wrongFee.body).toMatchObject({ code: "fee_mismatch" });
    expect(await walletFingerprint()).toBe(before);
    const r = await withdraw(sender, to, { type: undefined, number: "10" });
    expect(r.body.message).toMatchObject({ status: 5, total: "10.00000000" });
    expect(await bal(sender.id, USDT)).toEqual([u8("90"), 0n]);
  });

  it("refuses one's own internal address and changes nothing", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const own = (await internalAddress(user)).address;
    const before = await walletFingerprint();
    const r = await withdraw(user, own);
    expect(r.body).toMatchObject({ type: "error", code: "self_transfer" });
    expect(await walletFingerprint()).toBe(before);
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
  });

  it("refuses an internal-looking address that belongs to nobody (never sent to a chain)", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const before = await walletFingerprint();
    const r = await withdraw(user, `HX${"0".repeat(30)}`);
    expect(r.body).toMatchObject({ type: "error", code: "address_invalid" });
    expect(await walletFingerprint()).toBe(before);
  });

  it("keeps the checks of a chain withdrawal (bounds, fund password) but needs no bank card, like any coin withdrawal", async () => {
    const to = (await internalAddress(await makeUser())).address;
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    expect((await withdraw(user, to, { number: "1" })).body.code).toBe("below_min");
    expect((await withdraw(user, to, { password: "000000" })).body.code).toBe("fund_password_wrong");
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
    const noBank = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
    await api("/user/fund_password", { token: noBank.token, body: { fund_password: FUND_PASSWORD, re_fund_password: FUND_PASSWORD, login_password: noBank.password } });
    const b = await withdraw(noBank, to);
    expect(b.body.type).toBe("ok");
    expect(b.body.message).toMatchObject({ status: 5, in_site: true });
  });

  it("with an insufficient balance changes nothing", async () => {
    const sender = await makeWithdrawer([{ currencyId: USDT, units: u8("30") }]);
    const recipient = await makeUser();
    const to = (await internalAddress(recipient)).address;
    const before = await walletFingerprint();
    const r = await withdraw(sender, to, { number: "30.00000001" });
    expect(r.body).toMatchObject({ type: "error", code: "insufficient_balance" });
    expect(await walletFingerprint()).toBe(before);
    expect(await bal(sender.id, USDT)).toEqual([u8("30"), 0n]);
    expect(await bal(recipient.id, USDT)).toEqual([0n, 0n]);
  });

  it("is a new withdrawal on every request, each settled once", async () => {
    const sender = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const recipient = await makeUser();
    const to = (await internalAddress(recipient)).address;
    // Concurrent requests race for the next id: the loser's batch writes nothing and takes the next.
    const results = await Promise.all([1, 2, 3, 4].map(() => withdraw(sender, to, { number: "10" })));
    for (const r of results) expect(r.body.message?.status, JSON.stringify(r.body)).toBe(5);
    expect(new Set(results.map((r) => r.body.message.id)).size).toBe(4);
    expect(await bal(sender.id, USDT)).toEqual([u8("60"), 0n]);
    expect(await bal(recipient.id, USDT)).toEqual([u8("40"), 0n]);
    // A third that the balance cannot cover fails whole.
    const before = await walletFingerprint();
    expect((await withdraw(sender, to, { number: "61" })).body.code).toBe("insufficient_balance");
    expect(await walletFingerprint()).toBe(before);
  });

  it("leaves nothing half-written when its batch fails, and the database refuses settled rows it did not make", async () => {
    const sender = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const recipient = await makeUser();
    await internalAddress(recipient);
    // Overdraft inside the batch (called directly, past the route's checks): no movement, no row.
    const before = await walletFingerprint();
    await expect(
      inSiteWithdrawal(env.DB, { senderId: sender.id, recipientId: recipient.id, currencyId: USDT, network: -1, address: "HXx", memo: "", amount: u8("500") }),
    ).rejects.toMatchObject({ key: "insufficient_balance" });
    expect(await walletFingerprint()).toBe(before);
    const movements = await env.DB.prepare("SELECT count(*) AS n FROM movements WHERE key LIKE 'withdraw-internal:%' AND key NOT IN (SELECT freeze_key FROM withdrawals)").first<{ n: number }>();
    expect(movements!.n).toBe(0);
    // Status 5 without a recipient, a fee on an in-site row, or an update to 5: refused by triggers.
    const insert = (status: number, recipient: number | null, fee: number) =>
      env.DB.prepare("INSERT INTO withdrawals (user_id, currency_id, address, amount, fee, status, freeze_key, recipient_user_id, created_at) VALUES (?, ?, 'x', 1, ?, ?, ?, ?, 0)")
        .bind(sender.id, USDT, fee, status, `t:${crypto.randomUUID()}`, recipient)
        .run();
    await expect(insert(5, null, 0)).rejects.toThrow(/state_conflict/);
    await expect(insert(5, recipient.id, 1)).rejects.toThrow(/state_conflict/);
    await expect(insert(5, sender.id, 0)).rejects.toThrow(/state_conflict/);
    await expect(insert(1, null, 0)).rejects.toThrow(/state_conflict/);
    const chain = await withdraw(sender, "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", { number: "10" });
    expect(chain.body.message.status).toBe(0);
    await expect(env.DB.prepare("UPDATE withdrawals SET status = 5 WHERE id = ?").bind(chain.body.message.id).run()).rejects.toThrow(/state_conflict/);
    expect(await bal(sender.id, USDT)).toEqual([u8("89"), u8("11")]);
  });
});
