/**
 * Local development helpers. The routes answer only while DEV_OUTBOX is "on" (set by `npm start`
 * and the tests); in a deployed Worker the variable is "off" and they are indistinguishable from
 * an unknown path.
 */
import { Hono } from "hono";
import type { AppEnv } from "../lib/context.ts";
import { devOutboxEnabled, devOutboxFor } from "../lib/delivery.ts";
import { ApiError, notFound } from "../lib/errors.ts";
import { answers, ok } from "../lib/respond.ts";
import { devOutboxSchema } from "../../schemas/dev-outbox.ts";

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
  });
