import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../worker/index.ts";
import { sha256Hex } from "../../worker/lib/crypto.ts";
import { SCRYPT_PARAMS, TEST_SCRYPT_COST, hashPassword, passwordCost, verifyPassword } from "../../worker/lib/password.ts";
import toml from "../../wrangler.toml?raw";
import startScript from "../../scripts/start.mjs?raw";
import { api, dbFingerprint, makeUser, solvedCaptcha, uniqueEmail } from "./helpers.ts";

/** Repeats a request until it is answered 429 (at most 100 times) and returns that answer. */
async function untilRefused(send: () => Promise<{ status: number; body: any }>) {
  for (let i = 0; i < 100; i++) {
    const r = await send();
    if (r.status === 429) return r;
  }
  throw new Error("never refused");
}

/** The hits counted in the current window of a rate-limit key. */
async function windowCount(key: string): Promise<number> {
  return (await env.DB.prepare("SELECT count FROM rate_limits WHERE key = ?").bind(key).first<{ count: number }>())!.count;
}

async function register(account = uniqueEmail(), extra: Record<string, unknown> = {}) {
  const captcha = await solvedCaptcha();
  return api("/user/register", {
    body: { type: 1, user_string: account, password: "Fresh2026pass", re_password: "Fresh2026pass", country_code: "86", ...captcha, ...extra },
  });
}

async function latestCode(account: string) {
  const row = await env.DB.prepare("SELECT code FROM dev_outbox WHERE recipient = ? AND channel = 'email' ORDER BY id DESC LIMIT 1")
    .bind(account)
    .first<{ code: string }>();
  return row!.code;
}

describe("captcha", () => {
  it("is an image drawn on the server whose answer never reaches the client", async () => {
    const r = await api("/login/smscode", { method: "POST" });
    expect(r.status).toBe(200);
    expect(r.body.type).toBe("ok");
    expect(r.body.message.code).toMatch(/^data:image\/svg\+xml;base64,/);
    const svg = atob(r.body.message.code.split(",")[1]);
    expect(svg).not.toMatch(/<text/);
    const answer = (await env.DB.prepare("SELECT code FROM dev_outbox WHERE recipient = ?").bind(r.body.message.code_id).first<{ code: string }>())!.code;
    expect(JSON.stringify(r.body)).not.toContain(answer);
    const stored = await env.DB.prepare("SELECT answer_hash FROM captchas WHERE id = ?").bind(r.body.message.code_id).first<{ answer_hash: string }>();
    expect(stored!.answer_hash).not.toContain(answer);
  });

  it("works once: a second registration with the same captcha is refused", async () => {
    const captcha = await solvedCaptcha();
    const body = { user_string: uniqueEmail(), password: "Fresh2026pass", re_password: "Fresh2026pass", ...captcha };
    expect((await api("/user/register", { body })).body.type).toBe("ok");
    const again = await api("/user/register", { body: { ...body, user_string: uniqueEmail() } });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe("captcha_wrong");
  });

  it("expires after two minutes", async () => {
    const captcha = await solvedCaptcha();
    await env.DB.prepare("UPDATE captchas SET expires_at = ? WHERE id = ?").bind(Date.now() - 1, captcha.code_id).run();
    const r = await register(uniqueEmail(), captcha);
    expect(r.body.code).toBe("captcha_wrong");
  });

  it("is consumed by a wrong answer, so it cannot be guessed repeatedly", async () => {
    const captcha = await solvedCaptcha();
    expect((await register(uniqueEmail(), { code_id: captcha.code_id, code: "0000" })).body.code).toBe("captcha_wrong");
    expect((await register(uniqueEmail(), captcha)).body.code).toBe("captcha_wrong");
  });
});

describe("registration", () => {
  it("creates the account, logs it in and gives it its own invite code", async () => {
    const account = uniqueEmail();
    const r = await register(account);
    expect(r.body.type).toBe("ok");
    expect(r.body.message.token.length).toBeGreaterThanOrEqual(22);
    const info = await api("/user/info", { token: r.body.message.token });
    expect(info.body.message).toMatchObject({ account, review_status: 0, is_seller: 0, name: null });
    expect(info.body.message.extension_code).toMatch(/^[A-Z0-9]{6}$/);
  });

  it("answers the /api/new/register form with status 1", async () => {
    const captcha = await solvedCaptcha();
    const r = await api("/new/register", { body: { user_string: "8613800138000", password: "Fresh2026pass", re_password: "Fresh2026pass", ...captcha } });
    expect(r.body.status).toBe(1);
    expect(r.body.data.token).toBeTruthy();
  });

  it("links the inviter when a valid invite code is given and refuses an unknown one", async () => {
    const inviter = await register();
    const code = (await api("/user/info", { token: inviter.body.message.token })).body.message.extension_code;
    const invitee = uniqueEmail();
    expect((await register(invitee, { extension_code: code.toLowerCase() })).body.type).toBe("ok");
    const parent = await env.DB.prepare("SELECT p.extension_code c FROM users u JOIN users p ON p.id = u.parent_id WHERE u.account = ?")
      .bind(invitee)
      .first<{ c: string }>();
    expect(parent!.c).toBe(code);
    const before = await dbFingerprint();
    const bad = await register(uniqueEmail(), { extension_code: "NOPE42" });
    expect(bad.body.code).toBe("invite_invalid");
    expect(await dbFingerprint()).toBe(before);
  });

  it("refuses an account that already exists, in the caller's language; the account check answers alike for every address", async () => {
    const account = uniqueEmail();
    await register(account);
    const r = await register(account.toUpperCase());
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("account_exists");
    const again = await api("/user/register", { lang: "kr", body: { type: 1, user_string: account, password: "Fresh2026pass", re_password: "Fresh2026pass", ...(await solvedCaptcha()) } });
    expect(again.body).toMatchObject({ code: "account_exists", message: "이미 등록된 계정입니다" });
    // "Is this address registered" has one answer for every address (issue #29; tests/api/contact.test.ts).
    const check = await api("/new/check/account", { body: { mode: 1, account }, lang: "kr" });
    expect(check.body).toEqual((await api("/new/check/account", { body: { mode: 1, account: uniqueEmail() } })).body);
  });

  it.each([
    ["a password without digits", { password: "abcdefgh", re_password: "abcdefgh" }, "password_rule"],
    ["a password shorter than 8", { password: "abcde12", re_password: "abcde12" }, "password_rule"],
    ["a password longer than 64", { password: `a1${"x".repeat(63)}`, re_password: `a1${"x".repeat(63)}` }, "password_rule"],
    ["one of the most common leaked passwords", { password: "Password123", re_password: "Password123" }, "password_common"],
    ["passwords that differ", { re_password: "Fresh2026passX" }, "password_mismatch"],
    ["an account that is neither e-mail nor digits", { user_string: "bob" }, "account_format"],
    ["an SQL-like account", { user_string: "x'; DROP TABLE users;--" }, "account_format"],
    ["an overlong account", { user_string: `${"a".repeat(300)}@x.com` }, "account_format"],
    ["a missing password", { password: undefined }, "password_rule"],
    ["a password of the wrong type", { password: 12345678 }, "password_rule"],
  ])("refuses %s with a clear error and no change", async (_name, patch, code) => {
    const before = await dbFingerprint();
    const r = await register(uniqueEmail(), patch);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: "error", code });
    expect(r.body.message.length).toBeGreaterThan(5);
    expect(await dbFingerprint()).toBe(before);
  });

  it("answers malformed JSON and a non-JSON body with a 400, not a 500", async () => {
    const r = await api("/user/register", { body: "{not json" });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_param");
    const form = await api("/user/login", { method: "POST", headers: { "content-type": "text/plain" }, body: "x" });
    expect(form.status).toBe(400);
  });

  it("translates validation errors into each of the six languages", async () => {
    const messages = new Set<string>();
    for (const lang of ["en", "zh", "hk", "kr", "jp", "es"]) {
      const r = await api("/user/login", { body: { user_string: "", password: "x" }, lang });
      expect(r.body.code).toBe("account_required");
      messages.add(r.body.message);
    }
    expect(messages.size).toBe(6);
  });
});

describe("login and sessions", () => {
  it("logs in with the right password and returns a token that opens user info", async () => {
    const u = await makeUser({ password: "Secret123" });
    const r = await api("/user/login", { body: { user_string: u.account, password: "Secret123", type: 1 } });
    expect(r.body.type).toBe("ok");
    expect((await api("/user/info", { token: r.body.message.token })).body.message.id).toBe(u.id);
  });

  it("stores only a hash of the session token", async () => {
    const u = await makeUser();
    const stored = await env.DB.prepare("SELECT token_hash FROM sessions WHERE user_id = ?").bind(u.id).first<{ token_hash: string }>();
    expect(stored!.token_hash).toBe(await sha256Hex(u.token));
    const all = await env.DB.prepare("SELECT group_concat(token_hash) t FROM sessions").first<{ t: string }>();
    expect(all!.t).not.toContain(u.token);
  });

  it("refuses a wrong password with the same message as an unknown account", async () => {
    const u = await makeUser();
    const wrong = await api("/user/login", { body: { user_string: u.account, password: "Wrong1234" } });
    const unknown = await api("/user/login", { body: { user_string: uniqueEmail(), password: "Wrong1234" } });
    expect(wrong.body.code).toBe("login_failed");
    expect(unknown.body.message).toBe(wrong.body.message);
  });

  it("answers 999 to an unknown, revoked or expired token", async () => {
    expect((await api("/user/info", { token: "x".repeat(43) })).body.type).toBe("999");
    expect((await api("/user/info")).body.type).toBe("999");
    const u = await makeUser();
    expect((await api("/user/logout", { method: "POST", token: u.token })).body.type).toBe("ok");
    const after = await api("/user/info", { token: u.token, lang: "zh" });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ type: "999", message: "请先登录" });
    const v = await makeUser();
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = ?").bind(Date.now() - 1, v.id).run();
    expect((await api("/user/info", { token: v.token })).body.type).toBe("999");
  });

  it("locks an address out of an account after five failures, but not the owner on another address", async () => {
    const u = await makeUser({ password: "Owner1234" });
    const attacker = { "cf-connecting-ip": "203.0.113.9" };
    for (let i = 0; i < 5; i++) {
      expect((await api("/user/login", { body: { user_string: u.account, password: "Guess1234" }, headers: attacker })).body.code).toBe("login_failed");
    }
    const locked = await api("/user/login", { body: { user_string: u.account, password: "Owner1234" }, headers: attacker });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe("login_locked");
    const owner = await api("/user/login", { body: { user_string: u.account, password: "Owner1234" }, headers: { "cf-connecting-ip": "198.51.100.7" } });
    expect(owner.body.type).toBe("ok");
  });

  it("lifts a lockout when its time is up", async () => {
    const u = await makeUser({ password: "Owner1234" });
    const ip = { "cf-connecting-ip": "203.0.113.10" };
    for (let i = 0; i < 5; i++) await api("/user/login", { body: { user_string: u.account, password: "Guess1234" }, headers: ip });
    await env.DB.prepare("UPDATE login_failures SET locked_until = ? WHERE key = ?").bind(Date.now() - 1, `${u.account}|203.0.113.10`).run();
    expect((await api("/user/login", { body: { user_string: u.account, password: "Owner1234" }, headers: ip })).body.type).toBe("ok");
  });

  it("rate limits captcha requests per address", async () => {
    // Counted in fixed one-minute windows: send until refused (a slow machine may cross a window
    // boundary once), then check the refusal came from the 31st request of its window.
    const ip = "192.0.2.77";
    const refused = await untilRefused(() => api("/login/smscode", { method: "POST", headers: { "cf-connecting-ip": ip } }));
    expect(refused.body.code).toBe("too_many_requests");
    expect(await windowCount(`captcha:${ip}`)).toBe(31);
  });
});

describe("forgotten password", () => {
  it("resets the password with the e-mailed code and ends every session", async () => {
    const u = await makeUser({ password: "OldPass123" });
    expect((await api("/sms_mail", { body: { user_string: u.account, type: "forget" } })).body.type).toBe("ok");
    const code = await latestCode(u.account);
    expect(code).toMatch(/^\d{6}$/);
    expect((await api("/user/check_email", { body: { user_string: u.account, email_code: code } })).body.type).toBe("ok");
    const reset = await api("/user/forget", { body: { account: u.account, password: "NewPass123", repassword: "NewPass123", code } });
    expect(reset.body.type).toBe("ok");
    expect((await api("/user/info", { token: u.token })).body.type).toBe("999");
    expect((await api("/user/login", { body: { user_string: u.account, password: "OldPass123" } })).body.code).toBe("login_failed");
    expect((await api("/user/login", { body: { user_string: u.account, password: "NewPass123" } })).body.type).toBe("ok");
    // The code is single-use.
    const again = await api("/user/forget", { body: { account: u.account, password: "Other1234", repassword: "Other1234", code } });
    expect(again.body.code).toBe("code_wrong");
  });

  it("asks to wait 60 s before sending another code", async () => {
    const u = await makeUser();
    await api("/sms_mail", { body: { user_string: u.account, type: "forget" } });
    const r = await api("/sms_mail", { body: { user_string: u.account, type: "forget" } });
    expect(r.status).toBe(429);
    expect(r.body.code).toBe("code_wait");
  });

  it("stops accepting a code after five wrong guesses", async () => {
    const u = await makeUser();
    await api("/sms_mail", { body: { user_string: u.account, type: "forget" } });
    const code = await latestCode(u.account);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) await api("/user/check_email", { body: { user_string: u.account, email_code: wrong } });
    expect((await api("/user/check_email", { body: { user_string: u.account, email_code: code } })).body.code).toBe("code_wrong");
  });

  it("rate limits code checks per address, across accounts", async () => {
    const ip = "192.0.2.88";
    const refused = await untilRefused(() => api("/user/check_email", { body: { user_string: uniqueEmail(), email_code: "123456" }, headers: { "cf-connecting-ip": ip } }));
    expect(refused.body.code).toBe("too_many_requests");
    expect(await windowCount(`code-check:${ip}`)).toBe(31);
  });

  it("refuses a reset with a wrong code and changes nothing", async () => {
    const u = await makeUser();
    await api("/sms_mail", { body: { user_string: u.account, type: "forget" } });
    const before = await dbFingerprint();
    const r = await api("/user/forget", { body: { account: u.account, password: "NewPass123", repassword: "NewPass123", code: "12345" } });
    expect(r.status).toBe(400);
    expect(await dbFingerprint()).toBe(before);
  });
});

describe("password change", () => {
  it("needs the current password and then ends the sessions", async () => {
    const u = await makeUser({ password: "Current123" });
    const wrong = await api("/new/users/update-password", { token: u.token, body: { oldpwd: "Nope12345", newpwd: "Next1234", repwd: "Next1234" } });
    expect(wrong.body).toMatchObject({ status: 0, code: "old_password_wrong" });
    const r = await api("/new/users/update-password", { token: u.token, body: { oldpwd: "Current123", newpwd: "Next1234", repwd: "Next1234" } });
    expect(r.body.status).toBe(1);
    expect((await api("/user/info", { token: u.token })).body.type).toBe("999");
    expect((await api("/user/login", { body: { user_string: u.account, password: "Next1234" } })).body.type).toBe("ok");
  });

  it("answers 999 in the new envelope without a session", async () => {
    const r = await api("/new/users/update-password", { body: { oldpwd: "a", newpwd: "b", repwd: "b" } });
    expect(r.body).toMatchObject({ status: 0, type: "999" });
  });
});

describe("password hashing", () => {
  it("uses scrypt with the pinned parameters and a pepper", async () => {
    expect(SCRYPT_PARAMS).toEqual({ N: 16384, r: 8, p: 5, keyLength: 32, saltLength: 16 });
    expect(SCRYPT_PARAMS.N * SCRYPT_PARAMS.r * SCRYPT_PARAMS.p).toBeLessThanOrEqual(2 ** 20);
    const h = await hashPassword("Abc12345", "pepper-a");
    expect(h).toMatch(/^scrypt\$16384\$8\$5\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await verifyPassword("Abc12345", h, "pepper-a")).toBe(true);
    expect(await verifyPassword("Abc12345", h, "pepper-b")).toBe(false);
    expect(await verifyPassword("Abc12346", h, "pepper-a")).toBe(false);
    expect(await hashPassword("Abc12345", "pepper-a")).not.toBe(h);
  });

  it("hashes new passwords at the pinned cost wherever wrangler.toml deploys it; only a local test Worker hashes cheaper", async () => {
    // The deployed vars: DEV_OUTBOX off and no PASSWORD_COST, so the full cost.
    const deployed = Object.fromEntries([...toml.matchAll(/^([A-Z_]+)\s*=\s*"([^"]*)"/gm)].map((m) => [m[1], m[2]]));
    expect(deployed.DEV_OUTBOX).toBe("off");
    expect(toml).not.toContain("PASSWORD_COST");
    expect(passwordCost(deployed)).toBe(SCRYPT_PARAMS);
    // `npm start` turns the dev outbox on but never the test cost.
    expect(startScript).not.toContain("PASSWORD_COST");
    expect(passwordCost({ DEV_OUTBOX: "on" })).toBe(SCRYPT_PARAMS);
    // The test cost needs both switches.
    expect(passwordCost({ PASSWORD_COST: "test", DEV_OUTBOX: "off" })).toBe(SCRYPT_PARAMS);
    expect(passwordCost({ PASSWORD_COST: "test" })).toBe(SCRYPT_PARAMS);
    expect(passwordCost({ PASSWORD_COST: "low", DEV_OUTBOX: "on" })).toBe(SCRYPT_PARAMS);
    // This suite's Worker is a test Worker: a registration stores the test cost, and it verifies.
    expect(passwordCost(env)).toBe(TEST_SCRYPT_COST);
    const account = uniqueEmail();
    expect((await register(account)).body.type).toBe("ok");
    const row = await env.DB.prepare("SELECT password_hash AS h FROM users WHERE account = ?").bind(account).first<{ h: string }>();
    expect(row!.h).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect((await api("/user/login", { body: { user_string: account, password: "Fresh2026pass", type: 1 } })).body.type).toBe("ok");
  });
});

describe("dev outbox", () => {
  it("is readable when local configuration turns it on, one recipient at a time", async () => {
    const u = await makeUser();
    await api("/sms_mail", { body: { user_string: u.account, type: "forget" } });
    const r = await api(`/dev/outbox?to=${encodeURIComponent(u.account)}`);
    expect(r.status).toBe(200);
    expect(r.body.message).toHaveLength(1);
    expect(r.body.message[0]).toMatchObject({ channel: "email", recipient: u.account });
  });

  it("refuses to list the whole outbox when no recipient is named", async () => {
    const u = await makeUser();
    await api("/sms_mail", { body: { user_string: u.account, type: "forget" } });
    for (const path of ["/dev/outbox", "/dev/outbox?to=", "/dev/outbox?to=%20"]) {
      const r = await api(path);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("missing_field");
      expect(JSON.stringify(r.body)).not.toContain(u.account);
    }
  });

  it("does not exist in a production configuration, and nothing is written to it", async () => {
    const prodEnv = { ...env, DEV_OUTBOX: "off" };
    const call = async (path: string, method = "GET") => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(`http://exchange.test/api${path}`, { method }), prodEnv, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const before = await env.DB.prepare("SELECT count(*) n FROM dev_outbox").first<{ n: number }>();
    expect((await call("/dev/outbox")).status).toBe(404);
    const captcha = await call("/login/smscode", "POST");
    expect(captcha.status).toBe(200);
    const after = await env.DB.prepare("SELECT count(*) n FROM dev_outbox").first<{ n: number }>();
    expect(after!.n).toBe(before!.n);
  });
});

it("answers an unknown API path with a translated 404 envelope", async () => {
  const r = await api("/no/such/thing", { lang: "es" });
  expect(r.status).toBe(404);
  expect(r.body).toMatchObject({ type: "error", code: "not_found", message: "No se encontraron datos" });
});
