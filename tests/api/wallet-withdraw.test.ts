import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { SYSTEM } from "../../worker/lib/ledger.ts";
import { currentCode } from "../../worker/domain/account/totp.ts";
import { api, makeUser, statementLines, type TestUser } from "./helpers.ts";
import {
  bal,
  BTC,
  expectBooksBalanced,
  FUND_PASSWORD,
  makeOperator,
  makeWithdrawer,
  seedWalletCurrencies,
  u8,
  uploadImage,
  USDT,
  walletFingerprint,
} from "./wallet-fixtures.ts";

const ADDRESS = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);

function withdraw(user: TestUser, body: Record<string, unknown> = {}) {
  return api("/wallet/out", { token: user.token, body: { currency: USDT, address: ADDRESS, number: "50", type: 1, password: FUND_PASSWORD, ...body } });
}

describe("the published fee table", () => {
  it("is public and lists one fee per currency and network", async () => {
    const r = await api("/wallet/fees");
    expect(r.body.type).toBe("ok");
    expect(r.body.message).toEqual(
      expect.arrayContaining([
        { currency_id: USDT, currency: "USDT", network: -1, network_name: "", fee: "1.00000000", min: "10.00000000", max: "1000000.00000000" },
        { currency_id: USDT, currency: "USDT", network: 0, network_name: "ERC20", fee: "5.00000000", min: "20.00000000", max: "1000000.00000000" },
        { currency_id: USDT, currency: "USDT", network: 1, network_name: "TRC20", fee: "1.00000000", min: "10.00000000", max: "1000000.00000000" },
        // A coin other than USDT goes out on its own chain, and says which.
        { currency_id: BTC, currency: "BTC", network: -1, network_name: "Bitcoin", fee: "0.00050000", min: "0.00100000", max: "100.00000000" },
      ]),
    );
  });

  it("shows the balance, the general rate and the network rates before a withdrawal", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("12.5") }]);
    const r = await api("/wallet/get_info", { token: user.token, body: { currency: USDT } });
    expect(r.body.message).toMatchObject({
      currency: USDT,
      currency_name: "USDT",
      change_balance: "12.50000000",
      rate: "1.00000000",
      erc_rate: "5.00000000",
      trc_rate: "1.00000000",
      min: "10.00000000",
      has_fund_password: true,
      has_receiving_info: true,
      totp_enabled: false,
    });
    // The cheaper network first: TRC20 (1 USDT) before ERC20 (5 USDT).
    expect(r.body.message.networks.map((n: any) => n.network_name)).toEqual(["TRC20", "ERC20"]);
  });

  it("uses the general rate for a network whose own fee is zero", async () => {
    await env.DB.batch([
      env.DB.prepare("UPDATE withdrawal_fees SET fee = '2' WHERE currency_id = 3 AND network = -1"),
      env.DB.prepare("UPDATE withdrawal_fees SET fee = '0' WHERE currency_id = 3 AND network = 1"),
    ]);
    try {
      const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
      const info = await api("/wallet/get_info", { token: user.token, body: { currency: USDT } });
      expect(info.body.message).toMatchObject({ rate: "2.00000000", trc_rate: "2.00000000", erc_rate: "5.00000000" });
      const r = await withdraw(user, { number: "20" });
      expect(r.body.message).toMatchObject({ charge: "2.00000000", total: "22.00000000" });
    } finally {
      await env.DB.batch([
        env.DB.prepare("UPDATE withdrawal_fees SET fee = '1' WHERE currency_id = 3 AND network = -1"),
        env.DB.prepare("UPDATE withdrawal_fees SET fee = '1' WHERE currency_id = 3 AND network = 1"),
      ]);
    }
  });
});

describe("a withdrawal request", () => {
  it("freezes the amount plus the published fee and records an applying withdrawal", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const r = await withdraw(user);
    expect(r.body).toMatchObject({ type: "ok", message: { status: 0, status_text: "Applying", number: "50.00000000", charge: "1.00000000", total: "51.00000000" } });
    expect(await bal(user.id, USDT)).toEqual([u8("49"), u8("51")]);
    const log = await api("/new/users/withdrawalLog?page=1", { token: user.token });
    expect(log.body.status).toBe(1);
    expect(log.body.data.total).toBe(1);
    expect(log.body.data.lists[0]).toMatchObject({
      address: ADDRESS,
      number: "50.00000000",
      rate: "1.00000000",
      charge: "1.00000000",
      real_number: "50.00000000",
      status: 0,
      status_text: "Applying",
      network_name: "TRC20",
    });
    expect(log.body.data.lists[0].time_format).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it("uses the ERC20 fee on the ERC20 network", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const r = await withdraw(user, { type: 0, number: "20" });
    expect(r.body.message).toMatchObject({ charge: "5.00000000", total: "25.00000000" });
  });

  it("withdraws a coin without any bank card (the receiving-account gate is for fiat only)", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
    await api("/user/fund_password", { token: user.token, body: { fund_password: FUND_PASSWORD, re_fund_password: FUND_PASSWORD, login_password: user.password } });
    const r = await withdraw(user);
    expect(r.body.type).toBe("ok");
    expect(r.body.message).toMatchObject({ status: 0, charge: "1.00000000", total: "51.00000000" });
    expect(await bal(user.id, USDT)).toEqual([u8("49"), u8("51")]);
  });

  it("withdraws every listed coin on its own chain, not only USDT: BTC with the BTC fee", async () => {
    const user = await makeWithdrawer([{ currencyId: BTC, units: u8("1") }]);
    const info = await api("/wallet/get_info", { token: user.token, body: { currency: BTC } });
    expect(info.body.message).toMatchObject({ currency_name: "BTC", rate: "0.00050000", networks: [] });
    const r = await api("/wallet/out", { token: user.token, body: { currency: BTC, address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", number: "0.1", password: FUND_PASSWORD } });
    expect(r.body.message).toMatchObject({ charge: "0.00050000", total: "0.10050000" });
    expect(await bal(user.id, BTC)).toEqual([u8("0.8995"), u8("0.1005")]);
  });

  it("names the network of a coin's own chain on the form, in the record and in the operator's queue (BTC: Bitcoin)", async () => {
    const user = await makeWithdrawer([{ currencyId: BTC, units: u8("1") }]);
    const info = await api("/wallet/get_info", { token: user.token, body: { currency: BTC } });
    expect(info.body.message.fees[0]).toMatchObject({ type: -1, network_name: "Bitcoin" });
    const r = await api("/wallet/out", { token: user.token, body: { currency: BTC, address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", number: "0.1", password: FUND_PASSWORD } });
    expect(r.body.type).toBe("ok");
    const log = await api("/new/users/withdrawalLog?page=1", { token: user.token });
    expect(log.body.data.lists[0]).toMatchObject({ currency_name: "BTC", network: -1, network_name: "Bitcoin" });
    const op = await makeOperator();
    const queue = await api(`/admin/withdrawals?status=0&user_id=${user.id}`, { token: op.token });
    expect(queue.body.message.lists[0]).toMatchObject({ id: r.body.message.id, network_name: "Bitcoin", address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq" });
    // USDT has no chain of its own: its general row stays unnamed and its networks are ERC20 / TRC20.
    const usdt = await api("/wallet/get_info", { token: user.token, body: { currency: USDT } });
    expect(usdt.body.message.fees.map((f: { network_name: string }) => f.network_name)).toEqual(["", "ERC20", "TRC20"]);
  });

  it("needs a fund password: fund_password_required when none is set, fund_password_wrong for a wrong one", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
    await api("/user/cash_save", { token: user.token, body: { real_name: "Li Lei", bank_account: "6228480402564890018" } });
    expect((await withdraw(user)).body.code).toBe("fund_password_required");
    await api("/user/fund_password", { token: user.token, body: { fund_password: FUND_PASSWORD, login_password: user.password } });
    const wrong = await withdraw(user, { password: "000000" });
    expect(wrong.body).toMatchObject({ code: "fund_password_wrong", message: "The fund password is wrong" });
    expect((await withdraw(user, { password: undefined })).body).toMatchObject({ code: "missing_field" });
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
  });

  it("stops guessing the fund password after five wrong tries", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    for (let i = 0; i < 5; i++) expect((await withdraw(user, { password: `00000${i}` })).body.code).toBe("fund_password_wrong");
    const r = await withdraw(user);
    expect(r.status).toBe(429);
    expect(r.body.code).toBe("too_many_requests");
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
  });

  it.each([
    ["an address with a space", { address: "TQn9Y2k hEsLJW1" }, "address_invalid"],
    ["an empty address", { address: "" }, "address_invalid"],
    ["a negative amount", { number: "-50" }, "amount_positive"],
    ["a zero amount", { number: "0" }, "amount_positive"],
    ["more decimals than the currency has", { number: "50.000000001" }, "too_many_decimals"],
    ["a huge amount", { number: "1000000000000000000000" }, "amount_too_large"],
    ["an amount below the minimum", { number: "9.99" }, "below_min"],
    ["an amount above the maximum", { number: "1000000.00000001" }, "above_max"],
    ["a client fee that differs from the table", { charge: "0.5" }, "fee_mismatch"],
    ["a client rate that differs from the table", { rate: "5" }, "fee_mismatch"],
    ["no network for USDT", { type: undefined }, "missing_field"],
    ["an unknown network", { type: 7 }, "invalid_param"],
  ])("refuses %s with a translated error and no ledger change", async (_name, patch, code) => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const before = await walletFingerprint();
    const r = await withdraw(user, patch);
    expect(r.body.type).toBe("error");
    expect(r.body.code).toBe(code);
    expect(await walletFingerprint()).toBe(before);
  });

  it("names the bound it refuses", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    expect((await withdraw(user, { number: "5" })).body.message).toBe("The amount is below the minimum of 10.00000000 USDT");
    expect((await withdraw(user, { charge: "3" })).body.message).toBe("The fee is now 1.00000000 USDT; please check and submit again");
  });

  it("accepts the fee the client showed when it matches the table", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    expect((await withdraw(user, { charge: "1", rate: "1.0" })).body.type).toBe("ok");
  });

  it("refuses more than the available balance counting the fee, and changes nothing", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const before = await walletFingerprint();
    const r = await withdraw(user, { number: "99.5" });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("insufficient_balance");
    expect(await walletFingerprint()).toBe(before);
  });

  it("asks for the authenticator code when the user enabled one, and accepts each code once", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const enrol = await api("/user/totp/enrol", { token: user.token, method: "POST" });
    const secret = enrol.body.message.secret as string;
    expect((await api("/user/totp/confirm", { token: user.token, body: { code: currentCode(secret) } })).body.type).toBe("ok");
    expect((await withdraw(user, { number: "20" })).body.code).toBe("totp_required");
    const next = currentCode(secret, Date.now() + 30_000);
    expect((await withdraw(user, { number: "20", totp_code: next })).body.type).toBe("ok");
    expect((await withdraw(user, { number: "20", totp_code: next })).body.code).toBe("totp_wrong");
    expect(await bal(user.id, USDT)).toEqual([u8("79"), u8("21")]);
  });

  it("lists only the caller's own withdrawals", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const other = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    await withdraw(other);
    expect((await api("/new/users/withdrawalLog", { token: user.token })).body.data).toEqual({ total: 0, lists: [] });
  });
});

describe("the withdrawal lifecycle", () => {
  async function requested(amount = "50") {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const id = (await withdraw(user, { number: amount })).body.message.id as number;
    return { user, id };
  }

  it("approve then chain success sends the amount out and the fee to the fee account", async () => {
    const op = await makeOperator();
    const { user, id } = await requested();
    const [outBefore] = await bal(SYSTEM.withdrawals, USDT);
    const [feesBefore] = await bal(SYSTEM.fees, USDT);
    const queue = await api("/admin/withdrawals?status=0", { token: op.token });
    expect(queue.body.message.lists.find((w: any) => w.id === id)).toMatchObject({ account: user.account, address: ADDRESS, number: "50.00000000", charge: "1.00000000", total: "51.00000000" });
    expect((await api(`/admin/withdrawals/${id}/approve`, { token: op.token, body: {} })).body.message).toEqual({ id, status: 1 });
    expect(await bal(user.id, USDT)).toEqual([u8("49"), u8("51")]);
    const sent = await api(`/admin/withdrawals/${id}/chain-success`, { token: op.token, body: { txid: "0xabc123" } });
    expect(sent.body.message).toEqual({ id, status: 2 });
    expect(await bal(user.id, USDT)).toEqual([u8("49"), 0n]);
    expect((await bal(SYSTEM.withdrawals, USDT))[0] - outBefore).toBe(u8("50"));
    expect((await bal(SYSTEM.fees, USDT))[0] - feesBefore).toBe(u8("1"));
    const log = await api("/new/users/withdrawalLog", { token: user.token });
    expect(log.body.data.lists[0]).toMatchObject({ status: 2, status_text: "Chain success", txid: "0xabc123" });
    const audit = await env.DB.prepare("SELECT operator_id, action FROM audit_log WHERE target_type = 'withdrawal' AND target_id = ? ORDER BY id").bind(String(id)).all();
    expect(audit.results).toEqual([
      { operator_id: op.id, action: "withdrawal.approve" },
      { operator_id: op.id, action: "withdrawal.chain_success" },
    ]);
  });

  it("chain failure returns the amount and the fee to the user", async () => {
    const op = await makeOperator();
    const { user, id } = await requested();
    await api(`/admin/withdrawals/${id}/approve`, { token: op.token, body: {} });
    expect((await api(`/admin/withdrawals/${id}/chain-failure`, { token: op.token, body: {} })).body.code).toBe("reason_required");
    const r = await api(`/admin/withdrawals/${id}/chain-failure`, { token: op.token, body: { reason: "node rejected the transaction" } });
    expect(r.body.message.status).toBe(3);
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
    const log = await api("/new/users/withdrawalLog", { token: user.token, lang: "jp" });
    expect(log.body.data.lists[0]).toMatchObject({ status: 3, status_text: "チェーン失敗", reason: "node rejected the transaction" });
  });

  it("rejection returns the funds and stores the reason", async () => {
    const op = await makeOperator();
    const { user, id } = await requested();
    const r = await api(`/admin/withdrawals/${id}/reject`, { token: op.token, body: { reason: "address on a sanctions list" } });
    expect(r.body.message.status).toBe(4);
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
    const audit = await env.DB.prepare("SELECT operator_id, action, reason FROM audit_log WHERE target_type = 'withdrawal' AND target_id = ?").bind(String(id)).first();
    expect(audit).toEqual({ operator_id: op.id, action: "withdrawal.reject", reason: "address on a sanctions list" });
  });

  it("refuses every transition outside the state machine and changes nothing", async () => {
    const op = await makeOperator();
    const { id } = await requested();
    const tryAction = async (action: string) => {
      const before = await walletFingerprint();
      const r = await api(`/admin/withdrawals/${id}/${action}`, { token: op.token, body: { reason: "x", txid: "0xabc123def" } });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe("state_conflict");
      expect(await walletFingerprint()).toBe(before);
    };
    await tryAction("chain-success");
    await tryAction("chain-failure");
    await api(`/admin/withdrawals/${id}/approve`, { token: op.token, body: {} });
    await tryAction("approve");
    await tryAction("reject");
    await api(`/admin/withdrawals/${id}/chain-success`, { token: op.token, body: { txid: "0xabc123def" } });
    await tryAction("chain-success");
    await tryAction("chain-failure");
    await tryAction("reject");
  });

  it("pays out once when two chain successes race", async () => {
    const op = await makeOperator();
    const { user, id } = await requested();
    await api(`/admin/withdrawals/${id}/approve`, { token: op.token, body: {} });
    const [outBefore] = await bal(SYSTEM.withdrawals, USDT);
    const results = await Promise.all([1, 2, 3].map(() => api(`/admin/withdrawals/${id}/chain-success`, { token: op.token, body: { txid: "0xabc123def" } })));
    expect(results.filter((r) => r.body.type === "ok")).toHaveLength(1);
    expect((await bal(SYSTEM.withdrawals, USDT))[0] - outBefore).toBe(u8("50"));
    expect(await bal(user.id, USDT)).toEqual([u8("49"), 0n]);
  });

  it("is driven by operators only", async () => {
    const { user, id } = await requested();
    const before = await walletFingerprint();
    const r = await api(`/admin/withdrawals/${id}/approve`, { token: user.token, body: {} });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: "no_permission", message: "No permission" });
    expect(await walletFingerprint()).toBe(before);
  });
});

describe("honest withdrawals", () => {
  it("charges a user who deposited, traded nothing and withdraws everything exactly the published fee", async () => {
    const op = await makeOperator();
    const user = await makeWithdrawer();
    const pic = await uploadImage(user);
    const dep = await api("/wallet/charge_req", {
      token: user.token,
      body: { currency: USDT, type: "TRC20", acc: "DEMO-usdt-trc20-address-not-real-do-not-send", amount: "10000", pic, hash: "f00d" },
    });
    await api(`/admin/deposits/${dep.body.message.id}/approve`, { token: op.token, body: {} });
    expect(await bal(user.id, USDT)).toEqual([u8("10000"), 0n]);

    const [feesBefore] = await bal(SYSTEM.fees, USDT);
    const [outBefore] = await bal(SYSTEM.withdrawals, USDT);
    const fee = (await api("/wallet/get_info", { token: user.token, body: { currency: USDT } })).body.message.trc_rate;
    expect(fee).toBe("1.00000000");
    const r = await withdraw(user, { number: "9999", charge: fee });
    expect(r.body.message).toMatchObject({ number: "9999.00000000", charge: "1.00000000", total: "10000.00000000" });
    const id = r.body.message.id;
    await api(`/admin/withdrawals/${id}/approve`, { token: op.token, body: {} });
    await api(`/admin/withdrawals/${id}/chain-success`, { token: op.token, body: { txid: "0xabc123def" } });

    expect(await bal(user.id, USDT)).toEqual([0n, 0n]);
    expect((await bal(SYSTEM.withdrawals, USDT))[0] - outBefore).toBe(u8("9999"));
    expect((await bal(SYSTEM.fees, USDT))[0] - feesBefore).toBe(u8("1"));
    // Nothing else ever touched the user's money: no tax, turnover gate, penalty or VIP fee.
    expect((await statementLines(user.token)).map((l) => l.kind).reverse()).toEqual(["deposit", "withdrawal_freeze", "withdrawal_sent"]);
  });
});

describe("the withdrawal address book", () => {
  it("adds, lists and deletes the caller's own addresses with letters-and-digits labels", async () => {
    const user = await makeUser();
    const added = await api("/user/addresses", { token: user.token, body: { currency: USDT, address: ADDRESS, label: "Cold1", memo: "123", type: 1 } });
    expect(added.body.message).toMatchObject({ currency_id: USDT, network: 1, address: ADDRESS, label: "Cold1", memo: "123" });
    const btc = await api("/user/addresses", { token: user.token, body: { currency: BTC, address: "bc1qexampleaddress0", label: "Hot" } });
    expect(btc.body.message.network).toBe(-1);
    const all = await api("/user/addresses", { token: user.token });
    expect(all.body.message).toHaveLength(2);
    const usdtOnly = await api(`/user/addresses?currency=${USDT}`, { token: user.token });
    expect(usdtOnly.body.message).toHaveLength(1);
    expect(usdtOnly.body.message[0]).toMatchObject({ label: "Cold1", network_name: "TRC20", currency_name: "USDT" });
    expect((await api("/user/addresses/delete", { token: user.token, body: { id: added.body.message.id } })).body.type).toBe("ok");
    expect((await api("/user/addresses", { token: user.token })).body.message).toHaveLength(1);
  });

  it("keeps addresses private: another user sees none and deleting one answers 404", async () => {
    const owner = await makeUser();
    const other = await makeUser();
    const id = (await api("/user/addresses", { token: owner.token, body: { currency: BTC, address: "bc1qprivate" } })).body.message.id;
    expect((await api("/user/addresses", { token: other.token })).body.message).toEqual([]);
    const del = await api("/user/addresses/delete", { token: other.token, body: { id } });
    expect(del.status).toBe(404);
    expect(del.body.code).toBe("not_found");
    expect((await api("/user/addresses", { token: owner.token })).body.message).toHaveLength(1);
  });

  it.each([
    ["a label with a space", { label: "my wallet" }, "label_invalid"],
    ["a label with Chinese characters", { label: "钱包" }, "label_invalid"],
    ["a memo with punctuation", { memo: "12-34" }, "label_invalid"],
    ["an address with a space", { address: "bc1q abc" }, "address_invalid"],
  ])("refuses %s", async (_name, patch, code) => {
    const user = await makeUser();
    const r = await api("/user/addresses", { token: user.token, body: { currency: BTC, address: "bc1qok", ...patch } });
    expect(r.body.code).toBe(code);
  });

  it("refuses the same address twice and a USDT address without its network", async () => {
    const user = await makeUser();
    await api("/user/addresses", { token: user.token, body: { currency: BTC, address: "bc1qtwice" } });
    expect((await api("/user/addresses", { token: user.token, body: { currency: BTC, address: "bc1qtwice" } })).body.code).toBe("address_exists");
    expect((await api("/user/addresses", { token: user.token, body: { currency: USDT, address: ADDRESS } })).body).toMatchObject({ code: "missing_field" });
  });
});
