// A proven e-mail or phone (issue #29): registration logs in and sends a 6-digit code; until it is
// entered the account cannot deposit, withdraw, receive a password reset or create API keys. Each
// try is counted before the code is compared; a code expires; "send again" waits a minute and
// stops at ten a day. "Is this address registered" gets the same answer for every address.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { CONTACT_CODES_PER_DAY } from "../../worker/domain/auth/contact.ts";
import { api, balance, credit as creditUser, dbFingerprint, makeUser, outboxCode, proveContact, solvedCaptcha, uniqueEmail, units, type TestUser } from "./helpers.ts";
import { ABC_CARD, FUND_PASSWORD, seedWalletCurrencies, uploadImage, USDT } from "./wallet-fixtures.ts";

beforeAll(seedWalletCurrencies);

let phoneSeq = 0;
/** A fresh phone number (digits only, as the register form sends it). */
const uniquePhone = () => `86139${String(Date.now() % 1_000_000).padStart(6, "0")}${(phoneSeq++ % 100).toString().padStart(2, "0")}`;

/** Registers through the API as a new user would (captcha from the dev outbox); the account starts unproven. */
async function registerNew(account = uniqueEmail("new")): Promise<TestUser> {
  const password = "Fresh2026pass";
  const r = await api("/user/register", { body: { user_string: account, password, re_password: password, ...(await solvedCaptcha()) } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  const id = (await env.DB.prepare("SELECT id FROM users WHERE account = ?").bind(account).first<{ id: number }>())!.id;
  return { id, account, password, token: r.body.message.token };
}

const verify = (u: TestUser, code: string | null, lang = "en") => api("/user/verify_contact", { token: u.token, body: { code }, lang });
const resend = (u: TestUser, lang = "en") => api("/user/verify_contact/resend", { token: u.token, method: "POST", lang });
/** A code that is not the one sent. */
const wrongOf = (code: string) => (code === "000000" ? "111111" : "000000");

/** Moves every contact code of the account `ms` into the past (what waiting would do). */
async function age(account: string, ms: number) {
  await env.DB.prepare("UPDATE verification_codes SET created_at = created_at - ?1, expires_at = expires_at - ?1 WHERE account = ?2 AND purpose = 'contact'").bind(ms, account).run();
}

/** Credits the account as a confirmed deposit would (the test's stand-in for money already there). */
const credit = (u: TestUser, amount: string) => creditUser(`contact-test:${u.id}:${Date.now()}`, u.id, USDT, units(amount));

describe("the code sent at registration", () => {
  it("logs the new account in unproven, e-mails it a 6-digit code kept only as a keyed hash, and the code proves the address", async () => {
    const u = await registerNew();
    expect((await api("/user/info", { token: u.token })).body.message.contact_verified).toBe(false);
    const mail = await env.DB.prepare("SELECT channel, subject, body, code FROM dev_outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1").bind(u.account).first<{ channel: string; subject: string; body: string; code: string }>();
    expect(mail).toMatchObject({ channel: "email", subject: "Confirm your e-mail address" });
    expect(mail!.code).toMatch(/^\d{6}$/);
    expect(mail!.body).toContain(mail!.code);
    const stored = await env.DB.prepare("SELECT code_hash FROM verification_codes WHERE account = ? AND purpose = 'contact'").bind(u.account).first<{ code_hash: string }>();
    expect(stored!.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored!.code_hash).not.toContain(mail!.code);

    const state = await api("/user/verify_contact", { token: u.token });
    expect(state.body.message).toMatchObject({ contact_verified: false, channel: "email" });
    expect(state.body.message.resend_in).toBeGreaterThan(0);
    expect(state.body.message.resend_in).toBeLessThanOrEqual(60);

    const r = await verify(u, mail!.code);
    expect(r.body.message).toEqual({ contact_verified: true, channel: "email", resend_in: 0 });
    expect((await api("/user/info", { token: u.token })).body.message.contact_verified).toBe(true);
    // Entering it again changes nothing and still answers proven.
    expect((await verify(u, mail!.code)).body.message.contact_verified).toBe(true);
  });

  it("sends a phone account its code by SMS", async () => {
    const u = await registerNew(uniquePhone());
    const sms = await env.DB.prepare("SELECT channel, code FROM dev_outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1").bind(u.account).first<{ channel: string; code: string }>();
    expect(sms!.channel).toBe("sms");
    expect((await api("/user/verify_contact", { token: u.token })).body.message.channel).toBe("sms");
    expect((await verify(u, sms!.code)).body.message.contact_verified).toBe(true);
  });

  it("says how many tries are left after a wrong code, and after five wrong tries refuses even the right one", async () => {
    const u = await registerNew();
    const code = (await outboxCode(u.account))!;
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await verify(u, wrongOf(code))).body);
    expect(answers.map((a) => a.code)).toEqual(["code_wrong_left", "code_wrong_left", "code_wrong_left", "code_wrong_left", "code_attempts"]);
    expect(answers[0].message).toBe("The code is wrong: 4 more tries");
    const right = await verify(u, code, "zh");
    expect(right.status).toBe(429);
    expect(right.body).toMatchObject({ code: "code_attempts", message: "错误次数过多，请重新获取验证码" });
    expect((await api("/user/info", { token: u.token })).body.message.contact_verified).toBe(false);
  });

  it("counts each try before comparing the code: ten guesses at once get only four 'tries left' answers", async () => {
    const u = await registerNew();
    const code = (await outboxCode(u.account))!;
    const all = await Promise.all(Array.from({ length: 10 }, () => verify(u, wrongOf(code))));
    const codes = all.map((r) => r.body.code);
    expect(codes.filter((c) => c === "code_wrong_left")).toHaveLength(4);
    expect(codes.filter((c) => c === "code_attempts")).toHaveLength(6);
    const row = await env.DB.prepare("SELECT attempts FROM verification_codes WHERE account = ? AND purpose = 'contact'").bind(u.account).first<{ attempts: number }>();
    expect(row!.attempts).toBe(10);
    expect((await verify(u, code)).body.code).toBe("code_attempts");
  });

  it("refuses an expired code as expired; a new code sent after it works", async () => {
    const u = await registerNew();
    const old = (await outboxCode(u.account))!;
    await age(u.account, 31 * 60_000);
    const expired = await verify(u, old, "es");
    expect(expired.body).toMatchObject({ code: "code_expired", message: "El código ha caducado: pida uno nuevo" });
    expect((await resend(u)).body.message).toMatchObject({ contact_verified: false, resend_in: 60 });
    const fresh = (await outboxCode(u.account))!;
    expect((await verify(u, fresh)).body.message.contact_verified).toBe(true);
  });

  it("answers a code that was never sent (or was missed) with 'expired: ask for a new one'", async () => {
    const u = await makeUser();
    await env.DB.prepare("UPDATE users SET contact_verified_at = NULL WHERE id = ?").bind(u.id).run();
    expect((await verify(u, "123456")).body.code).toBe("code_expired");
  });

  it("refuses a malformed code with a clear error, counting nothing", async () => {
    const u = await registerNew();
    for (const [code, key] of [["12345", "code_wrong"], ["abcdef", "code_wrong"], ["", "code_required"], [123456, "code_required"]] as const) {
      const r = await verify(u, code as string);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(key);
    }
    const row = await env.DB.prepare("SELECT attempts FROM verification_codes WHERE account = ? AND purpose = 'contact'").bind(u.account).first<{ attempts: number }>();
    expect(row!.attempts).toBe(0);
  });
});

describe("sending the code again", () => {
  it("waits a minute after the last code and says how many seconds are left", async () => {
    const u = await registerNew();
    const r = await resend(u, "zh");
    expect(r.status).toBe(429);
    expect(r.body.code).toBe("code_wait");
    const seconds = Number(/(\d+)/.exec(r.body.message)![1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(r.body.message).toBe(`请 ${seconds} 秒后再获取验证码`);
    await age(u.account, 61_000);
    expect((await resend(u)).body.type).toBe("ok");
  });

  it("ends the earlier code: only the newest one proves the address", async () => {
    const u = await registerNew();
    const first = (await outboxCode(u.account))!;
    await age(u.account, 61_000);
    await resend(u);
    const second = (await outboxCode(u.account))!;
    if (first !== second) expect((await verify(u, first)).body.code).toBe("code_wrong_left");
    expect((await verify(u, second)).body.message.contact_verified).toBe(true);
  });

  it("sends one code when asked several times at once", async () => {
    const u = await registerNew();
    await age(u.account, 61_000);
    const before = await env.DB.prepare("SELECT count(*) AS n FROM dev_outbox WHERE recipient = ?").bind(u.account).first<{ n: number }>();
    const all = await Promise.all(Array.from({ length: 5 }, () => resend(u)));
    expect(all.filter((r) => r.body.type === "ok")).toHaveLength(1);
    expect(all.filter((r) => r.body.code === "code_wait")).toHaveLength(4);
    const after = await env.DB.prepare("SELECT count(*) AS n FROM dev_outbox WHERE recipient = ?").bind(u.account).first<{ n: number }>();
    expect(after!.n).toBe(before!.n + 1);
  });

  it(`stops at ${CONTACT_CODES_PER_DAY} codes a day`, async () => {
    const u = await registerNew();
    for (let i = 1; i < CONTACT_CODES_PER_DAY; i++) {
      await age(u.account, 61_000);
      expect((await resend(u)).body.type).toBe("ok");
    }
    await age(u.account, 61_000);
    const r = await resend(u, "kr");
    expect(r.body).toMatchObject({ code: "code_daily_limit", message: `오늘 코드를 ${CONTACT_CODES_PER_DAY}번 요청했습니다. 내일 다시 시도해 주세요` });
    await age(u.account, 24 * 3600_000);
    expect((await resend(u)).body.type).toBe("ok");
  });

  it("carries the account's anti-phishing code", async () => {
    const u = await registerNew();
    await env.DB.prepare("UPDATE users SET anti_phishing_code = 'Blue42Sky' WHERE id = ?").bind(u.id).run();
    await age(u.account, 61_000);
    await resend(u);
    const mail = await env.DB.prepare("SELECT subject, body FROM dev_outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1").bind(u.account).first<{ subject: string; body: string }>();
    expect(mail!.subject).toBe("[Blue42Sky] Confirm your e-mail address");
    expect(mail!.body.split("\n")[0]).toBe("Anti-phishing code: Blue42Sky");
  });

  it("sends nothing to an account proven already", async () => {
    const u = await makeUser();
    const r = await resend(u);
    expect(r.body.message).toEqual({ contact_verified: true, channel: "email", resend_in: 0 });
    expect(await outboxCode(u.account)).toBeNull();
  });
});

describe("until the address is proven", () => {
  it("refuses deposits, withdrawals and API keys, changing nothing; after the code each works", async () => {
    const u = await registerNew();
    await credit(u, "500");
    expect((await api("/user/fund_password", { token: u.token, body: { fund_password: FUND_PASSWORD, re_fund_password: FUND_PASSWORD, login_password: u.password } })).body.type).toBe("ok");
    expect((await api("/user/cash_save", { token: u.token, body: { real_name: "Li Lei", bank_account: ABC_CARD, bank_name: "", bank_branch: "Main" } })).body.type).toBe("ok");
    const pic = await uploadImage(u);
    const calls = {
      addresses: () => api("/wallet/get_in_address", { token: u.token, body: { currency: USDT } }),
      deposit: () => api("/wallet/charge_req", { token: u.token, body: { currency: USDT, type: "TRC20", acc: "DEMO-usdt-trc20-address-not-real-do-not-send", amount: "100", pic, hash: "abc123" } }),
      withdraw: () => api("/wallet/out", { token: u.token, body: { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "50", type: 1, password: FUND_PASSWORD } }),
      apiKey: () => api("/apikeys", { token: u.token, body: { label: "bot", scopes: ["read"], fund_password: FUND_PASSWORD } }),
    };
    const before = await dbFingerprint();
    for (const [name, call] of Object.entries(calls)) {
      const r = await call();
      expect(r.status, name).toBe(403);
      expect(r.body, name).toMatchObject({ type: "error", code: "contact_unverified", message: "Please confirm your e-mail or phone with the code we sent first" });
    }
    expect(await dbFingerprint()).toBe(before);
    expect(await balance(u.id, USDT)).toEqual([units("500"), 0n]);
    const zh = await api("/wallet/out", { token: u.token, lang: "zh", body: { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "50", type: 1, password: FUND_PASSWORD } });
    expect(zh.body.message).toBe("请先用我们发送的验证码确认您的邮箱或手机");

    await proveContact(u);
    expect((await calls.addresses()).body.type).toBe("ok");
    expect((await calls.deposit()).body.type).toBe("ok");
    expect((await calls.withdraw()).body.type).toBe("ok");
    expect((await calls.apiKey()).body.type).toBe("ok");
    expect(await balance(u.id, USDT)).toEqual([units("449"), units("51")]);
  });

  it("sends no password reset to the account, answering exactly as for an unknown address; once proven, the reset works", async () => {
    const u = await registerNew();
    const unknown = uniqueEmail("nobody");
    const asked = await api("/sms_mail", { body: { user_string: u.account, type: "forget" } });
    const askedUnknown = await api("/sms_mail", { body: { user_string: unknown, type: "forget" } });
    expect(asked).toEqual({ status: 200, body: { type: "ok", message: "sent" } });
    expect(askedUnknown).toEqual(asked);
    const forgetCodes = await env.DB.prepare("SELECT count(*) AS n FROM verification_codes WHERE account = ? AND purpose = 'forget'").bind(u.account).first<{ n: number }>();
    expect(forgetCodes!.n).toBe(0);
    // The only message the account ever got is its contact code, so guessing with it gets nowhere.
    const contactCode = (await outboxCode(u.account))!;
    const reset = (account: string, code: string) => api("/user/forget", { body: { account, password: "NewPass2026", repassword: "NewPass2026", code } });
    const tried = await reset(u.account, contactCode);
    const triedUnknown = await reset(unknown, contactCode);
    expect(tried.body.code).toBe("code_wrong");
    expect(triedUnknown).toEqual(tried);
    expect((await api("/user/login", { body: { user_string: u.account, password: u.password } })).body.type).toBe("ok");

    await proveContact(u);
    await env.DB.prepare("UPDATE rate_limits SET window_start = window_start - 61000 WHERE key = ?").bind(`forget-send:${u.account}`).run();
    expect((await api("/sms_mail", { body: { user_string: u.account, type: "forget" } })).body.type).toBe("ok");
    const resetCode = (await outboxCode(u.account))!;
    expect(resetCode).not.toBe(contactCode);
    expect((await reset(u.account, resetCode)).body.type).toBe("ok");
    expect((await api("/user/login", { body: { user_string: u.account, password: "NewPass2026" } })).body.type).toBe("ok");
  });
});

describe("is this address registered", () => {
  it("the account check answers the same for a proven, an unproven and an unknown address", async () => {
    const proven = await makeUser();
    const unproven = await registerNew();
    const check = (account: string) => api("/new/check/account", { body: { mode: 1, account } });
    const answers = [await check(proven.account), await check(unproven.account), await check(uniqueEmail("nobody"))];
    for (const a of answers) expect(a).toEqual({ status: 200, body: { status: 1, data: { mode: 1 } } });
    expect(await check("8613900000000")).toEqual({ status: 200, body: { status: 1, data: { mode: 2 } } });
  });

  it("the reset code request and its cool-down answer the same for every address", async () => {
    const proven = await makeUser();
    const unproven = await registerNew();
    const ask = (account: string) => api("/sms_mail", { body: { user_string: account, type: "forget" }, lang: "jp" });
    const accounts = [proven.account, unproven.account, uniqueEmail("nobody")];
    const first = await Promise.all(accounts.map(ask));
    for (const a of first) expect(a).toEqual({ status: 200, body: { type: "ok", message: "sent" } });
    const second = await Promise.all(accounts.map(ask));
    for (const a of second) {
      expect(a.status).toBe(429);
      expect(a.body.code).toBe("code_wait");
      expect(a.body.message).toMatch(/\d+/);
    }
    // Only the proven account was sent anything.
    expect(await outboxCode(proven.account)).toMatch(/^\d{6}$/);
    const forget = await env.DB.prepare("SELECT count(*) AS n FROM verification_codes WHERE account IN (?, ?) AND purpose = 'forget'").bind(unproven.account, accounts[2]).first<{ n: number }>();
    expect(forget!.n).toBe(0);
  });

  it("checking a reset code answers the same for an unknown and a registered address", async () => {
    const u = await makeUser();
    const check = (account: string) => api("/user/check_email", { body: { user_string: account, email_code: "123456" } });
    expect(await check(u.account)).toEqual(await check(uniqueEmail("nobody")));
  });

  it("registration reports a taken address only after its single-use captcha is answered, and spends it", async () => {
    const taken = await makeUser();
    const body = { user_string: taken.account, password: "Fresh2026pass", re_password: "Fresh2026pass" };
    const captcha = await solvedCaptcha();
    const wrong = await api("/user/register", { body: { ...body, code_id: captcha.code_id, code: "0000" } });
    expect(wrong.body.code).toBe("captcha_wrong");
    const next = await solvedCaptcha();
    const exists = await api("/user/register", { body: { ...body, ...next } });
    expect(exists.body.code).toBe("account_exists");
    // The captcha went with the answer: asking again needs a new one.
    expect((await api("/user/register", { body: { ...body, ...next } })).body.code).toBe("captcha_wrong");
  });
});
