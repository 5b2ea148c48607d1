/**
 * Reading the latest published liabilities snapshot: its public root and totals, and one user's
 * proof of inclusion (the user's leaf with its nonce, and the siblings up to the root). Levels
 * below the snapshot's stored_level are recomputed from the copy of the user's group of leaves.
 */
import { PROOF_VERSION, buildLevels, formatSums, pathPositions, toHex, type LiabilityProof, type TreeNode } from "../../../schemas/liabilities.ts";
import type { Liabilities, LiabilityRun, LiabilityRunPage } from "../../../schemas/transparency.ts";
import { ApiError } from "../../lib/errors.ts";
import { leavesOf, nonceKey, nonceOf, sumsOf, type SnapshotCurrency, type SnapshotEnv, type SnapshotRow } from "./snapshot.ts";

async function latestPublished(db: D1Database): Promise<SnapshotRow | null> {
  return db.prepare("SELECT * FROM liab_snapshots WHERE status = 'published' ORDER BY id DESC LIMIT 1").first<SnapshotRow>();
}

export async function publishedLiabilities(db: D1Database): Promise<Liabilities> {
  const s = await latestPublished(db);
  const view = s ? publishedView(s) : null;
  if (!view) throw new ApiError("liabilities_none", 404);
  return view;
}

/** A published snapshot's public root and totals (null for a row that is not published). */
export function publishedView(s: SnapshotRow): Liabilities | null {
  if (s.status !== "published" || !s.root_hash || s.root_sums === null) return null;
  const currencies = JSON.parse(s.currencies) as SnapshotCurrency[];
  const totals = formatSums(sumsOf(s.root_sums), currencies);
  return {
    id: s.id,
    taken_at: s.taken_at ?? s.started_at,
    root_hash: s.root_hash,
    totals: currencies.map((c, i) => ({ currency: c.name, total: totals[i]! })),
    user_count: s.user_count,
  };
}

/** The session user's proof in the latest published snapshot (only ever their own leaf). */
export async function proofOf(env: SnapshotEnv, userId: number): Promise<LiabilityProof> {
  const db = env.DB;
  const s = await latestPublished(db);
  if (!s || !s.root_hash || s.root_sums === null) throw new ApiError("liabilities_none", 404);
  const me = await db.prepare("SELECT idx FROM liab_users WHERE snapshot_id = ? AND user_id = ?").bind(s.id, userId).first<{ idx: number }>();
  if (!me) throw new ApiError("liabilities_not_included", 404);
  const currencies = JSON.parse(s.currencies) as SnapshotCurrency[];
  const key = await nonceKey(env.PEPPER);
  // The user's group of 2^stored_level leaves, and its levels up to stored_level.
  const size = 1 << s.stored_level;
  const from = me.idx - (me.idx % size);
  const group = await buildLevels(await leavesOf(db, s, key, from, Math.min(from + size, s.user_count)));
  const positions = pathPositions(me.idx, s.user_count);
  const stored = positions.filter((p) => p.level >= s.stored_level);
  const fetched = new Map<string, TreeNode & { hex: string }>();
  if (stored.length > 0) {
    const { results } = await db
      .prepare(
        `SELECT level, idx, hash, sums FROM liab_nodes WHERE snapshot_id = ?1
         AND (level, idx) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?2))`,
      )
      .bind(s.id, JSON.stringify(stored.map((p) => [p.level, p.index])))
      .all<{ level: number; idx: number; hash: string; sums: string }>();
    for (const r of results) fetched.set(`${r.level}:${r.idx}`, { hash: new Uint8Array(), hex: r.hash, sums: sumsOf(r.sums) });
  }
  const path = positions.map((p) => {
    if (p.level < s.stored_level) {
      const n = group[p.level]![p.index - (from >> p.level)]!;
      return { side: p.side, hash: toHex(n.hash), sums: formatSums(n.sums, currencies) };
    }
    const n = fetched.get(`${p.level}:${p.index}`);
    if (!n) throw new Error(`snapshot ${s.id}: node ${p.level}:${p.index} missing`);
    return { side: p.side, hash: n.hex, sums: formatSums(n.sums, currencies) };
  });
  const leaf = group[0]![me.idx - from]!;
  return {
    version: PROOF_VERSION,
    snapshot_id: s.id,
    taken_at: s.taken_at ?? s.started_at,
    currencies: currencies.map((c) => ({ name: c.name, scale: c.scale })),
    leaf: { nonce: toHex(await nonceOf(key, s.id, userId)), balances: formatSums(leaf.sums, currencies) },
    path,
    root: { hash: s.root_hash, sums: formatSums(sumsOf(s.root_sums), currencies) },
    user_count: s.user_count,
  };
}

interface TotalRow {
  currency_id: number;
  balances_total: string;
  ledger_total: string;
  copy_total: string;
  tree_total: string | null;
}

/** The console's list of snapshot runs, newest first, with the totals each one checked. */
export async function liabilityRuns(db: D1Database, q: { page: number; limit: number }): Promise<LiabilityRunPage> {
  const total = await db.prepare("SELECT COUNT(*) AS n FROM liab_snapshots").first<{ n: number }>();
  const { results } = await db.prepare("SELECT * FROM liab_snapshots ORDER BY id DESC LIMIT ? OFFSET ?").bind(q.limit, (q.page - 1) * q.limit).all<SnapshotRow>();
  const ids = results.map((r) => r.id);
  const { results: totals } = await db
    .prepare("SELECT t.snapshot_id, t.* FROM liab_totals t WHERE t.snapshot_id IN (SELECT value FROM json_each(?)) ORDER BY t.currency_id")
    .bind(JSON.stringify(ids))
    .all<TotalRow & { snapshot_id: number }>();
  return { total: total?.n ?? 0, data: results.map((r) => runView(r, totals.filter((t) => t.snapshot_id === r.id))) };
}

export function runView(r: SnapshotRow, totals: TotalRow[]): LiabilityRun {
  const currencies = JSON.parse(r.currencies) as SnapshotCurrency[];
  const byId = new Map(currencies.map((c) => [c.id, c]));
  const fmt = (c: SnapshotCurrency | undefined, units: string | null) => (units === null ? null : c ? formatSums([BigInt(units)], [c])[0]! : units);
  const view = totals.map((t) => {
    const c = byId.get(t.currency_id);
    return {
      currency: c?.name ?? String(t.currency_id),
      balances: fmt(c, t.balances_total)!,
      ledger: fmt(c, t.ledger_total)!,
      snapshot: fmt(c, t.copy_total)!,
      tree: fmt(c, t.tree_total),
    };
  });
  const problem = r.problem ? (JSON.parse(r.problem) as { negative_users: number; mismatches: number[] }) : null;
  return {
    id: r.id,
    trigger: r.trigger,
    status: r.status,
    phase: r.phase,
    user_count: r.user_count,
    root_hash: r.root_hash,
    invocations: r.invocations,
    statements: r.statements,
    started_at: r.started_at,
    taken_at: r.taken_at,
    finished_at: r.finished_at,
    problem: problem
      ? { negative_users: problem.negative_users, mismatches: view.filter((v, i) => problem.mismatches.includes(totals[i]!.currency_id)) }
      : null,
    totals: view,
  };
}
