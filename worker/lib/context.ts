/** The Hono environment shared by every route: bindings plus per-request variables. */
import type { Locale } from "../../schemas/locale.ts";

export interface SessionUser {
  id: number;
  account: string;
  role: "user" | "operator" | "system";
  reviewStatus: number;
  /** 0 for a request signed with an API key (no session; worker/lib/api-keys.ts). */
  sessionId: number;
  /** When the session was last seen (the devices list), as read with it. */
  lastSeenAt?: number;
}

/**
 * A session taken from an isolate's hint (worker/lib/auth.ts `requireTrader`), not yet confirmed by
 * D1 in this request: the order's freeze batch checks it (`LIVE_TRADER_USER_ID`) and sets `confirmed`.
 */
export interface SessionGuard {
  readonly sessionId: number;
  readonly userId: number;
  /** What the session must prove (durable/account/sessions.ts): "trader" on the order routes, "user" on a cancel or a transfer (objects mode only). */
  readonly level: "trader" | "user";
  confirmed: boolean;
}

/** The API key a signed request was verified with. */
export interface ApiKeyAuth {
  id: number;
  scopes: readonly ("read" | "trade")[];
}

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    locale: Locale;
    user: SessionUser;
    sessionGuard?: SessionGuard;
    /** Set when the request was signed with an API key that the route accepts (worker/lib/api-keys.ts). */
    apiKey?: ApiKeyAuth;
  };
};
