/**
 * Listing-vote rounds in the operator console (/api/admin/vote/*; operators only): list, open,
 * close early and cancel rounds, each action audited with its reason (worker/domain/vote/console.ts).
 * Shown whether or not PRODUCT_VOTE is on, so rounds can be prepared before the switch.
 */
import { Hono } from "hono";
import { voteRoundActionSchema, voteRoundCreateSchema, voteRoundIdParamSchema, voteRoundListSchema, voteRoundSchema } from "../../schemas/vote.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, params } from "../lib/validate.ts";
import { adminRounds, createRound, endRound } from "../domain/vote/console.ts";
import { invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

export const operatorVoteRoutes = new Hono<AppEnv>()
  .use("/admin/vote/*", requireUser, requireOperator, invalidates(PUBLIC_LISTS.vote))
  .get("/admin/vote/rounds", answers(voteRoundListSchema, { summary: "Listing-vote rounds with their tallies", auth: true }), async (c) => ok(c, { data: await adminRounds(c.env.DB) }))
  .post("/admin/vote/rounds", jsonBody(voteRoundCreateSchema), answers(voteRoundSchema, { summary: "Open a round: title, candidates, window and the minimum balance held per voter (audited)", auth: true }), async (c) =>
    ok(c, await createRound(c.env.DB, c.get("user").id, c.req.valid("json"))),
  )
  .post("/admin/vote/rounds/:id/close", params(voteRoundIdParamSchema), jsonBody(voteRoundActionSchema), answers(voteRoundSchema, { summary: "Close a round early: the tally stands, the voters' holds are released (audited)", auth: true }), async (c) =>
    ok(c, await endRound(c.env, c.get("user").id, c.req.valid("param").id, "close", c.req.valid("json").reason)),
  )
  .post("/admin/vote/rounds/:id/cancel", params(voteRoundIdParamSchema), jsonBody(voteRoundActionSchema), answers(voteRoundSchema, { summary: "Cancel a round: the tally is void, the voters' holds are released (audited)", auth: true }), async (c) =>
    ok(c, await endRound(c.env, c.get("user").id, c.req.valid("param").id, "cancel", c.req.valid("json").reason)),
  );
