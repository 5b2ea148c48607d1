/**
 * Listing votes (issue #19 §3; schemas/vote.ts). The rounds, their tallies and voter counts are
 * public (with one's own votes when logged in); casting needs a verified plain user. The whole
 * product answers feature_off when PRODUCT_VOTE is off (holds of rounds already voted in are still
 * released by the every-minute job: no money is trapped by the switch). Rules and SQL live in
 * worker/domain/vote/.
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { voteCastResultSchema, voteCastSchema, voteRoundListSchema } from "../../schemas/vote.ts";
import { refuseOperatorMoney, requireUser, requireVerified, sessionUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { ApiError } from "../lib/errors.ts";
import { productsOf } from "../lib/products.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { castVote } from "../domain/vote/cast.ts";
import { listRounds } from "../domain/vote/rounds.ts";
import { cachedPublic, invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

const voteOn = createMiddleware<AppEnv>(async (c, next) => {
  if (!productsOf(c.env).vote) throw new ApiError("feature_off", 403);
  await next();
});

export const voteRoutes = new Hono<AppEnv>()
  .use("/vote/*", voteOn, invalidates(PUBLIC_LISTS.vote))
  .get("/vote/rounds", answers(voteRoundListSchema, { summary: "Listing-vote rounds with candidates, public tallies and voter counts; one's own votes and hold when logged in" }), async (c) => {
    const user = await sessionUser(c.env.DB, c.req.raw);
    // One's own votes make the list personal: cached only for visitors without a session.
    return ok(c, { data: user ? await listRounds(c.env.DB, user.id) : await cachedPublic(PUBLIC_LISTS.vote, () => listRounds(c.env.DB, null)) });
  })
  .post(
    "/vote/cast",
    requireUser,
    requireVerified,
    refuseOperatorMoney,
    jsonBody(voteCastSchema),
    answers(voteCastResultSchema, { summary: "Vote for a candidate (one vote per verified account per candidate; the first vote of a round holds its minimum balance in one's spot account until the round ends; no fee)", auth: true }),
    async (c) => ok(c, await castVote(c.env, c.get("user").id, c.req.valid("json").candidate_id)),
  );
