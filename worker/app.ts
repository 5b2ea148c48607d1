/**
 * The /api application: one Hono sub-app per product area, mounted with chained .route() so the
 * route types flow to the web client. The Worker holds no state; D1 and the pair objects do.
 */
import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { parseLocale } from "../schemas/locale.ts";
import type { AppEnv } from "./lib/context.ts";
import { ApiError } from "./lib/errors.ts";
import { answersFile, errorResponse } from "./lib/respond.ts";
import { pairById, pairStub } from "./domain/spot/pairs.ts";
import { openUserChannel } from "./lib/user-channel.ts";
import { SessionGone } from "./lib/auth.ts";
import { authRoutes } from "./routes/auth.ts";
import { contentRoutes } from "./routes/content.ts";
import { devRoutes } from "./routes/dev.ts";
import { devClockRoutes } from "./routes/dev-clock.ts";
import { devAccountRoutes } from "./routes/dev-accounts.ts";
import { spotRoutes } from "./routes/spot.ts";
import { walletRoutes } from "./routes/wallet.ts";
import { accountRoutes } from "./routes/account.ts";
import { operatorRoutes } from "./routes/operator.ts";
import { microtradeRoutes } from "./routes/microtrade.ts";
import { operatorSecondsRoutes } from "./routes/operator-seconds.ts";
import { c2cRoutes } from "./routes/c2c.ts";
import { operatorC2cRoutes } from "./routes/operator-c2c.ts";
import { leverRoutes } from "./routes/lever.ts";
import { operatorLeverRoutes } from "./routes/operator-lever.ts";
import { docsRoutes } from "./routes/docs.ts";
import { notificationRoutes } from "./routes/notifications.ts";
import { supportRoutes } from "./routes/support.ts";
import { operatorSupportRoutes } from "./routes/operator-support.ts";
import { inviteRoutes, operatorInviteRoutes } from "./routes/invite.ts";
import { voteRoutes } from "./routes/vote.ts";
import { operatorVoteRoutes } from "./routes/operator-vote.ts";
import { insuranceRoutes } from "./routes/insurance.ts";
import { operatorInsuranceRoutes } from "./routes/operator-insurance.ts";
import { launchRoutes } from "./routes/launch.ts";
import { operatorLaunchRoutes } from "./routes/operator-launch.ts";
import { earnRoutes } from "./routes/earn.ts";
import { operatorEarnRoutes } from "./routes/operator-earn.ts";
import { operatorTransparencyRoutes, transparencyRoutes } from "./routes/transparency.ts";
import { miningRoutes } from "./routes/mining.ts";
import { operatorMiningRoutes } from "./routes/operator-mining.ts";
import { securityRoutes } from "./routes/security.ts";
import { alertRoutes } from "./routes/alerts.ts";
import { marketRoutes } from "./routes/market.ts";
import { apiKeyRoutes } from "./routes/apikeys.ts";
import { deviceRoutes } from "./routes/devices.ts";
import { exportRoutes } from "./routes/export.ts";
import { operatorMaintenanceRoutes } from "./routes/operator-maintenance.ts";
import { operatorAccountRoutes } from "./routes/operator-accounts.ts";
import { maintenanceGuard } from "./lib/maintenance.ts";
import { MAINTENANCE_REFUSED } from "../durable/account/maintenance.ts";

const base = new Hono<AppEnv>();

base.use("*", async (c, next) => {
  c.set("requestId", c.req.header("cf-ray") ?? crypto.randomUUID());
  c.set("locale", parseLocale(c.req.header("lang") ?? c.req.query("lang")));
  await next();
  // API answers carry balances, orders and identities: never stored by a browser or a proxy.
  // A route that serves something public and cacheable sets its own Cache-Control.
  const cache = c.res.headers.has("cache-control") ? [] : [["Cache-Control", "no-store"] as const];
  answerHeaders(c, [["x-request-id", c.get("requestId")], ...cache, ["X-Content-Type-Options", "nosniff"], ["Referrer-Policy", "strict-origin-when-cross-origin"]]);
});

/**
 * Sets headers on the finished answer in place. Hono's `c.header` after the handler copies the
 * whole Response for each header (four copies an answer, measured at about 0.1 ms of runtime CPU
 * a request); an answer a route builds has headers that can change, so they are set on it. One
 * passed through from elsewhere (an object's fetch: its headers cannot change) is copied once.
 */
function answerHeaders(c: Context<AppEnv>, headers: readonly (readonly [string, string])[]) {
  try {
    for (const [k, v] of headers) c.res.headers.set(k, v);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    c.res = new Response(c.res.body, c.res);
    for (const [k, v] of headers) c.res.headers.set(k, v);
  }
}

base.use("*", async (c, next) => {
  // CORS only for the configured app origins (comma-separated: every origin the SPA is served
  // from, when the API has several hosts); with none configured the API is same-origin only.
  const origins = (c.env.APP_ORIGIN ?? "").split(",").map((o) => o.trim()).filter((o) => o !== "");
  if (origins.length === 0) return next();
  return cors({ origin: origins, allowHeaders: ["Authorization", "Content-Type", "lang", "X-API-KEY", "X-API-TIMESTAMP", "X-API-SIGNATURE"], maxAge: 600 })(c, next);
});

// The read-only window of a migration: money routes answer `maintenance` while it is on (worker/lib/maintenance.ts).
base.use("/api/*", maintenanceGuard);

base.onError((err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  // A session hint the freeze batch found ended: requireTrader answers what D1 says (worker/lib/auth.ts).
  if (err instanceof SessionGone) return errorResponse(c, new ApiError("try_again", 503));
  // The account object refused a money call: the maintenance switch is on (durable/account/maintenance.ts).
  if (String(err).includes(MAINTENANCE_REFUSED)) return errorResponse(c, new ApiError("maintenance", 503));
  if (err instanceof HTTPException && err.status < 500) {
    // Hono's own 4xx (malformed JSON, wrong content type, body too large).
    return errorResponse(c, new ApiError("invalid_param", err.status === 413 ? 413 : 400));
  }
  console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), path: c.req.path, error: String(err), stack: (err as Error)?.stack }));
  return errorResponse(c, new ApiError("try_again", 500));
});

// One socket per pair: /ws?pair={pairId} is handed to that pair's Durable Object (DESIGN §5).
base.get("/ws", answersFile({ summary: "WebSocket upgrade to a pair's object: /ws?pair={id}; messages in schemas/realtime.ts" }, []), async (c) => {
  const pairId = Number(c.req.query("pair") ?? "1");
  if (!Number.isSafeInteger(pairId) || pairId <= 0 || !(await pairById(c.env.DB, pairId))) throw new ApiError("pair_closed");
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw new ApiError("invalid_param", 400);
  const url = new URL(c.req.url);
  url.searchParams.set("pair", String(pairId));
  return pairStub(c.env, pairId).fetch(new Request(url, c.req.raw));
});

// The signed-in user's private channel: /ws/user, token as a Sec-WebSocket-Protocol value (worker/lib/user-channel.ts).
base.get("/ws/user", answersFile({ summary: "WebSocket upgrade to the user's private channel; messages in schemas/realtime.ts (userServerMessageSchema)" }, []), async (c) => {
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw new ApiError("invalid_param", 400);
  return openUserChannel(c.env, c.req.raw);
});

base.notFound((c) => errorResponse(c, new ApiError("not_found", 404)));

export const app = base
  .route("/api", authRoutes)
  .route("/api", contentRoutes)
  .route("/api", spotRoutes)
  .route("/api", walletRoutes)
  .route("/api", accountRoutes)
  .route("/api", operatorRoutes)
  .route("/api", microtradeRoutes)
  .route("/api", operatorSecondsRoutes)
  .route("/api", c2cRoutes)
  .route("/api", operatorC2cRoutes)
  .route("/api", leverRoutes)
  .route("/api", operatorLeverRoutes)
  .route("/api", notificationRoutes)
  .route("/api", supportRoutes)
  .route("/api", operatorSupportRoutes)
  .route("/api", inviteRoutes)
  .route("/api", operatorInviteRoutes)
  .route("/api", voteRoutes)
  .route("/api", operatorVoteRoutes)
  .route("/api", insuranceRoutes)
  .route("/api", operatorInsuranceRoutes)
  .route("/api", launchRoutes)
  .route("/api", operatorLaunchRoutes)
  .route("/api", earnRoutes)
  .route("/api", operatorEarnRoutes)
  .route("/api", transparencyRoutes)
  .route("/api", operatorTransparencyRoutes)
  .route("/api", miningRoutes)
  .route("/api", operatorMiningRoutes)
  .route("/api", securityRoutes)
  .route("/api", alertRoutes)
  .route("/api", marketRoutes)
  .route("/api", apiKeyRoutes)
  .route("/api", deviceRoutes)
  .route("/api", exportRoutes)
  .route("/api", devClockRoutes)
  .route("/api", devRoutes)
  .route("/api", devAccountRoutes)
  .route("/api", operatorMaintenanceRoutes)
  .route("/api", operatorAccountRoutes)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Hono's own generic parameters: any app, path and input
  .route("/api", docsRoutes((): Hono<AppEnv, any, any> => app));

export type AppType = typeof app;
