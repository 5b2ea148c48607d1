/**
 * Calls of the account area (spec §7) and the login bookkeeping around them. Login, register and
 * the account check move to another API host when theirs fails (spec §7 host failover, lib/hosts.ts).
 */
import type { Captcha, RegisterInput, Session, UserInfo } from "../../../../schemas/auth.ts";
import type { Country } from "../../../../schemas/content.ts";
import { call, client } from "../../lib/api.ts";
import { clearLogin, patchSession } from "../../lib/session.ts";
import { getAppLocale } from "../../i18n/index.ts";

export type { Captcha, Country };
export type RegisterPayload = RegisterInput & { type: 1 | 2 };

export const fetchCaptcha = () => call((o) => client.api.login.smscode.$post({}, o), { notify: false });

export const fetchCountries = (signal?: AbortSignal) => call((o) => client.api.country.list.$get({}, o), { notify: false, signal });

/** Resolves when the account is free to register; rejects (toast shown) when it is taken. */
export const checkAccount = (mode: 1 | 2, account: string) => call((o) => client.api.new.check.account.$post({ json: { mode, account } }, o), { failover: true });

/** Register failures are announced by the page with the "Tip:" prefix (spec §8), so no toast here. */
export const register = (payload: RegisterPayload) => call((o) => client.api.user.register.$post({ json: payload }, o), { notify: false, failover: true });

export const login = (user_string: string, password: string, type: 1 | 2) =>
  call((o) => client.api.user.login.$post({ json: { user_string, password, type } }, o), { failover: true });

export const fetchUserInfo = () => call((o) => client.api.user.info.$get({}, o), { notify: false });

/** Loads the profile and caches it in the session (user id, account, verification, real name). */
export async function refreshUserInfo(): Promise<UserInfo> {
  const info = await fetchUserInfo();
  patchSession({
    user_id: String(info.id),
    accountNum: info.account,
    verified: String(info.review_status),
    true_name: info.name ?? "",
    extension_code: info.extension_code,
    is_seller: String(info.is_seller),
    role: info.role,
    contact_verified: info.contact_verified ? "1" : "0",
  });
  return info;
}

/** Stores a fresh session token, then loads the profile (spec §4 "Login: stores token, loads user info"). */
export async function completeLogin(session: Session, account: string): Promise<void> {
  patchSession({ token: session.token, last_time: session.lastTime === null ? "" : String(session.lastTime), accountNum: account });
  try {
    await refreshUserInfo();
  } catch {
    // The token is valid; the drawer falls back to the account typed in until the next refresh.
  }
}

/** Ends the session on the server (best effort). */
export const endSession = () => call((o) => client.api.user.logout.$post({}, o), { notify: false, special: false });

/** Ends the session on the server (best effort) and forgets it locally. */
export async function logout(): Promise<void> {
  try {
    await endSession();
  } catch {
    // already expired or offline: forgetting it locally is what matters
  }
  clearLogin();
}

export const sendForgetCode = (user_string: string) =>
  call((o) => client.api.sms_mail.$post({ json: { user_string, type: "forget", lang: getAppLocale() } }, o));

export const checkEmailCode = (user_string: string, email_code: string) =>
  call((o) => client.api.user.check_email.$post({ json: { user_string, email_code } }, o));

export const resetPassword = (body: { account: string; password: string; repassword: string; code: string }) =>
  call((o) => client.api.user.forget.$post({ json: body }, o));

/** The proof of the account's e-mail or phone (issue #29): its state, the code, a new code. */
export const fetchContactState = (signal?: AbortSignal) => call((o) => client.api.user.verify_contact.$get({}, o), { notify: false, signal });

/** Failures (wrong, expired, too many tries) are shown by the banner under its field, not as a toast. */
export const verifyContactCode = (code: string) => call((o) => client.api.user.verify_contact.$post({ json: { code } }, o), { notify: false });

export const resendContactCode = () => call((o) => client.api.user.verify_contact.resend.$post({}, o), { notify: false });
