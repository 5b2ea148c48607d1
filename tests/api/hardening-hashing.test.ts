/**
 * Password hashing under concurrency (from the outside security test, hardening.test.ts): at the
 * production scrypt cost, whose memory is what the limits guard, dozens of parallel logins and
 * fund-password checks are answered without a 5xx. The test Worker hashes new passwords cheaper
 * (PASSWORD_COST=test), so these users are given production-cost hashes (`productionCost`).
 * Its own file: hashing-bound and the slowest of the hardening tests, it runs beside the rest.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { HASH_LIMITS, SCRYPT_PARAMS } from "../../worker/lib/password.ts";
import { api, makeUser } from "./helpers.ts";
import { bal, expectBooksBalanced, FUND_PASSWORD, makeWithdrawer, seedWalletCurrencies, u8, USDT } from "./wallet-fixtures.ts";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);

describe("password hashing under concurrency", () => {
  it("keeps the hash parameters pinned, and the hashes at once within a third of the isolate's memory", () => {
    expect(SCRYPT_PARAMS).toEqual({ N: 16384, r: 8, p: 5, keyLength: 32, saltLength: 16 });
    const perHash = 128 * SCRYPT_PARAMS.N * SCRYPT_PARAMS.r; // 16 MiB
    expect(HASH_LIMITS.concurrent * perHash).toBeLessThanOrEqual((128 * 2 ** 20) / 3);
    expect(HASH_LIMITS.waitMs).toBeLessThanOrEqual(10_000);
  });

  it("answers 60 parallel logins without a single 5xx", { timeout: 180_000 }, async () => {
    const users = await Promise.all(Array.from({ length: 12 }, () => makeUser({ password: "Owner1234", productionCost: true })));
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        api("/user/login", { body: { user_string: users[i % 12]!.account, password: "Owner1234" }, headers: { "cf-connecting-ip": `198.51.100.${100 + i}` } }),
      ),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    // Distinct addresses and right passwords: each signs in, or (on a machine too slow to hash all
    // of them within the wait) is told plainly that the server is busy.
    const signedIn = results.filter((r) => r.body.type === "ok");
    expect(results.filter((r) => r.body.type !== "ok").map((r) => r.body.code)).toEqual(Array(60 - signedIn.length).fill("server_busy"));
    expect(signedIn.length).toBeGreaterThan(2);
  });

  // Hashing-bound (six users, thirty fund-password checks): a loaded machine needs more than the default.
  it("answers 30 parallel withdrawals without a single 5xx, and books each exactly once", { timeout: 180_000 }, async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => makeWithdrawer([{ currencyId: USDT, units: u8("100") }], { productionCost: true })));
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api("/wallet/out", { token: users[i % 6]!.token, body: { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "10", type: 1, password: FUND_PASSWORD } }),
      ),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    const accepted = results.filter((r) => r.body.type === "ok");
    expect(results.filter((r) => r.body.type !== "ok").map((r) => r.body.code)).toEqual(Array(30 - accepted.length).fill("server_busy"));
    expect(accepted.length).toBeGreaterThan(2);
    // Each accepted withdrawal froze its amount and fee once; nothing else moved.
    let made = 0;
    for (const u of users) {
      const held = await env.DB.prepare("SELECT count(*) AS n, CAST(coalesce(sum(amount + fee), 0) AS TEXT) AS t FROM withdrawals WHERE user_id = ?").bind(u.id).first<{ n: number; t: string }>();
      made += held!.n;
      expect(await bal(u.id, USDT)).toEqual([u8("100") - BigInt(held!.t), BigInt(held!.t)]);
    }
    expect(made).toBe(accepted.length);
  });
});
