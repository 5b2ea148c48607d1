/**
 * Listing votes (schemas/products.ts "vote"): no account of its own. A voter's hold for a round
 * (one per voter per round, the round's published minimum) is frozen in the voter's own spot
 * account until it is released; the open holds explain that frozen money to the reconciler. The
 * house promises nothing here, so the treasury holds nothing for it.
 */
import { recordHolds, type Hold, type HoldSource, type ProductModule } from "../ledger/holds.ts";

export const voteHolds: HoldSource = {
  name: "vote_holds",
  async load(db) {
    const { results } = await db
      .prepare("SELECT user_id, currency_id, CAST(SUM(units) AS TEXT) AS units FROM vote_holds WHERE released_at IS NULL GROUP BY user_id, currency_id")
      .all<{ user_id: number; currency_id: number; units: string }>();
    return results.map((r): Hold => ({ userId: r.user_id, currencyId: r.currency_id, account: "change", units: BigInt(r.units) }));
  },
  forUser: (db, userId) =>
    recordHolds(
      db,
      "SELECT h.round_id AS id, h.currency_id, CAST(h.units AS TEXT) AS units, r.title AS label FROM vote_holds h JOIN vote_rounds r ON r.id = h.round_id WHERE h.user_id = ?1 AND h.released_at IS NULL ORDER BY h.round_id",
      userId,
      { account: "change", purpose: "vote", ref: "vote" },
    ),
};

export const voteProduct: ProductModule = { id: "vote", holdSources: [voteHolds] };
