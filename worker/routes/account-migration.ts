/**
 * The cut-over's routes (issue #28; worker/domain/ledger/account-cutover.ts), one set mounted twice:
 * under /api/admin/accounts for operators (worker/routes/operator-accounts.ts: a deployed exchange,
 * each step checked and audited with the operator's reason) and under /api/dev/accounts locally
 * (worker/routes/dev-accounts.ts: `npm start`, audited as operator 0). scripts/migrate-accounts.mjs
 * drives either.
 */
import { Hono } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok, type RouteDoc } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { accountsCutOverStateSchema, devAccountsCutOverDoneSchema, devAccountsMigratedSchema, devAccountsSystemOpenedSchema, devAccountsVerifiedSchema } from "../../schemas/dev-accounts.ts";
import { cutOverProgress, cutOverStep, migrationStep, systemStep, verificationStep, type MigrationActor } from "../domain/ledger/account-cutover.ts";
import { maintenanceOut } from "./operator-maintenance.ts";

interface Reasoned {
  reason?: string;
}

export interface MigrationRouteSet {
  /** The bodies: the operators' carry a required reason. */
  schemas: {
    migrate: z.ZodType<{ limit: number; first?: number; last?: number } & Reasoned>;
    verify: z.ZodType<{ after: number; limit: number; last?: number } & Reasoned>;
    system: z.ZodType<Reasoned>;
    cutOver: z.ZodType<Reasoned>;
  };
  /** Who runs a step (`vars`: the request's, the signed-in user among them behind requireUser). */
  actor: (vars: Pick<AppEnv["Variables"], "user">, reason: string | undefined) => MigrationActor;
  doc: (summary: string) => RouteDoc;
}

export function accountMigrationRoutes<B extends string>(base: B, set: MigrationRouteSet) {
  const { schemas, actor, doc } = set;
  return new Hono<AppEnv>()
    .get(`${base}/state`, answers(accountsCutOverStateSchema, doc("where the cut-over stands: the window, the opening's cursor, the users compared equal in this window, what the cut-over's record still waits for")), async (c) => {
      const { window, state } = await cutOverProgress(c.env);
      return ok(c, { ...state, window: maintenanceOut(window) });
    })
    .post(`${base}/migrate`, jsonBody(schemas.migrate), answers(devAccountsMigratedSchema, doc("opens the next users' account objects from their D1 balances, after the cursor of the range first..last (default: everyone)")), async (c) => {
      const input = c.req.valid("json");
      return ok(c, await migrationStep(c.env, actor(c.var, input.reason), input));
    })
    .post(`${base}/verify`, jsonBody(schemas.verify), answers(devAccountsVerifiedSchema, doc("drains the next users' account objects and compares each one's D1 balances with the object and the read model")), async (c) => {
      const input = c.req.valid("json");
      return ok(c, await verificationStep(c.env, actor(c.var, input.reason), input));
    })
    .post(`${base}/system`, jsonBody(schemas.system), answers(devAccountsSystemOpenedSchema, doc("opens the system accounts' shards (treasury, fees, …) from D1's system balances, split over the shards, and compares their sums with D1")), async (c) =>
      ok(c, await systemStep(c.env, actor(c.var, c.req.valid("json").reason))),
    )
    // The last step: from then on a Worker with ACCOUNTS=objects moves money (and one with "d1" no longer does).
    .post(`${base}/cut-over`, jsonBody(schemas.cutOver), answers(devAccountsCutOverDoneSchema, doc("records that every D1 balance was opened in the account objects (until then a Worker with ACCOUNTS=objects refuses money routes)")), async (c) =>
      ok(c, { cut_over: await cutOverStep(c.env, actor(c.var, c.req.valid("json").reason)) }),
    );
}
