/**
 * Listing votes (schemas/products.ts "vote"): no account of its own. A voter's hold for a round
 * (one per voter per round, the round's published minimum) is frozen in the voter's own spot
 * account until it is released; the open holds explain that frozen money to the reconciler. The
 * house promises nothing here, so the treasury holds nothing for it.
 */
import type { Hold, HoldSource, ProductModule } from "../ledger/holds.ts";

export const voteHolds: HoldSource = {
  name: "vote_holds",
  async load(db) {
    const { results } = await db
      .prepare("SELECT user_id, currency_id, CAST(SUM(units) AS TEXT) AS units FROM vote_holds WHERE released_at IS NULL GROUP BY user_id, currency_id")
      .all<{ user_id: number; currency_id: number; units: string }>();
    return results.map((r): Hold => ({ userId: r.user_id, currencyId: r.currency_id, account: "change", units: BigInt(r.units) }));
  },
};

export const voteProduct: ProductModule = { id: "vote", holdSources: [voteHolds] };
