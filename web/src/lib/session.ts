/**
 * The locally kept session (spec §3 "Session data kept locally"). Each field lives under the
 * spec's localStorage key so other screens and older tooling find it where they expect; the
 * nanostore mirrors it for React. Logging out clears every session field but keeps the language
 * and the chosen currency.
 */
import { map } from "nanostores";
import { useStore } from "@nanostores/react";

export interface SessionState {
  token: string;
  user_id: string;
  accountNum: string;
  /** review_status as a string: "0" not submitted, "1" under review, "2" approved, "3" rejected. */
  verified: string;
  true_name: string;
  last_time: string;
  extension_code: string;
  is_seller: string;
  /** "user" or "operator" (GET /api/user/info); only shows or hides the operator console link. */
  role: string;
  /** "0" until the e-mail or phone is proven with the code sent at sign-up (GET /api/user/info; the banner, lib/contact.ts). */
  contact_verified: string;
  currentCurrencyID: string;
  currentCurrency: string;
  legal_name: string;
}

const defaults: SessionState = {
  token: "",
  user_id: "",
  accountNum: "",
  verified: "0",
  true_name: "",
  last_time: "",
  extension_code: "",
  is_seller: "0",
  role: "user",
  contact_verified: "1",
  currentCurrencyID: "1",
  currentCurrency: "BTC",
  legal_name: "USDT",
};

/** Fields that belong to a login; cleared on logout and on a 999 answer. */
const loginFields: (keyof SessionState)[] = [
  "token",
  "user_id",
  "accountNum",
  "verified",
  "true_name",
  "last_time",
  "extension_code",
  "is_seller",
  "role",
  "contact_verified",
];

function read(): SessionState {
  const state = { ...defaults };
  try {
    for (const key of Object.keys(defaults) as (keyof SessionState)[]) {
      const v = localStorage.getItem(key);
      if (v !== null) state[key] = v;
    }
  } catch {
    // storage blocked: an in-memory session only
  }
  return state;
}

export const $session = map<SessionState>(read());

function write(patch: Partial<SessionState>) {
  try {
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === "") localStorage.removeItem(k);
      else localStorage.setItem(k, v);
    }
  } catch {
    // keep going in memory
  }
}

/** Updates some session fields and persists them. */
export function patchSession(patch: Partial<SessionState>) {
  write(patch);
  for (const [k, v] of Object.entries(patch) as [keyof SessionState, string | undefined][]) {
    $session.setKey(k, v ?? defaults[k]);
  }
}

/** Forgets the login (token, user id and the cached profile). */
export function clearLogin() {
  write(Object.fromEntries(loginFields.map((k) => [k, ""])));
  for (const k of loginFields) $session.setKey(k, defaults[k]);
}

export function getToken(): string {
  return $session.get().token;
}

export function isLoggedIn(): boolean {
  return $session.get().token !== "";
}

export function useSession(): SessionState {
  return useStore($session);
}

// Another tab logged in or out: follow it.
if (typeof window !== "undefined") {
  window.addEventListener("storage", (e) => {
    if (e.key && e.key in defaults) {
      const key = e.key as keyof SessionState;
      $session.setKey(key, e.newValue ?? defaults[key]);
    }
  });
}

/** Whether someone is logged in, following logins and logouts (screens open to guests hide what is per user). */
export function useLoggedIn(): boolean {
  return useStore($session, { keys: ["token"] }).token !== "";
}
