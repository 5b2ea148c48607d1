/**
 * Launch subscriptions (schemas/products.ts "launch"; no account of its own: everything sits in
 * the spot account, `change`). Its holds, for the reconciler:
 *   - the treasury's reserve of a published, unfinished project: supply − Σ allocated, in the token;
 *   - a committer's escrow while the window runs: the commitment, in its payment currency;
 *   - a committer's locked tokens after allocation: allocated − claimed, in the token.
 */
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { shardOf } from "../../../durable/account/address.ts";
import type { Hold, HoldSource, ProductModule, SystemOpeningHold, UserHold } from "../ledger/holds.ts";

export const launchHolds: HoldSource = {
  name: "launch",
  async load(db) {
    const [reserves, escrow, locked] = await db.batch<{ user_id: number; currency_id: number; units: string }>([
      db.prepare(
        `SELECT ${TREASURY} AS user_id, p.token_id AS currency_id,
                CAST(SUM(p.supply - COALESCE((SELECT SUM(s.alloc) FROM launch_subscriptions s WHERE s.project_id = p.id AND s.status = 'allocated'), 0)) AS TEXT) AS units
           FROM launch_projects p WHERE p.published_at IS NOT NULL AND p.status IN ('open', 'allocating', 'cancelling') GROUP BY p.token_id`,
      ),
      db.prepare(
        `SELECT user_id, currency_id, CAST(SUM(amount) AS TEXT) AS units FROM launch_subscriptions WHERE status = 'committed' GROUP BY user_id, currency_id`,
      ),
      db.prepare(
        `SELECT s.user_id, p.token_id AS currency_id, CAST(SUM(s.alloc - s.claimed) AS TEXT) AS units FROM launch_subscriptions s JOIN launch_projects p ON p.id = s.project_id
          WHERE s.status = 'allocated' AND s.alloc > s.claimed GROUP BY s.user_id, p.token_id`,
      ),
    ]);
    const holds: Hold[] = [];
    for (const r of [...reserves!.results, ...escrow!.results, ...locked!.results]) {
      holds.push({ userId: r.user_id, currencyId: r.currency_id, account: r.user_id === TREASURY ? HOUSE_ACCOUNT : "change", units: BigInt(r.units) });
    }
    return holds;
  },
  async forUser(db, userId) {
    const { results } = await db
      .prepare(
        `SELECT 'launch' AS purpose, p.id, s.currency_id, CAST(s.amount AS TEXT) AS units, p.title FROM launch_subscriptions s JOIN launch_projects p ON p.id = s.project_id
          WHERE s.user_id = ?1 AND s.status = 'committed'
         UNION ALL
         SELECT 'launch_locked', p.id, p.token_id, CAST(s.alloc - s.claimed AS TEXT), p.title FROM launch_subscriptions s JOIN launch_projects p ON p.id = s.project_id
          WHERE s.user_id = ?1 AND s.status = 'allocated' AND s.alloc > s.claimed`,
      )
      .bind(userId)
      .all<{ purpose: "launch" | "launch_locked"; id: number; currency_id: number; units: string; title: string }>();
    return results.map((r): UserHold => ({ currencyId: r.currency_id, account: "change", units: BigInt(r.units), purpose: r.purpose, ref: { type: "launch", id: r.id }, label: r.title }));
  },
  // A project published before the cut-over: what its reserve still holds (supply − Σ allocated) becomes
  // `launch_reserve:{id}:{published_at}` in its treasury shard, which its allocations spend and its finish releases (./objects.ts).
  async systemOpeningHolds(db) {
    const { results } = await db
      .prepare(
        `SELECT p.id, p.token_id, p.published_at,
                CAST(p.supply - COALESCE((SELECT SUM(s.alloc) FROM launch_subscriptions s WHERE s.project_id = p.id AND s.status = 'allocated'), 0) AS TEXT) AS units
           FROM launch_projects p WHERE p.published_at IS NOT NULL AND p.status IN ('open', 'allocating', 'cancelling') ORDER BY p.id`,
      )
      .all<{ id: number; token_id: number; published_at: number; units: string }>();
    return results
      .map((r): SystemOpeningHold => ({ userId: TREASURY, shard: shardOf(r.id), forKind: "launch_reserve", forId: `${r.id}:${r.published_at}`, account: HOUSE_ACCOUNT, currencyId: r.token_id, amount: BigInt(r.units) }))
      .filter((h) => h.amount > 0n);
  },
};

export const launchProduct: ProductModule = { id: "launch", holdSources: [launchHolds] };
