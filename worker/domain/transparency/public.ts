/**
 * The public transparency summary (issue #20 §3, GET /api/transparency): what anyone can check
 * without an account. Read-only SQL, seven statements in ONE D1 batch (one round trip, one
 * consistent read), no user's data: only sums over all users.
 *
 *   reserves   the treasury's frozen funds for open seconds contracts (micro_orders.hold, status
 *              0-2) and open leveraged positions (lever_positions.hold, status 0-3): the same rows
 *              and predicates as those products' hold sources (worker/domain/seconds/orders.ts
 *              `secondsHolds`, worker/domain/lever/positions.ts `leverHolds`), which the ledger
 *              reconciler checks against the treasury's frozen balance;
 *   cover      the insurance plans' running totals (premiums collected, claims paid and their
 *              count, covers sold, cover still reserved), per currency;
 *   fees       the fee account's (SYSTEM.fees) ledger rows of every product's fee kinds
 *              (schemas/products.ts `feeKinds`): fees charged less fees given back, per currency
 *              and product (withdrawal fees pay the network and are not revenue);
 *              In objects mode (`ACCOUNTS=objects`, issue #28) the fees after the cut-over are
 *              legs to the fee shards, drained into `system_movements`: those rows count too, by
 *              their key's first word (`trade:` spot, `seconds:`, `lever:`, `conversion:`; a
 *              withdrawal's network fee and an invitation rebate are not product fees). D1's ledger
 *              rows are then the fees before the cut-over (the shards' opening is not counted);
 *   liabilities  the latest published snapshot's root and totals (./read.ts);
 *   mining     what the mining cron paid out of recorded, approved pool payouts, and the stated
 *              fees kept, per payout currency (the mining domain's statement).
 *
 * Cached with the Cache API (caches.default, per Cloudflare location) for CACHE_SECONDS, so a
 * crowd of visitors costs one batch per location per minute. Where the Cache API does nothing
 * (a workers.dev address), each request runs the one batch.
 */
import { formatUnits } from "../../../schemas/decimal.ts";
import { PRODUCTS } from "../../../schemas/products.ts";
import type { Transparency } from "../../../schemas/transparency.ts";
import { SYSTEM } from "../../lib/ledger.ts";
import { cachedPublic, forgetPublic } from "../../lib/public-cache.ts";
import { miningPayoutTotalsOf, miningPayoutTotalsStatement } from "../mining/plans.ts";
import { LATEST_PUBLISHED_SQL, publishedView } from "./read.ts";
import type { SnapshotRow } from "./snapshot.ts";

export const CACHE_SECONDS = 60;

/** Fee movement kind → product id, from the declarations. */
const FEE_PRODUCT: ReadonlyMap<string, string> = new Map(PRODUCTS.flatMap((p) => p.feeKinds.map((k): [string, string] => [k, p.id])));
const FEE_KINDS = [...FEE_PRODUCT.keys()];

/**
 * Objects mode: the first word of a fee shard's movement key → the fee kind it books (its product
 * by FEE_PRODUCT): the pair's trade legs, the seconds desk's acceptances (and the settled chunks of
 * contracts accepted before the acceptance took the fee), the lever desk's opens, closes and
 * overnight fees, the conversions' fee legs. Each fee is in exactly one of them.
 */
const SHARD_FEE_KIND: Readonly<Record<string, string>> = { trade: "spot", seconds: "micro_open", lever: "lever_open", conversion: "conversion" };

interface Currency {
  id: number;
  name: string;
  scale: number;
}

/** The summary, from the cache when a fresh one is there (worker/lib/public-cache.ts). */
export function publicSummary(db: D1Database, now = Date.now(), objects = false): Promise<Transparency> {
  return cachedPublic("transparency", () => computeSummary(db, now, objects), { seconds: CACHE_SECONDS });
}

/** Drops the cached summary (tests, and anything that must show a change at once). */
export async function forgetPublicSummary(): Promise<void> {
  await forgetPublic("transparency");
}

/** `objects`: balances live in the account objects (worker/lib/accounts.ts): the fee shards' drained movements count too. */
export async function computeSummary(db: D1Database, now = Date.now(), objects = false): Promise<Transparency> {
  // The fee shards' movements by key word (objects mode; otherwise a statement that reads nothing).
  const shardFees = db
    .prepare(
      `SELECT currency_id, substr(ref, 1, instr(ref, ':') - 1) AS word, CAST(SUM(d_available + d_frozen) AS TEXT) AS amount FROM system_movements
        WHERE ?1 AND user_id = ?2 AND substr(ref, 1, instr(ref, ':') - 1) IN (SELECT value FROM json_each(?3)) GROUP BY currency_id, word`,
    )
    .bind(objects ? 1 : 0, SYSTEM.fees, JSON.stringify(Object.keys(SHARD_FEE_KIND)));
  const [currencies, seconds, lever, cover, fees, snapshot, mining, shard] = await db.batch([
    db.prepare("SELECT id, name, scale FROM currencies ORDER BY id"),
    db.prepare(
      `SELECT currency_id, COUNT(*) AS open, CAST(SUM(hold) AS TEXT) AS reserved FROM micro_orders
        WHERE status IN (0, 1, 2) GROUP BY currency_id`,
    ),
    db.prepare(
      `SELECT currency_id, COUNT(*) AS open, CAST(SUM(hold) AS TEXT) AS reserved FROM lever_positions
        WHERE status IN (0, 1, 2, 3) GROUP BY currency_id`,
    ),
    db.prepare(
      `SELECT currency_id, CAST(SUM(premiums) AS TEXT) AS premiums, CAST(SUM(paid) AS TEXT) AS paid, SUM(claims) AS claims,
         SUM(sold) AS sold, CAST(SUM(reserved) AS TEXT) AS reserved FROM insurance_plans GROUP BY currency_id`,
    ),
    db
      .prepare(
        `SELECT currency_id, kind, CAST(SUM(d_available + d_frozen) AS TEXT) AS amount FROM ledger
          WHERE user_id = ?1 AND kind IN (SELECT value FROM json_each(?2)) GROUP BY currency_id, kind`,
      )
      .bind(SYSTEM.fees, JSON.stringify(FEE_KINDS)),
    db.prepare(LATEST_PUBLISHED_SQL),
    miningPayoutTotalsStatement(db),
    shardFees,
  ]);
  const byId = new Map((currencies!.results as unknown as Currency[]).map((c) => [c.id, c]));
  const cur = (id: number) => byId.get(id) ?? { id, name: String(id), scale: 0 };
  const fmt = (id: number, units: string | bigint | null) => formatUnits(BigInt(units ?? 0), cur(id).scale);
  const byName = <T extends { currency: string }>(rows: T[]) => rows.sort((a, b) => a.currency.localeCompare(b.currency));

  type ReserveRow = { currency_id: number; open: number; reserved: string };
  const reserves = (rows: ReserveRow[]) => byName(rows.map((r) => ({ currency: cur(r.currency_id).name, open: r.open, reserved: fmt(r.currency_id, r.reserved) })));

  type CoverRow = { currency_id: number; premiums: string; paid: string; claims: number; sold: number; reserved: string };
  const coverRows = (cover!.results as unknown as CoverRow[]).map((r) => ({
    currency: cur(r.currency_id).name,
    premiums: fmt(r.currency_id, r.premiums),
    claims_paid: fmt(r.currency_id, r.paid),
    claims: r.claims,
    sold: r.sold,
    reserved: fmt(r.currency_id, r.reserved),
  }));

  const feeTotals = new Map<number, { total: bigint; products: Map<string, bigint> }>();
  const shardRows = (shard!.results as unknown as { currency_id: number; word: string; amount: string }[]).map((r) => ({ currency_id: r.currency_id, kind: SHARD_FEE_KIND[r.word]!, amount: r.amount }));
  for (const r of [...(fees!.results as unknown as { currency_id: number; kind: string; amount: string }[]), ...shardRows]) {
    const t = feeTotals.get(r.currency_id) ?? { total: 0n, products: new Map<string, bigint>() };
    const product = FEE_PRODUCT.get(r.kind)!;
    t.total += BigInt(r.amount);
    t.products.set(product, (t.products.get(product) ?? 0n) + BigInt(r.amount));
    feeTotals.set(r.currency_id, t);
  }
  const feeRows = [...feeTotals].map(([id, t]) => ({
    currency: cur(id).name,
    total: fmt(id, t.total),
    products: PRODUCTS.filter((p) => t.products.has(p.id)).map((p) => ({ product: p.id, amount: fmt(id, t.products.get(p.id)!) })),
  }));

  const s = (snapshot!.results[0] as SnapshotRow | undefined) ?? null;
  return {
    computed_at: now,
    cache_seconds: CACHE_SECONDS,
    reserves: { seconds: reserves(seconds!.results as unknown as ReserveRow[]), lever: reserves(lever!.results as unknown as ReserveRow[]) },
    cover: byName(coverRows),
    fees: byName(feeRows),
    liabilities: s ? publishedView(s, now) : null,
    mining: miningPayoutTotalsOf(mining!.results).map((r) => ({ currency: r.currency, paid: r.paid_to_users, fees: r.fees, hours: r.hours })),
  };
}
