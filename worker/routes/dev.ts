/**
 * Local development helpers. The routes answer only while DEV_OUTBOX is "on" (set by `npm start`
 * and the tests); in a deployed Worker the variable is "off" and they are indistinguishable from
 * an unknown path.
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { refuseOperatorMoney, requireUser, requireVerified } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { devOutboxEnabled, devOutboxFor } from "../lib/delivery.ts";
import { ApiError, notFound } from "../lib/errors.ts";
import { answers, ok } from "../lib/respond.ts";
import { productsOf } from "../lib/products.ts";
import { jsonBody } from "../lib/validate.ts";
import { devOutboxSchema, devSecondsSeedSchema, devSecondsSeededSchema } from "../../schemas/dev-outbox.ts";
import { submitContract } from "../domain/seconds/orders.ts";

/** The seconds product's switch, as on POST /api/microtrade/submit. */
const secondsOn = createMiddleware<AppEnv>(async (c, next) => {
  if (!productsOf(c.env).seconds) throw new ApiError("feature_off", 403);
  await next();
});

export const devRoutes = new Hono<AppEnv>()
  .use("/dev/*", async (c, next) => {
    if (!devOutboxEnabled(c.env)) throw notFound();
    await next();
  })
  .get("/dev/outbox", answers(devOutboxSchema, { summary: "Local only (DEV_OUTBOX=on): one recipient's newest e-mails, codes and captcha answers (?to= required)" }), async (c) => {
    // Only one recipient's messages, never the whole outbox: a captcha id or an account must be named.
    const to = c.req.query("to")?.trim();
    if (!to) throw new ApiError("missing_field", 400, { field: "to" });
    if (to.length > 254) throw new ApiError("too_long", 400, { field: "to" });
    return ok(c, await devOutboxFor(c.env.DB, to));
  })
  // bench/seconds.mjs: many contracts through the same path as POST /api/microtrade/submit, with
  // the same checks (a session, never an operator's money, a verified user, the product switch),
  // on the session's own money only (the hold in D1, then the pair object's acceptSeconds, then
  // status 1), each ending in the second `end_at` names. Local only: it skips the HTTP round trip
  // per contract, nothing else.
  .post("/dev/seconds/seed", secondsOn, requireUser, refuseOperatorMoney, requireVerified, jsonBody(devSecondsSeedSchema), answers(devSecondsSeededSchema, { summary: "Local only (DEV_OUTBOX=on): seeds many of one's own seconds contracts through the real submit path, for bench/seconds.mjs; 998 until verified", auth: true }), async (c) => {
    const b = c.req.valid("json");
    const userId = c.get("user").id;
    const count = b.count;
    const ids: number[] = [];
    const refused: Record<string, number> = {};
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const k = next++;
        const seconds = Math.ceil((b.end_at - Date.now()) / 1000);
        if (seconds < 1 || seconds > 600) {
          refused.out_of_window = (refused.out_of_window ?? 0) + 1;
          continue;
        }
        try {
          const o = await submitContract(c.env, userId, { match_id: b.match_id, currency_id: b.currency_id, type: k % 2 === 0 ? 1 : 2, seconds, number: b.number });
          ids.push(o.id);
        } catch (err) {
          const code = err instanceof ApiError ? err.key : String(err).slice(0, 80);
          refused[code] = (refused[code] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(32, Math.max(1, b.concurrency ?? 8)) }, worker));
    return ok(c, { ids, refused });
  });
