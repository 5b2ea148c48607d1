/**
 * The markets screen's own data (issue #30): the caller's favourite pairs. SQL in worker/domain/market/.
 */
import { Hono } from "hono";
import { favouriteListSchema, favouriteSetSchema } from "../../schemas/favourite.ts";
import { requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { listFavourites, setFavourite } from "../domain/market/favourites.ts";

export const marketRoutes = new Hono<AppEnv>()
  .get("/market/favourites", requireUser, answers(favouriteListSchema, { summary: "One's favourite pairs (ids)", auth: true }), async (c) => ok(c, { pair_ids: await listFavourites(c.env.DB, c.get("user").id) }))
  .post("/market/favourites", requireUser, jsonBody(favouriteSetSchema), answers(favouriteListSchema, { summary: "Star (on: true) or unstar a pair; answers one's favourites", auth: true }), async (c) => {
    const { pair_id, on } = c.req.valid("json");
    return ok(c, { pair_ids: await setFavourite(c.env.DB, c.get("user").id, pair_id, on) });
  });
