/**
 * Leveraged contracts (spec §7 /api/lever/*; DESIGN §9). Parses, authorises and calls
 * worker/domain/lever/. The whole product answers feature_off when PRODUCT_LEVER is off; opening
 * a position needs identity verification (998). Every id is looked up within the caller's own
 * positions: another user's id reads as "not found".
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import {
  leverBatchClosedSchema,
  leverBatchCloseSchema,
  leverDealQuerySchema,
  leverDealSchema,
  leverIdSchema,
  leverMyTradeQuerySchema,
  leverMyTradeSchema,
  leverPositionDetailSchema,
  leverPositionQuerySchema,
  leverPositionSchema,
  leverSetStopSchema,
  leverSubmitSchema,
} from "../../schemas/lever.ts";
import { errorText } from "../../schemas/errors.ts";
import { requireAccountUser, requireTrader, requireUser, sessionUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { ApiError } from "../lib/errors.ts";
import { productsOf } from "../lib/products.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { batchClose, cancelPosition, closePosition, deal, myTrades, positionDetail, setStops, submitPosition } from "../domain/lever/positions.ts";

/**
 * Opening (and the open form's data) refuses when the deployment switched the product off. What
 * an owner already has stays theirs: listing, closing, cancelling and the stops of existing
 * positions keep working, so no money is trapped by a switch (the lever balance can be
 * transferred out too: worker/domain/wallet/transfers.ts).
 */
const leverOn = createMiddleware<AppEnv>(async (c, next) => {
  if (!productsOf(c.env).lever) throw new ApiError("feature_off", 403);
  await next();
});

export const leverRoutes = new Hono<AppEnv>()
  .use("/lever/deal", leverOn)
  .use("/lever/submit", leverOn)
  .post("/lever/my_trade", requireUser, query(leverMyTradeQuerySchema), answers(leverMyTradeSchema, { summary: "One's positions, newest first, with live P/L, risk rate and liquidation price (spec: message.message.data)", auth: true }), async (c) =>
    ok(c, await myTrades(c.env, c.get("user").id, c.req.valid("query"))),
  )
  .get("/lever/position", requireUser, query(leverPositionQuerySchema), answers(leverPositionDetailSchema, { summary: "One of one's positions with the index ticks it opened and closed at and the price its close rule crossed", auth: true }), async (c) =>
    ok(c, await positionDetail(c.env, c.get("user").id, c.req.valid("query").id)),
  )
  .get("/lever/deal", query(leverDealQuerySchema), answers(leverDealSchema, { summary: "A pair's contract settings and index, with one's lever balance when logged in" }), async (c) => {
    const q = c.req.valid("query");
    const user = await sessionUser(c.env.DB, c.req.raw);
    return ok(c, await deal(c.env, user?.id ?? null, q.currency_id, q.legal_id));
  })
  // requireTrader: requireUser, refuseOperatorMoney and requireVerified in one; with a session hint the
  // open's freeze batch carries the session check (worker/lib/auth.ts "Session hints").
  .post("/lever/submit", requireTrader, jsonBody(leverSubmitSchema), answers(leverPositionSchema, { summary: "Open a position (type 1 long, 2 short) at the index, or a limit open with target_price; 998 until verified", auth: true }), async (c) =>
    ok(c, await submitPosition(c.env, c.get("user").id, c.req.valid("json"), Date.now(), { guard: c.get("sessionGuard") })),
  )
  // requireAccountUser: in objects mode with a session hint, the user's account object checks the
  // session in the call that finds the position's pair (worker/domain/lever/positions.ts commandTarget).
  .post("/lever/close", requireAccountUser, jsonBody(leverIdSchema), answers(leverPositionSchema, { summary: "Close one's trading position at the index now", auth: true }), async (c) =>
    ok(c, await closePosition(c.env, c.get("user").id, c.req.valid("json").id, c.get("sessionGuard"))),
  )
  .post("/lever/batch_close", requireUser, jsonBody(leverBatchCloseSchema), answers(leverBatchClosedSchema, { summary: "Close all of one's trading positions (optionally of one coin) at the index", auth: true }), async (c) =>
    ok(c, await batchClose(c.env, c.get("user").id, c.req.valid("json"), (err) => errorText(c.get("locale"), err.key, err.params))),
  )
  .post("/lever/cancel", requireAccountUser, jsonBody(leverIdSchema), answers(leverPositionSchema, { summary: "Cancel one's pending limit open (revoked: margin and fee returned)", auth: true }), async (c) =>
    ok(c, await cancelPosition(c.env, c.get("user").id, c.req.valid("json").id, c.get("sessionGuard"))),
  )
  .post("/lever/setstop", requireAccountUser, jsonBody(leverSetStopSchema), answers(leverPositionSchema, { summary: "Set take-profit and stop-loss of one's pending or trading position", auth: true }), async (c) => {
    const b = c.req.valid("json");
    return ok(c, await setStops(c.env, c.get("user").id, b.id, b.stop_profit, b.stop_loss, c.get("sessionGuard")));
  });
