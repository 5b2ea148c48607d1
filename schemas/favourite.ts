/**
 * Favourite pairs on the markets screen (issue #30).
 *
 *   GET  /api/market/favourites   → favouriteListSchema (the caller's starred pair ids)
 *   POST /api/market/favourites   favouriteSetSchema {pair_id, on} → favouriteListSchema
 */
import { z } from "zod";
import { flagInput, idInput } from "./strict.ts";

export const favouriteSetSchema = z.strictObject({
  pair_id: idInput({ message: "invalid_param", max: 2 ** 31 }),
  on: flagInput({ message: "invalid_param" }),
});
export type FavouriteSet = z.input<typeof favouriteSetSchema>;

export const favouriteListSchema = z.object({ pair_ids: z.array(z.number().int()) });
export type FavouriteList = z.infer<typeof favouriteListSchema>;
