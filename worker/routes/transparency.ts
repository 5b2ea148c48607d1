/**
 * Transparency (issue #20 §2, §3): the public summary and the published liabilities root and
 * totals (public), one's own proof of inclusion (session), and the console's snapshot runs and
 * "take a snapshot now" (operator, audited). Rules and SQL live in worker/domain/transparency/.
 */
import { Hono } from "hono";
import {
  liabilitiesSchema,
  liabilityProofSchema,
  liabilityRunPageSchema,
  liabilityRunQuerySchema,
  liabilityRunRequestSchema,
  liabilityRunSchema,
  transparencySchema,
} from "../../schemas/transparency.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { liabilityRuns, proofOf, publishedLiabilities } from "../domain/transparency/read.ts";
import { snapshotNow } from "../domain/transparency/console.ts";
import { publicSummary } from "../domain/transparency/public.ts";
import { accountsOnObjects } from "../lib/accounts.ts";

export const transparencyRoutes = new Hono<AppEnv>()
  .get(
    "/transparency",
    answers(transparencySchema, { summary: "Public summary: house reserves for open contracts and positions, cover premiums and claims, fee revenue, the latest liabilities root (cached 60 s)" }),
    async (c) => ok(c, await publicSummary(c.env.DB, Date.now(), accountsOnObjects(c.env))),
  )
  .get("/transparency/liabilities", answers(liabilitiesSchema, { summary: "The latest published liabilities snapshot: Merkle-sum root, per-currency totals, user count" }), async (c) =>
    ok(c, await publishedLiabilities(c.env.DB)),
  )
  .get("/transparency/liabilities/proof", requireUser, answers(liabilityProofSchema, { summary: "One's proof of inclusion in the latest snapshot: leaf (balances, nonce), path, root", auth: true }), async (c) =>
    ok(c, await proofOf(c.env, c.get("user").id)),
  );

export const operatorTransparencyRoutes = new Hono<AppEnv>()
  .use("/admin/transparency/*", requireUser, requireOperator)
  .get("/admin/transparency/liabilities/runs", query(liabilityRunQuerySchema), answers(liabilityRunPageSchema, { summary: "Liabilities snapshot runs, newest first (status, statements, invocations, mismatches)", auth: true }), async (c) =>
    ok(c, await liabilityRuns(c.env.DB, c.req.valid("query"))),
  )
  .post("/admin/transparency/liabilities/run", jsonBody(liabilityRunRequestSchema), answers(liabilityRunSchema, { summary: "Take a liabilities snapshot now (audited; refused while one is building)", auth: true }), async (c) =>
    ok(c, await snapshotNow(c.env, c.get("user").id, c.req.valid("json"))),
  );
