/** Calls of the account area (spec §7) and the login bookkeeping around them. */
import type { Session, UserInfo } from "../../../../schemas/auth.ts";
import { api } from "../../lib/api.ts";
import { clearLogin, patchSession } from "../../lib/session.ts";
import { getAppLocale } from "../../i18n/index.ts";

export interface Captcha {
  /** A data: URL of the captcha image. */
  code: string;
  code_id: string;
}

export interface Country {
  country_id: number;
  area_code: string;
  name_cn: string;
  name_en: string;
}

export interface RegisterPayload {
  type: 1 | 2;
  user_string: string;
  password: string;
  re_password: string;
  country_code: string;
  code_id: string;
  code: string;
  extension_code?: string;
}

export const fetchCaptcha = () => api.post<Captcha>("/api/login/smscode", undefined, { notify: false });

export const fetchCountries = (signal?: AbortSignal) =>
  api.get<Country[]>("/api/country/list", { notify: false, ...(signal ? { signal } : {}) });

/** Resolves when the account is free to register; rejects (toast shown) when it is taken. */
export const checkAccount = (mode: 1 | 2, account: string) => api.post<unknown>("/api/new/check/account", { mode, account });

/** Register failures are announced by the page with the "Tip:" prefix (spec §8), so no toast here. */
export const register = (payload: RegisterPayload) => api.post<Session>("/api/user/register", payload, { notify: false });

export const login = (user_string: string, password: string, type: 1 | 2) =>
  api.post<Session>("/api/user/login", { user_string, password, type });

export const fetchUserInfo = () => api.get<UserInfo>("/api/user/info", { notify: false });

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

/** Ends the session on the server (best effort) and forgets it locally. */
export async function logout(): Promise<void> {
  try {
    await api.post<unknown>("/api/user/logout", undefined, { notify: false, special: false });
  } catch {
    // already expired or offline: forgetting it locally is what matters
  }
  clearLogin();
}

export const sendForgetCode = (user_string: string) =>
  api.post<unknown>("/api/sms_mail", { user_string, type: "forget", lang: getAppLocale() });

export const checkEmailCode = (user_string: string, email_code: string) =>
  api.post<unknown>("/api/user/check_email", { user_string, email_code });

export const resetPassword = (body: { account: string; password: string; repassword: string; code: string }) =>
  api.post<unknown>("/api/user/forget", body);
