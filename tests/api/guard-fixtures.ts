/**
 * Factories for the account-guard tests (issue #29): a user with the authenticator on, its codes,
 * and the guard routes called the way the security screens call them.
 */
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { currentCode } from "../../worker/domain/account/totp.ts";
import { api, type TestUser } from "./helpers.ts";

export interface TotpUser extends TestUser {
  secret: string;
}

/** Turns the authenticator on for `user` through the API; answers the user with its secret. */
export async function withTotp(user: TestUser): Promise<TotpUser> {
  const enrol = await api("/user/totp/enrol", { token: user.token, method: "POST" });
  expect(enrol.body.type, JSON.stringify(enrol.body)).toBe("ok");
  const secret = enrol.body.message.secret as string;
  const confirm = await api("/user/totp/confirm", { token: user.token, body: { code: currentCode(secret) } });
  expect(confirm.body.type, JSON.stringify(confirm.body)).toBe("ok");
  return { ...user, secret };
}

/**
 * A code for the user's next second-factor check. A code is accepted once per 30 s step (that rule
 * has its own tests in kyc.test.ts and wallet-withdraw.test.ts); these tests make several changes
 * within one step, so the record of the step already used is cleared first.
 */
export async function totp(user: TotpUser): Promise<string> {
  await env.DB.prepare("UPDATE totp_secrets SET last_step = 0 WHERE user_id = ?").bind(user.id).run();
  return currentCode(user.secret);
}

export const setWhitelist = async (user: TotpUser, on: boolean) => api("/security/whitelist", { token: user.token, body: { on, totp_code: await totp(user) } });
export const lockSettings = async (user: TotpUser, days: number) => api("/security/lock", { token: user.token, body: { days, totp_code: await totp(user) } });

/** The kinds of the user's notifications, oldest first, with their ids (commit order). */
export async function noticeKinds(userId: number): Promise<{ id: number; kind: string }[]> {
  const { results } = await env.DB.prepare("SELECT id, kind FROM notifications WHERE user_id = ? ORDER BY id").bind(userId).all<{ id: number; kind: string }>();
  return results;
}
