/** The Hono environment shared by every route: bindings plus per-request variables. */
import type { Locale } from "../../schemas/locale.ts";

export interface SessionUser {
  id: number;
  account: string;
  role: "user" | "operator" | "system";
  reviewStatus: number;
  sessionId: number;
}

/**
 * A session taken from an isolate's hint (worker/lib/auth.ts `requireTrader`), not yet confirmed by
 * D1 in this request: the order's freeze batch checks it (`LIVE_TRADER_USER_ID`) and sets `confirmed`.
 */
export interface SessionGuard {
  readonly sessionId: number;
  readonly userId: number;
  confirmed: boolean;
}

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    locale: Locale;
    user: SessionUser;
    sessionGuard?: SessionGuard;
  };
};
