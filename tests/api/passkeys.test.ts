// Passkeys through the API (issue #29). The full ceremonies with a real authenticator are the
// browser test (tests/e2e/passkeys.test.ts, Chromium's virtual authenticator); here: the options
// name the request's host as the relying party, a challenge is spent before its answer is checked
// (so it works once, even when the answer is wrong), and an account with a passkey needs it for a
// withdrawal.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, makeUser, type TestUser } from "./helpers.ts";
import { FUND_PASSWORD, makeWithdrawer, seedWalletCurrencies, u8, USDT } from "./wallet-fixtures.ts";

beforeAll(seedWalletCurrencies);

const b64url = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** An answer to `challenge` from credential `id` whose signature is not valid. */
function forgedAnswer(id: string, challenge: string, type = "webauthn.get") {
  return {
    id,
    rawId: id,
    type: "public-key",
    response: {
      clientDataJSON: b64url(JSON.stringify({ type, challenge, origin: "http://exchange.test" })),
      authenticatorData: b64url("x".repeat(37)),
      signature: b64url("not a signature"),
    },
    clientExtensionResults: {},
  };
}

async function withStoredPasskey(user: TestUser): Promise<string> {
  const id = b64url(`credential-${user.id}-${Math.random()}`);
  await env.DB.prepare("INSERT INTO passkeys (user_id, credential_id, public_key, name, created_at) VALUES (?, ?, ?, 'Laptop', ?)").bind(user.id, id, b64url("not a key"), Date.now()).run();
  return id;
}

describe("passkey options", () => {
  it("name the request's host as the relying party and ask for a discoverable passkey", async () => {
    const user = await makeUser();
    const r = await api("/security/passkeys/options", { token: user.token, method: "POST" });
    expect(r.body.message.rp).toEqual({ id: "exchange.test", name: expect.any(String) });
    expect(r.body.message.user.name).toBe(user.account);
    expect(r.body.message.authenticatorSelection.residentKey).toBe("required");
    const stored = await env.DB.prepare("SELECT purpose, user_id, expires_at - created_at AS ttl FROM webauthn_challenges WHERE challenge = ?").bind(r.body.message.challenge).first();
    expect(stored).toEqual({ purpose: "register", user_id: user.id, ttl: 5 * 60_000 });
  });

  it("need a session, except to sign in", async () => {
    expect((await api("/security/passkeys/options", { method: "POST" })).body.type).toBe("999");
    const login = await api("/user/login/passkey/options", { method: "POST" });
    expect(login.body.message).toMatchObject({ rpId: "exchange.test", challenge: expect.any(String) });
  });

  it("refuse a confirmation when the account has no passkey", async () => {
    const user = await makeUser();
    expect((await api("/security/passkeys/confirm/options", { token: user.token, method: "POST" })).body.code).toBe("passkey_none");
  });
});

describe("passkey answers", () => {
  it("spend their challenge before the answer is checked, so a challenge works at most once", async () => {
    const user = await makeUser();
    const id = await withStoredPasskey(user);
    const options = await api("/security/passkeys/confirm/options", { token: user.token, method: "POST" });
    expect(options.body.message.allowCredentials).toEqual([{ id, type: "public-key", transports: [] }]);
    const answer = forgedAnswer(id, options.body.message.challenge);
    const body = { code: "Blue42", passkey: answer };
    expect((await api("/security/anti_phishing", { token: user.token, body })).body.code).toBe("passkey_wrong");
    expect((await api("/security/anti_phishing", { token: user.token, body })).body.code).toBe("passkey_expired");
    expect((await api("/security/settings", { token: user.token })).body.message.anti_phishing_code).toBeNull();
  });

  it("refuse a challenge made for someone else or for another ceremony", async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    const idB = await withStoredPasskey(b);
    await withStoredPasskey(a);
    const forA = (await api("/security/passkeys/confirm/options", { token: a.token, method: "POST" })).body.message.challenge;
    expect((await api("/security/anti_phishing", { token: b.token, body: { code: "Blue42", passkey: forgedAnswer(idB, forA) } })).body.code).toBe("passkey_expired");
    const signIn = (await api("/user/login/passkey/options", { method: "POST" })).body.message.challenge;
    expect((await api("/security/anti_phishing", { token: b.token, body: { code: "Blue42", passkey: forgedAnswer(idB, signIn) } })).body.code).toBe("passkey_expired");
    // The sign-in challenge was not spent by that refusal: it still answers (wrongly) once.
    expect((await api("/user/login/passkey", { body: { response: forgedAnswer(idB, signIn) } })).body.code).toBe("passkey_wrong");
    expect((await api("/user/login/passkey", { body: { response: forgedAnswer(idB, signIn) } })).body.code).toBe("passkey_expired");
  });

  it("refuse answers that are not WebAuthn answers with a clear error and no 500", async () => {
    const user = await makeUser();
    for (const response of [{}, { id: "short" }, { ...forgedAnswer("x".repeat(20), "c"), type: "password" }, { ...forgedAnswer("x".repeat(20), "c"), id: "has spaces in it!!" }]) {
      const r = await api("/user/login/passkey", { body: { response } });
      expect(r.status, JSON.stringify(response)).toBe(400);
    }
    const unreadable = forgedAnswer("x".repeat(20), "c");
    unreadable.response.clientDataJSON = b64url("not json");
    expect((await api("/user/login/passkey", { body: { response: unreadable } })).body.code).toBe("passkey_invalid");
    const r = await api("/security/passkeys", { token: user.token, body: { name: "", response: {} } });
    expect(r.status).toBe(400);
  });

  it("make a passkey the second factor of a withdrawal for an account that has one", async () => {
    const user = await makeWithdrawer([{ currencyId: USDT, units: u8("100") }]);
    await withStoredPasskey(user);
    const info = await api("/wallet/get_info", { token: user.token, body: { currency: USDT } });
    expect(info.body.message).toMatchObject({ has_passkey: true, totp_enabled: false });
    const r = await api("/wallet/out", { token: user.token, body: { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "20", type: 1, password: FUND_PASSWORD } });
    expect(r.body.code).toBe("passkey_required");
  });

  it("remove one's own passkey only, with the second factor", async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    await withStoredPasskey(a);
    const listed = (await api("/security/passkeys", { token: a.token })).body.message;
    expect(listed).toEqual([{ id: expect.any(Number), name: "Laptop", created_at: expect.any(String), last_used_at: null }]);
    expect((await api("/security/passkeys", { token: b.token })).body.message).toEqual([]);
    expect((await api(`/security/passkeys/${listed[0].id}/delete`, { token: b.token, body: {} })).body.code).toBe("second_factor_required");
    expect((await api(`/security/passkeys/${listed[0].id}/delete`, { token: a.token, body: {} })).body.code).toBe("passkey_required");
    expect((await api("/security/passkeys", { token: a.token })).body.message).toHaveLength(1);
  });
});
