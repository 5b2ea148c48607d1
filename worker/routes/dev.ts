/**
 * Local development helpers. The routes answer only while DEV_OUTBOX is "on" (set by `npm start`
 * and the tests); in a deployed Worker the variable is "off" and they are indistinguishable from
 * an unknown path.
 */
import { Hono } from "hono";
import type { AppEnv } from "../lib/context.ts";
import { devOutboxEnabled } from "../lib/delivery.ts";
import { notFound } from "../lib/errors.ts";
import { answers, ok } from "../lib/respond.ts";
import { devOutboxSchema } from "../../schemas/dev-outbox.ts";

export const devRoutes = new Hono<AppEnv>()
  .use("/dev/*", async (c, next) => {
    if (!devOutboxEnabled(c.env)) throw notFound();
    await next();
  })
  .get("/dev/outbox", answers(devOutboxSchema, { summary: "Local only (DEV_OUTBOX=on): newest e-mails, codes and captcha answers" }), async (c) => {
    const to = c.req.query("to");
    const stmt = to
      ? // Accounts are stored lower-cased; captcha ids are case-sensitive tokens.
        c.env.DB.prepare("SELECT * FROM dev_outbox WHERE recipient = ? ORDER BY id DESC LIMIT 50").bind(to.includes("@") ? to.toLowerCase() : to)
      : c.env.DB.prepare("SELECT * FROM dev_outbox ORDER BY id DESC LIMIT 50");
    const { results } = await stmt.all();
    return ok(c, results);
  });
