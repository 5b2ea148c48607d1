/**
 * Favourite pairs (issue #30; migrations/0045 `market_favourites`): the markets screen's starred
 * pairs, one row per (user, pair), always scoped to the caller.
 */
import { ApiError } from "../../lib/errors.ts";
import { pairById } from "../spot/pairs.ts";

/** The caller's starred pair ids, in the order they were starred. */
export async function listFavourites(db: D1Database, userId: number): Promise<number[]> {
  const { results } = await db.prepare("SELECT pair_id FROM market_favourites WHERE user_id = ? ORDER BY created_at, pair_id").bind(userId).all<{ pair_id: number }>();
  return results.map((r) => Number(r.pair_id));
}

/** Stars (`on`) or unstars a pair; answers the caller's list. An unknown pair is not_found; repeating a call changes nothing. */
export async function setFavourite(db: D1Database, userId: number, pairId: number, on: boolean, now = Date.now()): Promise<number[]> {
  if (on) {
    if (!(await pairById(db, pairId))) throw new ApiError("not_found", 404);
    await db.prepare("INSERT INTO market_favourites (user_id, pair_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING").bind(userId, pairId, now).run();
  } else {
    await db.prepare("DELETE FROM market_favourites WHERE user_id = ? AND pair_id = ?").bind(userId, pairId).run();
  }
  return listFavourites(db, userId);
}
