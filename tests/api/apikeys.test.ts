// API keys for bots (issue #29): a bot signs requests with a key instead of a password; a read key
// cannot trade; wrong, stale and replayed signatures are refused; a key never withdraws or changes
// security settings; a key without addresses expires after 90 days; a key with addresses answers
// only from them.
import { env, SELF } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, balance, makeUser, seedSpotPair, type TestUser, units } from "./helpers.ts";
import { BTC, clearBook, USDT } from "./spot-fixtures.ts";
import { API_KEY_RATE } from "../../worker/lib/api-keys.ts";
import { currentCode } from "../../worker/domain/account/totp.ts";

const FUND = "135790";
const DAY = 24 * 3600 * 1000;
const enc = new TextEncoder();

/** The signature a client computes (written here from the documented rule, not taken from the server's code). */
async function sign(secret: string, payload: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(payload)))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

interface Key {
  api_key: string;
  secret: string;
}

/** A request signed with `key` as a bot sends it; `tamper` changes what is signed or sent. */
async function signed(
  key: Key,
  path: string,
  opts: { method?: string; body?: unknown; ip?: string; timestamp?: number; secret?: string; headers?: Record<string, string> } = {},
) {
  const method = opts.method ?? (opts.body === undefined ? "GET" : "POST");
  const body = opts.body === undefined ? "" : JSON.stringify(opts.body);
  const timestamp = String(opts.timestamp ?? Date.now());
  const signature = await sign(opts.secret ?? key.secret, `${timestamp}${method}/api${path}${body}`);
  const headers: Record<string, string> = {
    "x-api-key": key.api_key,
    "x-api-timestamp": timestamp,
    "x-api-signature": signature,
    "cf-connecting-ip": opts.ip ?? "198.51.100.20",
    lang: "en",
    ...(opts.headers ?? {}),
  };
  if (body) headers["content-type"] = "application/json";
  const res = await SELF.fetch(`http://exchange.test/api${path}`, { method, headers, body: body || undefined });
  return { status: res.status, body: (await res.json()) as any, signature, timestamp };
}

const makeKey = (u: TestUser, body: Record<string, unknown>) => api("/apikeys", { token: u.token, body: { fund_password: FUND, ...body } });

async function keyOf(u: TestUser, scopes: string[], ips?: string[]): Promise<Key & { id: number; expires_at: number | null; created_at: number }> {
  const r = await makeKey(u, { label: "bot", scopes, ...(ips ? { ips } : {}) });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message;
}

const bot = () => makeUser({ verified: 2, fundPassword: FUND, balances: [{ currencyId: USDT, units: units("10000") }, { currencyId: BTC, units: units("1") }] });
const limitBuy = { currency_id: BTC, legal_id: USDT, mode: 2, price: "100", num: "0.1" };

const usdt = (userId: number): Promise<[bigint, bigint]> => balance(userId, USDT);

beforeAll(async () => {
  await seedSpotPair();
});
beforeEach(clearBook);

describe("a bot with a trade key", () => {
  it("places and cancels a spot order with signed requests, no password and no session", async () => {
    const user = await bot();
    const key = await keyOf(user, ["read", "trade"]);
    const placed = await signed(key, "/transaction/walletIn", { body: limitBuy });
    expect(placed.body.type, JSON.stringify(placed.body)).toBe("ok");
    const orderId = placed.body.message.order_id as string;
    expect(await usdt(user.id)).toEqual([units("10000") - units("10"), units("10")]);

    const open = await signed(key, "/new/transaction/index");
    expect(open.body.data.lists.map((o: { id: string }) => o.id)).toContain(orderId);

    const cancelled = await signed(key, "/transaction_del", { body: { id: orderId } });
    expect(cancelled.body.type, JSON.stringify(cancelled.body)).toBe("ok");
    await expect.poll(() => usdt(user.id)).toEqual([units("10000"), 0n]);
  });

  it("answers the secret once: the list never shows it and the database does not hold it", async () => {
    const user = await bot();
    const key = await keyOf(user, ["trade"]);
    expect(key.secret.length).toBeGreaterThanOrEqual(40);
    const list = await api("/apikeys", { token: user.token });
    expect(list.body.message.list).toHaveLength(1);
    expect(list.body.message.list[0]).toMatchObject({ api_key: key.api_key, label: "bot", scopes: ["trade"], ips: [], expired: false });
    expect(JSON.stringify(list.body)).not.toContain(key.secret);
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE api_key = ?").bind(key.api_key).first();
    expect(JSON.stringify(row)).not.toContain(key.secret);
  });

  it("tells its owner a key was made, in their language, linking to the keys", async () => {
    const user = await bot();
    await keyOf(user, ["read", "trade"]);
    const inbox = await api("/notifications", { token: user.token, lang: "zh" });
    const notice = inbox.body.message.data.find((n: { kind: string }) => n.kind === "apikey_created");
    expect(notice).toMatchObject({ title: "新的 API 密钥", link: "/security/api-keys" });
    expect(notice.body).toContain("“bot”（read, trade）");
    // A refused key leaves no notice.
    await makeKey(user, { label: "nope", scopes: ["trade"], fund_password: "000000" });
    const again = await api("/notifications", { token: user.token });
    expect(again.body.message.data.filter((n: { kind: string }) => n.kind === "apikey_created")).toHaveLength(1);
  });

  it("is made only with the second factor", async () => {
    const user = await bot();
    const none = await api("/apikeys", { token: user.token, body: { label: "bot", scopes: ["trade"] } });
    expect(none.body.code).toBe("apikey_second_factor");
    const wrong = await makeKey(user, { label: "bot", scopes: ["trade"], fund_password: "000000" });
    expect(wrong.body.code).toBe("fund_password_wrong");
    const zh = await api("/apikeys", { token: user.token, lang: "zh", body: { label: "bot", scopes: ["trade"] } });
    expect(zh.body.message).toContain("资金密码");
    expect((await api("/apikeys", { token: user.token })).body.message.list).toHaveLength(0);
  });

  it("asks for the authenticator code instead when the account has one", async () => {
    const user = await bot();
    const { secret } = (await api("/user/totp/enrol", { token: user.token, body: {} })).body.message;
    expect((await api("/user/totp/confirm", { token: user.token, body: { code: currentCode(secret) } })).body.type).toBe("ok");
    expect((await makeKey(user, { label: "bot", scopes: ["trade"] })).body.code).toBe("totp_required");
    // The next time step's code (the confirmed one cannot be used twice).
    const r = await api("/apikeys", { token: user.token, body: { label: "bot", scopes: ["trade"], totp_code: currentCode(secret, Date.now() + 30_000) } });
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  });

  it("refuses bad labels, scopes and addresses, naming the field", async () => {
    const user = await bot();
    expect((await makeKey(user, { label: "", scopes: ["trade"] })).body.code).toBe("apikey_label");
    expect((await makeKey(user, { label: "bot", scopes: [] })).body.code).toBe("apikey_scopes");
    expect((await makeKey(user, { label: "bot", scopes: ["withdraw"] })).body.code).toBe("apikey_scopes");
    expect((await makeKey(user, { label: "bot", scopes: ["trade", "trade"] })).body.code).toBe("apikey_scopes");
    const ip = await makeKey(user, { label: "bot", scopes: ["trade"], ips: ["300.1.1.1"] });
    expect(ip.body).toMatchObject({ code: "apikey_ips", field: "ips.0" });
  });
});

describe("what a key may do", () => {
  it("a read key reads but cannot trade", async () => {
    const user = await bot();
    const key = await keyOf(user, ["read"]);
    const read = await signed(key, "/transaction/balance?currency_id=1&legal_id=3");
    expect(read.body.type, JSON.stringify(read.body)).toBe("ok");
    const trade = await signed(key, "/transaction/walletIn", { body: limitBuy });
    expect(trade.status).toBe(403);
    expect(trade.body.code).toBe("apikey_scope");
    expect(await usdt(user.id)).toEqual([units("10000"), 0n]);
  });

  it("a key never withdraws, makes keys or reaches a security setting, even beside a session token", async () => {
    const user = await bot();
    const key = await keyOf(user, ["read", "trade"]);
    const withdraw = { currency: USDT, number: "10", address: "TXabc", fund_password: FUND };
    for (const [path, body] of [
      ["/wallet/out", withdraw],
      ["/apikeys", { label: "more", scopes: ["trade"], fund_password: FUND }],
      [`/apikeys/${key.id}/delete`, {}],
      ["/security/sessions/revoke", { all: true }],
      ["/user/fund_password", { fund_password: "246810", old_fund_password: FUND }],
      ["/wallet/change", { currency_id: USDT, number: "1", from_field: "change", to_field: "micro" }],
    ] as const) {
      const r = await signed(key, path, { body });
      expect(r.body.code, path).toBe("apikey_scope");
      const withSession = await signed(key, path, { body, headers: { authorization: user.token } });
      expect(withSession.body.code, path).toBe("apikey_scope");
    }
    for (const path of ["/user/info", "/apikeys", "/security/sessions", "/wallet/holds"]) {
      expect((await signed(key, path)).body.code, path).toBe("apikey_scope");
    }
    expect(await usdt(user.id)).toEqual([units("10000"), 0n]);
    expect((await api("/apikeys", { token: user.token })).body.message.list).toHaveLength(1);
  });
});

describe("signatures", () => {
  it("refuses a wrong, a stale, a future and a replayed signature, and changes nothing", async () => {
    const user = await bot();
    const key = await keyOf(user, ["trade"]);
    const wrong = await signed(key, "/transaction/walletIn", { body: limitBuy, secret: "not-the-secret" });
    expect([wrong.status, wrong.body.code]).toEqual([401, "apikey_signature"]);
    const stale = await signed(key, "/transaction/walletIn", { body: limitBuy, timestamp: Date.now() - 6_000 });
    expect([stale.status, stale.body.code]).toEqual([401, "apikey_timestamp"]);
    const future = await signed(key, "/transaction/walletIn", { body: limitBuy, timestamp: Date.now() + 6_000 });
    expect(future.body.code).toBe("apikey_timestamp");
    // The same body signed for another path does not pass.
    const timestamp = String(Date.now());
    const elsewhere = await sign(key.secret, `${timestamp}POST/api/transaction/walletOut${JSON.stringify(limitBuy)}`);
    const moved = await SELF.fetch("http://exchange.test/api/transaction/walletIn", {
      method: "POST",
      headers: { "x-api-key": key.api_key, "x-api-timestamp": timestamp, "x-api-signature": elsewhere, "content-type": "application/json" },
      body: JSON.stringify(limitBuy),
    });
    expect(((await moved.json()) as any).code).toBe("apikey_signature");
    expect(await usdt(user.id)).toEqual([units("10000"), 0n]);

    const first = await signed(key, "/transaction/walletIn", { body: limitBuy });
    expect(first.body.type).toBe("ok");
    const again = await SELF.fetch("http://exchange.test/api/transaction/walletIn", {
      method: "POST",
      headers: { "x-api-key": key.api_key, "x-api-timestamp": first.timestamp, "x-api-signature": first.signature, "content-type": "application/json", lang: "en" },
      body: JSON.stringify(limitBuy),
    });
    expect(again.status).toBe(401);
    expect(((await again.json()) as any).code).toBe("apikey_replayed");
    expect(await usdt(user.id)).toEqual([units("10000") - units("10"), units("10")]);
  });

  it("refuses an unknown key and a deleted one", async () => {
    const user = await bot();
    const key = await keyOf(user, ["read"]);
    const unknown = await signed({ api_key: "hxnotakeyatallnotakey00", secret: key.secret }, "/transaction/balance?currency_id=1&legal_id=3");
    expect(unknown.body.code).toBe("apikey_invalid");
    const del = await api(`/apikeys/${key.id}/delete`, { token: user.token, body: {} });
    expect(del.body.message).toEqual({ deleted: true });
    const after = await signed(key, "/transaction/balance?currency_id=1&legal_id=3");
    expect(after.body.code).toBe("apikey_invalid");
    expect((await api("/apikeys", { token: user.token })).body.message.list).toHaveLength(0);
    // Another user's key id is not found.
    const other = await bot();
    const theirs = await keyOf(other, ["read"]);
    expect((await api(`/apikeys/${theirs.id}/delete`, { token: user.token, body: {} })).body.code).toBe("not_found");
  });
});

describe("expiry and addresses", () => {
  it("a key without addresses expires 90 days after it was made", async () => {
    const user = await bot();
    const key = await keyOf(user, ["read"]);
    expect(key.expires_at! - key.created_at).toBe(90 * DAY);
    expect((await signed(key, "/transaction/balance?currency_id=1&legal_id=3")).body.type).toBe("ok");
    // 90 days on: the stored expiry has passed.
    await env.DB.prepare("UPDATE api_keys SET created_at = created_at - ?1, expires_at = expires_at - ?1 WHERE id = ?2").bind(90 * DAY, key.id).run();
    const late = await signed(key, "/transaction/balance?currency_id=1&legal_id=3");
    expect([late.status, late.body.code]).toEqual([401, "apikey_expired"]);
    const list = await api("/apikeys", { token: user.token });
    expect(list.body.message.list[0].expired).toBe(true);
  });

  it("a key bound to addresses does not expire and answers only requests from them", async () => {
    const user = await bot();
    const key = await keyOf(user, ["read", "trade"], ["203.0.113.7", "2001:DB8::1"]);
    expect(key.expires_at).toBeNull();
    expect((await signed(key, "/transaction/balance?currency_id=1&legal_id=3", { ip: "203.0.113.7" })).body.type).toBe("ok");
    expect((await signed(key, "/transaction/balance?currency_id=1&legal_id=3", { ip: "2001:db8::1" })).body.type).toBe("ok");
    const elsewhere = await signed(key, "/transaction/walletIn", { body: limitBuy, ip: "203.0.113.8" });
    expect([elsewhere.status, elsewhere.body.code]).toEqual([403, "apikey_ip"]);
    expect(await usdt(user.id)).toEqual([units("10000"), 0n]);
  });
});

describe("rate limits", () => {
  it("each key has its own limit: a key past it is refused while its owner's session goes on", async () => {
    const user = await bot();
    const busy = await keyOf(user, ["read"]);
    const calm = await keyOf(user, ["read"]);
    // The busy key has used up this minute's requests (asked again if the minute turned in between).
    const windowOf = (t: number) => t - (t % API_KEY_RATE.windowMs);
    let refused;
    let window;
    do {
      window = windowOf(Date.now());
      await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = excluded.count")
        .bind(`apikey:${busy.id}`, window, API_KEY_RATE.limit)
        .run();
      refused = await signed(busy, "/transaction/balance?currency_id=1&legal_id=3");
    } while (windowOf(Date.now()) !== window);
    expect([refused.status, refused.body.code]).toEqual([429, "too_many_requests"]);
    expect((await signed(calm, "/transaction/balance?currency_id=1&legal_id=3")).body.type).toBe("ok");
    expect((await api("/transaction/balance?currency_id=1&legal_id=3", { token: user.token })).body.type).toBe("ok");
  });
});

describe("the OpenAPI document", () => {
  it("describes the signing and names the routes a key may call with their scope", async () => {
    const doc = (await api("/openapi.json")).body;
    const schemes = doc.components.securitySchemes;
    expect(schemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-API-KEY" });
    expect(schemes.apiTimestamp.name).toBe("X-API-TIMESTAMP");
    expect(schemes.apiSignature.description).toContain("HMAC-SHA256");
    const place = doc.paths["/api/transaction/walletIn"].post;
    expect(place["x-api-key-scope"]).toBe("trade");
    expect(place.security).toEqual(expect.arrayContaining([{ session: [] }, { apiKey: [], apiTimestamp: [], apiSignature: [] }]));
    expect(doc.paths["/api/transaction/balance"].get["x-api-key-scope"]).toBe("read");
    for (const [path, method] of [["/api/wallet/out", "post"], ["/api/apikeys", "post"], ["/api/user/info", "get"]] as const) {
      expect(doc.paths[path][method]["x-api-key-scope"], path).toBeUndefined();
      expect(JSON.stringify(doc.paths[path][method].security), path).not.toContain("apiKey");
    }
  });
});

describe("the settings lock", () => {
  it("freezes API keys: while the account is locked no key is made or deleted, and the existing key still trades", async () => {
    const user = await bot();
    const key = await keyOf(user, ["read", "trade"]);
    // Locked as POST /api/security/lock leaves it (that route and its second factor: whitelist.test.ts).
    await env.DB.prepare("UPDATE users SET settings_locked_until = ? WHERE id = ?").bind(Date.now() + DAY, user.id).run();

    const made = await makeKey(user, { label: "second", scopes: ["read"] });
    expect(made.body.code, JSON.stringify(made.body)).toBe("settings_locked");
    const deleted = await api(`/apikeys/${key.id}/delete`, { token: user.token, body: {} });
    expect(deleted.body.code, JSON.stringify(deleted.body)).toBe("settings_locked");
    const listed = (await api("/apikeys", { token: user.token })).body.message.list as { id: number }[];
    expect(listed.map((k) => k.id)).toEqual([key.id]);
    expect((await signed(key, "/transaction/walletIn", { body: limitBuy })).body.type).toBe("ok");
  });
});
