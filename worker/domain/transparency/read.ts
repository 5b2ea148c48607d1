/**
 * Reading the latest published liabilities snapshot: its public root and totals, and one user's
 * proof of inclusion (the user's nonce and their two leaves, each with its binding and the
 * siblings up to the root). Levels below the snapshot's stored_level are recomputed from the copy
 * of each leaf's group. Only snapshots of the current format are served (format 1 showed a
 * neighbour's balances: issue #26).
 */
import { PROOF_VERSION, buildLevels, formatSums, leafPlaces, nextSnapshotAt, pathPositions, toHex, userLeaves, type LiabilityProof, type TreeNode } from "../../../schemas/liabilities.ts";
import type { Liabilities, LiabilityRun, LiabilityRunPage } from "../../../schemas/transparency.ts";
import { ApiError } from "../../lib/errors.ts";
import { SNAPSHOT_FORMAT, leafCount, leavesOf, nonceKey, nonceOf, sumsOf, treeCurrencies, type SnapshotCurrency, type SnapshotEnv, type SnapshotRow } from "./snapshot.ts";

/** The latest published snapshot of the current format (the public summary reads the same row). */
export const LATEST_PUBLISHED_SQL = `SELECT * FROM liab_snapshots WHERE status = 'published' AND format = ${SNAPSHOT_FORMAT} ORDER BY id DESC LIMIT 1`;

async function latestPublished(db: D1Database): Promise<SnapshotRow | null> {
  return db.prepare(LATEST_PUBLISHED_SQL).first<SnapshotRow>();
}

export async function publishedLiabilities(db: D1Database, now = Date.now()): Promise<Liabilities> {
  const s = await latestPublished(db);
  const view = s ? publishedView(s, now) : null;
  if (!view) throw new ApiError("liabilities_none", 404);
  return view;
}

/** A published snapshot's public root and totals, and when the next one is taken (null for a row that is not published). */
export function publishedView(s: SnapshotRow, now = Date.now()): Liabilities | null {
  if (s.status !== "published" || !s.root_hash || s.root_sums === null || s.format !== SNAPSHOT_FORMAT) return null;
  const currencies = treeCurrencies(s);
  const totals = formatSums(sumsOf(s.root_sums), currencies);
  return {
    id: s.id,
    taken_at: s.taken_at ?? s.started_at,
    root_hash: s.root_hash,
    totals: currencies.map((c, i) => ({ currency: c.name, total: totals[i]! })),
    user_count: s.user_count,
    next_at: nextSnapshotAt(now),
  };
}

/** The session user's proof in the latest published snapshot (only ever their own leaves). */
export async function proofOf(env: SnapshotEnv, userId: number): Promise<LiabilityProof> {
  const db = env.DB;
  const s = await latestPublished(db);
  if (!s || !s.root_hash || s.root_sums === null) throw new ApiError("liabilities_none", 404);
  const me = await db
    .prepare("SELECT u.idx, a.account FROM liab_users u JOIN users a ON a.id = u.user_id WHERE u.snapshot_id = ? AND u.user_id = ?")
    .bind(s.id, userId)
    .first<{ idx: number; account: string }>();
  if (!me) throw new ApiError("liabilities_not_included", 404);
  const currencies = treeCurrencies(s);
  const n = leafCount(s);
  const key = await nonceKey(env.PEPPER);
  const nonce = await nonceOf(key, s.id, userId);
  const size = 1 << s.stored_level;
  // Each leaf's group of 2^stored_level leaves (recomputed from the copy) and its levels up to stored_level.
  const groups = new Map<number, TreeNode[][]>();
  for (const index of leafPlaces(me.idx, s.user_count)) {
    const from = index - (index % size);
    if (!groups.has(from)) groups.set(from, await buildLevels(await leavesOf(db, s, key, from, Math.min(from + size, n))));
  }
  const places = leafPlaces(me.idx, s.user_count);
  const positions = places.map((index) => pathPositions(index, n));
  const stored = positions.flat().filter((p) => p.level >= s.stored_level);
  const fetched = new Map<string, { hex: string; sums: bigint[] }>();
  if (stored.length > 0) {
    const { results } = await db
      .prepare(
        `SELECT level, idx, hash, sums FROM liab_nodes WHERE snapshot_id = ?1
         AND (level, idx) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?2))`,
      )
      .bind(s.id, JSON.stringify(stored.map((p) => [p.level, p.index])))
      .all<{ level: number; idx: number; hash: string; sums: string }>();
    for (const r of results) fetched.set(`${r.level}:${r.idx}`, { hex: r.hash, sums: sumsOf(r.sums) });
  }
  const mine = await userLeaves({ snapshotId: s.id, rank: me.idx, users: s.user_count, nonce, account: me.account, balances: await ownCopy(db, s, userId) });
  const leaves = mine.map((l, k) => {
    const from = l.index - (l.index % size);
    const group = groups.get(from)!;
    if (toHex(group[0]![l.index - from]!.hash) !== toHex(l.node.hash)) throw new Error(`snapshot ${s.id}: leaf ${l.index} differs from its group`);
    const path = positions[k]!.map((p) => {
      if (p.level < s.stored_level) {
        const node = group[p.level]![p.index - (from >> p.level)]!;
        return { side: p.side, hash: toHex(node.hash), sums: formatSums(node.sums, currencies) };
      }
      const node = fetched.get(`${p.level}:${p.index}`);
      if (!node) throw new Error(`snapshot ${s.id}: node ${p.level}:${p.index} missing`);
      return { side: p.side, hash: node.hex, sums: formatSums(node.sums, currencies) };
    });
    return { part: l.part, binding: toHex(l.binding), balances: formatSums(l.node.sums, currencies), path };
  });
  return {
    version: PROOF_VERSION,
    snapshot_id: s.id,
    taken_at: s.taken_at ?? s.started_at,
    currencies,
    nonce: toHex(nonce),
    leaves,
    root: { hash: s.root_hash, sums: formatSums(sumsOf(s.root_sums), currencies) },
    user_count: s.user_count,
    leaf_count: n,
  };
}

/** One user's copied balances in a snapshot, in the snapshot's currency order (minimal units). */
async function ownCopy(db: D1Database, s: SnapshotRow, userId: number): Promise<bigint[]> {
  const currencies = JSON.parse(s.currencies) as SnapshotCurrency[];
  const { results } = await db
    .prepare("SELECT currency_id, CAST(amount AS TEXT) AS amount FROM liab_balances WHERE snapshot_id = ? AND user_id = ?")
    .bind(s.id, userId)
    .all<{ currency_id: number; amount: string }>();
  const by = new Map(results.map((r) => [r.currency_id, BigInt(r.amount)]));
  return currencies.map((c) => by.get(c.id) ?? 0n);
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
