/**
 * The cut-over of a deployed exchange (issue #28; docs/operations.md "Where balances live"):
 * operators only, each step audited with the operator's reason in the same batch as its effect.
 * The steps copy only inside a settled maintenance window and record the cut-over only once every
 * user's and system account's totals were compared equal in it (worker/domain/ledger/account-cutover.ts).
 * They answer in both modes (ACCOUNTS=d1 before the deploy, or "objects" held at 503 by the
 * cut-over guard: they are in NO_MONEY_ROUTES). scripts/migrate-accounts.mjs drives them with
 * `--api https://… ` and the operator's session token in EXCHANGE_OPERATOR_TOKEN.
 */
import { Hono } from "hono";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { adminAccountsMigrateSchema, adminAccountsStepSchema, adminAccountsVerifySchema } from "../../schemas/dev-accounts.ts";
import { accountMigrationRoutes } from "./account-migration.ts";

export const operatorAccountRoutes = new Hono<AppEnv>().use("/admin/accounts/*", requireUser, requireOperator).route(
  "/",
  accountMigrationRoutes("/admin/accounts", {
    schemas: { migrate: adminAccountsMigrateSchema, verify: adminAccountsVerifySchema, system: adminAccountsStepSchema, cutOver: adminAccountsStepSchema },
    actor: (vars, reason) => ({ operatorId: vars.user.id, reason: reason ?? "", checked: true }),
    doc: (summary) => ({ summary: `Operators (audited; only in a settled maintenance window): ${summary}`, auth: true }),
  }),
);
