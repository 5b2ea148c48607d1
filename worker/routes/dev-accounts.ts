/**
 * The move of D1's balances into the account objects (issue #28; worker/domain/ledger/account-objects.ts).
 * Local only: the routes answer under `npm start` (DEV_OUTBOX and DEV_CLOCK both on); anywhere else
 * they are indistinguishable from an unknown path. scripts/migrate-accounts.mjs drives them.
 */
import { Hono } from "hono";
import type { AppEnv } from "../lib/context.ts";
import { devClockOn } from "../lib/clock.ts";
import { devOutboxEnabled } from "../lib/delivery.ts";
import { notFound } from "../lib/errors.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { devAccountsMigratedSchema, devAccountsMigrateSchema, devAccountsVerifiedSchema, devAccountsVerifySchema } from "../../schemas/dev-accounts.ts";
import { migrateAccountsStep, verifyAccountsStep } from "../domain/ledger/account-objects.ts";

export const devAccountRoutes = new Hono<AppEnv>()
  .use("/dev/accounts/*", async (c, next) => {
    if (!devOutboxEnabled(c.env) || !devClockOn(c.env)) throw notFound();
    await next();
  })
  .post("/dev/accounts/migrate", jsonBody(devAccountsMigrateSchema), answers(devAccountsMigratedSchema, { summary: "Local only (npm start): opens the next users' account objects from their D1 balances, after the migration's cursor" }), async (c) =>
    ok(c, await migrateAccountsStep(c.env, c.req.valid("json").limit)),
  )
  .post("/dev/accounts/verify", jsonBody(devAccountsVerifySchema), answers(devAccountsVerifiedSchema, { summary: "Local only (npm start): drains the next users' account objects and compares each one's D1 balances with the object and the read model" }), async (c) => {
    const { after, limit } = c.req.valid("json");
    return ok(c, await verifyAccountsStep(c.env, after, limit));
  });
