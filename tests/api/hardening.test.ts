/**
 * The holes an outside security test found, tried as an attacker would: operators crediting
 * themselves, parallel guesses outrunning the counters, SQL patterns that D1 refuses, and the
 * answers' cache and content-type headers. Password hashing under concurrency, at the production
 * cost, is in hardening-hashing.test.ts (the slowest part, so it runs beside this file).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import worker from "../../worker/index.ts";
import { api, dbFingerprint, makeUser, type TestUser } from "./helpers.ts";
import { bal, expectBooksBalanced, FUND_PASSWORD, makeOperator, makeWithdrawer, seedWalletCurrencies, setPrice, u8, uploadImage, USDT, BTC } from "./wallet-fixtures.ts";

const USDT_ADDRESS = "DEMO-usdt-trc20-address-not-real-do-not-send";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);

/** Calls the Worker with configuration overrides (what another deployment would set). */
async function apiWith(vars: Partial<Env>, path: string, opts: { body?: unknown; token?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { lang: "en", ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = opts.token;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://exchange.test/api${path}`, { method: opts.body !== undefined ? "POST" : "GET", headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }),
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

async function claim(user: TestUser, amount: string, currency = USDT, vars: Partial<Env> = {}, picture?: string) {
  const pic = picture ?? (await uploadImage(user));
  const acc = currency === USDT ? USDT_ADDRESS : undefined;
  const address = acc ?? (await env.DB.prepare("SELECT address FROM deposit_addresses WHERE currency_id = ? AND enabled = 1").bind(currency).first<{ address: string }>())!.address;
  return apiWith(vars, "/wallet/charge_req", { token: user.token, body: { currency, type: "", acc: address, amount, pic, hash: "abc123" } });
}

/** Money and decision state (not the audit log, which records the refusals). */
async function moneyFingerprint(): Promise<string> {
  const states = await env.DB.prepare(
    "SELECT (SELECT group_concat(id || ':' || status || ':' || coalesce(first_approved_by, '-')) FROM deposits) d, (SELECT group_concat(status) FROM withdrawals) w, (SELECT group_concat(status) FROM kyc_submissions) k, (SELECT count(*) FROM balance_adjustments) a",
  ).first();
  return `${await dbFingerprint()},${JSON.stringify(states)}`;
}

/** A user with a fund password, a bank card and a pending withdrawal, then made an operator. */
async function operatorWithOwnWithdrawal() {
  const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
  const w = await api("/wallet/out", { token: user.token, body: { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "10", type: 1, password: FUND_PASSWORD } });
  expect(w.body.type, JSON.stringify(w.body)).toBe("ok");
  await env.DB.prepare("UPDATE users SET role = 'operator' WHERE id = ?").bind(user.id).run();
  const row = await env.DB.prepare("SELECT id FROM withdrawals WHERE user_id = ?").bind(user.id).first<{ id: number }>();
  return { op: user, withdrawalId: row!.id };
}

async function auditRows(operatorId: number, action: string) {
  const { results } = await env.DB.prepare("SELECT * FROM audit_log WHERE operator_id = ? AND action = ? ORDER BY id").bind(operatorId, action).all<{ reason: string; target_id: string }>();
  return results;
}

describe("no operator credits themselves", () => {
  it("refuses an operator's own deposit claim, withdrawal and trade while operator money is off, and audits each refusal", async () => {
    const op = await makeUser({ role: "operator", verified: 2, balances: [{ currencyId: USDT, units: u8("100") }] });
    const pic = await uploadImage(op);
    const before = await moneyFingerprint();
    const dep = await claim(op, "50", USDT, {}, pic);
    expect(dep.status).toBe(403);
    expect(dep.body).toMatchObject({ code: "operator_money_off", message: "Operator accounts cannot trade, deposit or withdraw" });
    const out = await api("/wallet/out", { token: op.token, body: { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "10", type: 1, password: FUND_PASSWORD } });
    expect(out.body.code).toBe("operator_money_off");
    const buy = await api("/transaction/walletIn", { token: op.token, lang: "zh", body: { currency_id: 1, legal_id: 3, price: "100", num: "0.1", mode: 2 } });
    expect(buy.body).toMatchObject({ code: "operator_money_off", message: "操作员账户不能交易、充值或提现" });
    expect(await moneyFingerprint()).toBe(before);
    expect(await auditRows(op.id, "operator.money.refused")).toHaveLength(3);
  });

  it("never lets an operator approve their own deposit claim, even where operators may deposit", async () => {
    const on = { OPERATOR_MONEY: "on" };
    const op = await makeOperator();
    const dep = await claim(op, "50", USDT, on);
    expect(dep.body.type).toBe("ok");
    const before = await moneyFingerprint();
    const r = await api(`/admin/deposits/${dep.body.message.id}/approve`, { token: op.token, body: { reason: "looks fine" } });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: "own_record", message: "Operators cannot review or decide anything about their own account" });
    expect((await api(`/admin/deposits/${dep.body.message.id}/reject`, { token: op.token, body: { reason: "x" } })).body.code).toBe("own_record");
    expect(await moneyFingerprint()).toBe(before);
    expect(await bal(op.id, USDT)).toEqual([0n, 0n]);
    expect((await auditRows(op.id, "deposit.approve.refused")).map((a) => a.reason)).toEqual(["own_record"]);
    expect(await auditRows(op.id, "deposit.reject.refused")).toHaveLength(1);
    // The console marks it as the operator's own and offers no decision.
    const listed = await api("/admin/deposits?status=0", { token: op.token });
    expect(listed.body.message.lists.find((d: any) => d.id === dep.body.message.id)).toMatchObject({ own: true });
    // Another operator may decide it.
    const other = await makeOperator();
    expect((await api(`/admin/deposits/${dep.body.message.id}/approve`, { token: other.token, body: {} })).body.message).toMatchObject({ status: 1 });
    expect(await bal(op.id, USDT)).toEqual([u8("50"), 0n]);
  });

  it("is refused by the database too: no statement can record an operator's decision on their own records", async () => {
    const op = await makeUser({ role: "operator", verified: 2 });
    const dep = await claim(op, "5", USDT, { OPERATOR_MONEY: "on" });
    const id = dep.body.message.id;
    await expect(env.DB.prepare("UPDATE deposits SET status = 2, reviewed_by = ?, reason = 'x' WHERE id = ?").bind(op.id, id).run()).rejects.toThrow(/own_record/);
    await expect(env.DB.prepare("UPDATE deposits SET first_approved_by = ? WHERE id = ?").bind(op.id, id).run()).rejects.toThrow(/own_record/);
    await expect(
      env.DB.prepare("INSERT INTO balance_adjustments (user_id, currency_id, account, amount, reason, requested_by, created_at) VALUES (?, 3, 'change', 1, 'x', ?, 0)").bind(op.id, op.id).run(),
    ).rejects.toThrow(/own_record/);
  });

  it("never lets an operator decide their own withdrawal or identity submission", async () => {
    const { op, withdrawalId } = await operatorWithOwnWithdrawal();
    const k = await env.DB.prepare("INSERT INTO kyc_submissions (user_id, level, name, status, created_at) VALUES (?, 1, 'Op Self', 1, ?) RETURNING id").bind(op.id, Date.now()).first<{ id: number }>();
    const w = { id: withdrawalId };
    for (const path of [`/admin/withdrawals/${w!.id}/approve`, `/admin/withdrawals/${w!.id}/reject`, `/admin/kyc/${k!.id}/approve`]) {
      const r = await api(path, { token: op.token, body: { reason: "mine" } });
      expect(r.body.code, path).toBe("own_record");
    }
    expect(await auditRows(op.id, "withdrawal.approve.refused")).toHaveLength(1);
    expect(await auditRows(op.id, "kyc.approve.refused")).toHaveLength(1);
    const state = await env.DB.prepare("SELECT (SELECT status FROM withdrawals WHERE id = ?) AS w, (SELECT status FROM kyc_submissions WHERE id = ?) AS k").bind(w!.id, k!.id).first();
    expect(state).toEqual({ w: 0, k: 1 });
    // Another operator decides it (and the books stay balanced).
    expect((await api(`/admin/withdrawals/${w.id}/reject`, { token: (await makeOperator()).token, body: { reason: "test" } })).body.message).toMatchObject({ status: 4 });
  });

  it("needs a second, different operator to credit a deposit above the limit, and one for a small one", async () => {
    const [a, b] = [await makeOperator(), await makeOperator()];
    const user = await makeUser();
    const big = await claim(user, "20000");
    const small = await claim(user, "100");
    const id = big.body.message.id;

    const first = await api(`/admin/deposits/${id}/approve`, { token: a.token, body: { reason: "chain checked" } });
    expect(first.body.message).toEqual({ id, status: 0, awaiting_second_approval: true });
    expect(await bal(user.id, USDT)).toEqual([0n, 0n]);
    const listed = await api("/admin/deposits?status=0", { token: b.token });
    expect(listed.body.message.lists.find((d: any) => d.id === id)).toMatchObject({ needs_second: true, awaiting_second_approval: true, first_approved_by: a.id, approved_first_by_you: false });
    const mine = await api("/admin/deposits?status=0", { token: a.token });
    expect(mine.body.message.lists.find((d: any) => d.id === id)).toMatchObject({ approved_first_by_you: true });

    const again = await api(`/admin/deposits/${id}/approve`, { token: a.token, body: {} });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("self_review");
    expect(await bal(user.id, USDT)).toEqual([0n, 0n]);

    const second = await api(`/admin/deposits/${id}/approve`, { token: b.token, body: {} });
    expect(second.body.message).toEqual({ id, status: 1, awaiting_second_approval: false });
    expect((await api(`/admin/deposits/${small.body.message.id}/approve`, { token: a.token, body: {} })).body.message).toMatchObject({ status: 1 });
    expect(await bal(user.id, USDT)).toEqual([u8("20100"), 0n]);
    const audit = await api(`/admin/audit?target_type=deposit&target_id=${id}`, { token: a.token });
    expect(audit.body.message.lists.map((r: any) => [r.operator_id, r.action])).toEqual([
      [b.id, "deposit.approve"],
      [a.id, "deposit.approve.refused"],
      [a.id, "deposit.approve_first"],
    ]);
    // Readable for a person: the deposit's owner and amount (not minimal units), the first approver by name.
    expect(audit.body.message.lists[0]).toMatchObject({
      subject: { id: user.id, account: user.account },
      amount: { value: "20000.00000000", currency: "USDT" },
      detail: { amount: String(u8("20000")) },
      accounts: { [String(a.id)]: a.account },
    });
  });

  it("values a coin deposit at the last traded price, and needs two operators when the coin has no price", async () => {
    const [a, b] = [await makeOperator(), await makeOperator()];
    const user = await makeUser();
    await setPrice(BTC, "60000");
    const cheap = await claim(user, "0.1", BTC); // 6,000 USDT
    const dear = await claim(user, "0.2", BTC); // 12,000 USDT
    expect((await api(`/admin/deposits/${cheap.body.message.id}/approve`, { token: a.token, body: {} })).body.message.status).toBe(1);
    expect((await api(`/admin/deposits/${dear.body.message.id}/approve`, { token: a.token, body: {} })).body.message).toMatchObject({ status: 0, awaiting_second_approval: true });
    expect((await api(`/admin/deposits/${dear.body.message.id}/approve`, { token: b.token, body: {} })).body.message.status).toBe(1);
    expect(await bal(user.id, BTC)).toEqual([u8("0.3"), 0n]);
  });

  it("lets the configured limit decide", async () => {
    const [a] = [await makeOperator()];
    const user = await makeUser();
    const dep = await claim(user, "600", USDT);
    const r = await apiWith({ DEPOSIT_SECOND_APPROVAL_USDT: "500" }, `/admin/deposits/${dep.body.message.id}/approve`, { token: a.token, body: {} });
    expect(r.body.message).toMatchObject({ status: 0, awaiting_second_approval: true });
  });

  it("audits the refusal of an operator adjusting their own balance", async () => {
    const a = await makeOperator();
    const r = await api("/admin/adjustments", { token: a.token, body: { user_id: a.id, currency_id: USDT, amount: "10", reason: "me" } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("own_record");
    expect(await auditRows(a.id, "adjustment.request.refused")).toHaveLength(1);
  });
});

describe("counters that parallel requests cannot outrun", () => {
  it("checks at most five of twenty parallel wrong passwords and then locks that address out", async () => {
    const u = await makeUser({ password: "Owner1234" });
    const ip = { "cf-connecting-ip": "203.0.113.50" };
    const results = await Promise.all(Array.from({ length: 20 }, () => api("/user/login", { body: { user_string: u.account, password: "Guess1234" }, headers: ip })));
    const checked = results.filter((r) => r.body.code === "login_failed");
    expect(checked.length).toBeLessThanOrEqual(5);
    expect(checked.length).toBeGreaterThan(0);
    expect(results.every((r) => r.status < 500)).toBe(true);
    expect(results.filter((r) => r.status === 429)).toHaveLength(20 - checked.length);
    // All five checks failed by now: even the right password is refused on that address ...
    const locked = await api("/user/login", { body: { user_string: u.account, password: "Owner1234" }, headers: ip });
    if (checked.length === 5) expect(locked.body.code).toBe("login_locked");
    else expect(locked.status).toBe(429);
    // ... but the owner elsewhere signs in.
    expect((await api("/user/login", { body: { user_string: u.account, password: "Owner1234" }, headers: { "cf-connecting-ip": "198.51.100.50" } })).body.type).toBe("ok");
  });

  it("counts every client-sent address as one when no edge sets it (local)", async () => {
    const u = await makeUser({ password: "Owner1234" });
    const local = { TRUST_CF_CONNECTING_IP: "off" };
    for (let i = 0; i < 5; i++) {
      const r = await apiWith(local, "/user/login", { body: { user_string: u.account, password: "Guess1234" }, headers: { "cf-connecting-ip": `192.0.2.${i}`, "x-real-ip": `192.0.2.${i}` } });
      expect(r.body.code).toBe("login_failed");
    }
    const sixth = await apiWith(local, "/user/login", { body: { user_string: u.account, password: "Owner1234" }, headers: { "cf-connecting-ip": "192.0.2.99" } });
    expect(sixth.body.code).toBe("login_locked");
  });

  it("ignores x-real-ip where the edge sets the address", async () => {
    const u = await makeUser({ password: "Owner1234" });
    const ip = "203.0.113.77";
    for (let i = 0; i < 5; i++) {
      await api("/user/login", { body: { user_string: u.account, password: "Guess1234" }, headers: { "cf-connecting-ip": ip, "x-real-ip": `10.0.0.${i}` } });
    }
    expect((await api("/user/login", { body: { user_string: u.account, password: "Owner1234" }, headers: { "cf-connecting-ip": ip, "x-real-ip": "10.9.9.9" } })).body.code).toBe("login_locked");
  });

  it("compares at most five of twenty parallel wrong fund passwords", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    const before = await moneyFingerprint();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api("/wallet/out", { token: user.token, body: { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "10", type: 1, password: "000000" } })),
    );
    const compared = results.filter((r) => r.body.code === "fund_password_wrong");
    expect(compared.length).toBeLessThanOrEqual(5);
    expect(results.filter((r) => r.body.code === "too_many_requests")).toHaveLength(20 - compared.length);
    expect(await moneyFingerprint()).toBe(before);
    // The right one, tried while five wrong ones stand, is not compared either.
    const right = await api("/wallet/out", { token: user.token, body: { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "10", type: 1, password: FUND_PASSWORD } });
    if (compared.length === 5) expect(right.body.code).toBe("too_many_requests");
  });

  it("does not count a right fund password as a failure", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    for (let i = 0; i < 7; i++) {
      const r = await api("/wallet/out", { token: user.token, body: { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "10", type: 1, password: FUND_PASSWORD } });
      expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    }
  });
});

describe("never a 500 from a long search", () => {
  it("answers a 60-character operator search full of wildcards with results, not a pattern error", async () => {
    const op = await makeOperator();
    const target = await makeUser({ account: `long%_search_${Date.now()}@test.example` });
    for (const q of ["%".repeat(60), `${"a%_".repeat(30)}`, "x".repeat(254), target.account.slice(0, 60), target.account]) {
      const r = await api(`/admin/users?q=${encodeURIComponent(q)}`, { token: op.token });
      expect(r.status, q).toBe(200);
      expect(Array.isArray(r.body.message.lists)).toBe(true);
    }
    const found = await api(`/admin/users?q=${encodeURIComponent(target.account.slice(0, 12))}`, { token: op.token });
    expect(found.body.message.lists.map((u: any) => u.id)).toContain(target.id);
    // Wildcards are plain characters: "%" finds only accounts that start with "%".
    const pct = await api(`/admin/users?q=${encodeURIComponent("%")}`, { token: op.token });
    expect(pct.body.message.lists.every((u: any) => u.account.startsWith("%"))).toBe(true);
    expect((await api(`/admin/users?q=${encodeURIComponent("x".repeat(300))}`, { token: op.token })).status).toBe(400);
  });
});

describe("headers", () => {
  it("marks authenticated API answers no-store and nosniff", async () => {
    const u = await makeUser();
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request("http://exchange.test/api/user/info", { headers: { authorization: u.token } }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const err = await apiWith({}, "/wallet/list", { body: {} });
    expect(err.headers.get("cache-control")).toBe("no-store");
  });
});

describe("password policy", () => {
  it("refuses new passwords outside 8-64 characters or without letters and digits, in the user's language", async () => {
    const u = await makeUser({ password: "Owner1234" });
    for (const newpwd of ["Abc1234", "abcdefgh", "12345678", `A1${"x".repeat(63)}`]) {
      const r = await api("/new/users/update-password", { token: u.token, lang: "es", body: { oldpwd: "Owner1234", newpwd, repwd: newpwd } });
      expect(r.body, newpwd).toMatchObject({ status: 0, code: "password_rule", message: "La contraseña debe tener de 8 a 64 caracteres y combinar letras y dígitos" });
    }
    for (const newpwd of ["Abc 1234 with spaces!", `A1${"é".repeat(62)}`, "密码很长的密码12345"]) {
      const r = await api("/new/users/update-password", { token: (await makeUser({ password: "Owner1234" })).token, body: { oldpwd: "Owner1234", newpwd, repwd: newpwd } });
      expect(r.body, newpwd).toMatchObject({ status: 1 });
    }
  });

  it("refuses the most common leaked passwords, translated", async () => {
    const u = await makeUser({ password: "Owner1234" });
    for (const newpwd of ["password1", "Password123", "qwerty123", "abc12345"]) {
      const r = await api("/new/users/update-password", { token: u.token, lang: "zh", body: { oldpwd: "Owner1234", newpwd, repwd: newpwd } });
      expect(r.body, newpwd).toMatchObject({ status: 0, code: "password_common", message: "该密码属于最常见的泄露密码，请换一个" });
    }
    // The old password still works: nothing changed.
    expect((await api("/user/login", { body: { user_string: u.account, password: "Owner1234" } })).body.type).toBe("ok");
  });

  it("keeps signing in users whose password predates the rules", async () => {
    const u = await makeUser({ password: "abc123" });
    expect((await api("/user/login", { body: { user_string: u.account, password: "abc123" } })).body.type).toBe("ok");
  });
});
