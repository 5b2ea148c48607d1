/** The Hono environment shared by every route: bindings plus per-request variables. */
import type { Locale } from "../../schemas/locale.ts";

export interface SessionUser {
  id: number;
  account: string;
  role: "user" | "operator" | "system";
  reviewStatus: number;
  sessionId: number;
}

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    locale: Locale;
    user: SessionUser;
  };
};
