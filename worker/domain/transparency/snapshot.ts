/**
 * The liabilities snapshot (issue #20 §2): a Merkle-sum tree of every user's balances, built in
 * resumable steps that each commit as one D1 batch together with the snapshot's cursor and a
 * (snapshot, step) guard row, so two invocations racing on a step cannot both commit:
 *
 *   copy    ONE batch: every user's (id > 0) available + frozen per currency, summed over every
 *           account (so every hold: orders, contracts, positions, escrow, earn products) into
 *           liab_balances; every user owed something (a positive amount) ranked in a secret
 *           shuffle into liab_users (SQLite's random(), drawn anew in each snapshot's copy, never
 *           served to anyone and deleted with the copy: neither users nor anyone holding the
 *           PEPPER can derive it); and per currency the totals of the balances table and of the
 *           ledger rows of users > 0, taken in the same transaction, so all of them describe the
 *           same instant;
 *   check   a negative balance (leaf or any account's part) or a total that differs between the
 *           balances table, the ledger rows and the copy stops publication (status failed); a
 *           snapshot of no user at all (a new exchange) publishes the empty root with zero totals;
 *   leaves  2^block_level leaves per step (two per user: schemas/liabilities.ts places, splits
 *           and binds them): each user's nonce (HMAC-SHA-256 of PEPPER over
 *           "liabilities:{snapshot}:{user}", never stored, never the same in two snapshots), their
 *           two leaves bound to their account, and the block's subtree in memory; levels from
 *           stored_level up are written to liab_nodes (the lower ones are recomputed from the copy
 *           for a proof: 2^stored_level leaves, a few hashes);
 *   top     the block roots up to the root; the root's sums must equal the copy's totals (and so
 *           the ledger's): then the snapshot is published, otherwise it fails;
 *   prune   the copies and nodes of older snapshots are deleted, 50,000 users per statement.
 *
 * A failure is logged at error level (event liabilities_not_published) and shown in the console's
 * run list with its reason. An invocation stops before its statement budget (D1 allows 1,000 per
 * invocation) or its time budget, and the every-minute job goes on from the cursor.
 */
import { readsOnObjects } from "../wallet/object-reads.ts";
import {
  TREE_EXTRA_DECIMALS,
  TREE_UNITS,
  buildLevels,
  emptyRoot,
  leafOwner,
  levelCounts,
  levelUp,
  toHex,
  fromHex,
  userLeaves,
  type ProofCurrency,
  type TreeNode,
} from "../../../schemas/liabilities.ts";

/** The layout of the leaves this code builds (liab_snapshots.format; 1 was one leaf per user, in id order). */
export const SNAPSHOT_FORMAT = 2;
/** Leaves per step: 2^14 = 16,384 (8,192 users). */
export const BLOCK_LEVEL = 14;
/** Levels below this are not stored: a proof recomputes them from 2^4 = 16 users' balances. */
export const STORED_LEVEL = 4;
const NODES_PER_STATEMENT = 4000;
const PRUNE_USERS = 50_000;

export interface SnapshotEnv {
  DB: D1Database;
  PEPPER: string;
  /** "objects": users' balances are their account objects', read from D1's read model (object-reads.ts). */
  ACCOUNTS?: string;
}

/**
 * The tables the copy reads users' balances and their movements from: D1's `balances` and
 * `ledger`, or in objects mode the read model the account objects drain into (`account_balances`,
 * `account_movements`: the objects' balances as of their last drain, a moment behind at most).
 */
function liabilityTables(env: SnapshotEnv): { balances: string; ledger: string } {
  return readsOnObjects(env) ? { balances: "account_balances", ledger: "account_movements" } : { balances: "balances", ledger: "ledger" };
}

export interface SnapshotRow {
  id: number;
  day: string | null;
  trigger: "cron" | "operator";
  operator_id: number | null;
  status: "running" | "published" | "failed";
  /** SNAPSHOT_FORMAT of the code that built it */
  format: number;
  phase: "copy" | "check" | "leaves" | "top" | "prune" | "done";
  cursor: number;
  step: number;
  block_level: number;
  stored_level: number;
  currencies: string;
  user_count: number;
  negative_users: number;
  root_hash: string | null;
  root_sums: string | null;
  problem: string | null;
  invocations: number;
  statements: number;
  started_at: number;
  taken_at: number | null;
  finished_at: number | null;
}

export interface SnapshotCurrency {
  id: number;
  name: string;
  scale: number;
}

export interface Budget {
  /** D1 statements this invocation may run (D1 allows 1,000 per invocation) */
  statements: number;
  /** wall time this invocation may spend on steps, ms */
  ms: number;
}

export const CRON_BUDGET: Budget = { statements: 600, ms: 20_000 };

class Counter {
  used = 0;
  recorded = 0;
  readonly started = Date.now();
  constructor(readonly budget: Budget) {}
  add(n: number) {
    this.used += n;
  }
  fits(n: number) {
    return this.used + n <= this.budget.statements && Date.now() - this.started < this.budget.ms;
  }
}

/** The leaves of a snapshot: two per user ranked. */
export const leafCount = (s: Pick<SnapshotRow, "user_count">) => 2 * s.user_count;

/** The snapshot's currencies as the tree counts them (hundredths of the minimal unit). */
export function treeCurrencies(s: Pick<SnapshotRow, "currencies">): ProofCurrency[] {
  return (JSON.parse(s.currencies) as SnapshotCurrency[]).map((c) => ({ name: c.name, scale: c.scale + TREE_EXTRA_DECIMALS }));
}

export const sumsText = (sums: readonly bigint[]) => sums.join(",");
export const sumsOf = (text: string): bigint[] => (text === "" ? [] : text.split(",").map((s) => BigInt(s)));

/** The user's nonce in a snapshot: HMAC-SHA-256(PEPPER, "liabilities:{snapshot}:{user}"). */
export async function nonceKey(pepper: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", new TextEncoder().encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}
export async function nonceOf(key: CryptoKey, snapshotId: number, userId: number): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`liabilities:${snapshotId}:${userId}`)));
}

export async function readSnapshot(db: D1Database, id: number): Promise<SnapshotRow | null> {
  return db.prepare("SELECT * FROM liab_snapshots WHERE id = ?").bind(id).first<SnapshotRow>();
}

/**
 * Starts a snapshot; null when one is already building (at most one at a time) or, for the daily
 * job, when that day's snapshot exists.
 */
export async function startSnapshot(
  db: D1Database,
  opts: { trigger: "cron" | "operator"; day?: string; operatorId?: number; now: number; blockLevel?: number; storedLevel?: number },
): Promise<number | null> {
  const row = await db
    .prepare(
      `INSERT INTO liab_snapshots (format, day, trigger, operator_id, block_level, stored_level, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING RETURNING id`,
    )
    .bind(SNAPSHOT_FORMAT, opts.day ?? null, opts.trigger, opts.operatorId ?? null, opts.blockLevel ?? BLOCK_LEVEL, opts.storedLevel ?? STORED_LEVEL, opts.now)
    .first<{ id: number }>();
  return row?.id ?? null;
}

/** Whether the daily job's snapshot of `day` (YYYY-MM-DD, UTC) was started, whatever became of it. */
export async function dailySnapshotExists(db: D1Database, day: string): Promise<boolean> {
  return (await db.prepare("SELECT 1 AS x FROM liab_snapshots WHERE trigger = 'cron' AND day = ?").bind(day).first()) !== null;
}

/** The snapshot the every-minute job should go on with (building or pruning), if any. */
export async function unfinishedSnapshot(db: D1Database): Promise<number | null> {
  const r = await db.prepare("SELECT id FROM liab_snapshots WHERE phase <> 'done' ORDER BY id LIMIT 1").first<{ id: number }>();
  return r?.id ?? null;
}

/** Runs a step's batch; false when another invocation committed this step first (nothing changed). */
async function commit(db: D1Database, stmts: D1PreparedStatement[]): Promise<boolean> {
  try {
    await db.batch(stmts);
    return true;
  } catch (err) {
    if (/UNIQUE constraint failed: liab_steps/i.test(String((err as Error)?.message ?? err))) return false;
    throw err;
  }
}

type Next = Partial<Pick<SnapshotRow, "status" | "root_hash" | "root_sums" | "problem" | "finished_at" | "block_level" | "stored_level">> & {
  phase: SnapshotRow["phase"];
  cursor: number;
};

/** The step's guard and the snapshot's new state, last in the step's batch. */
function advance(db: D1Database, s: SnapshotRow, next: Next, stmtsInBatch: number, c: Counter): D1PreparedStatement[] {
  const statements = c.used + stmtsInBatch;
  c.add(stmtsInBatch);
  const recorded = statements - c.recorded;
  c.recorded = statements;
  return [
    db.prepare("INSERT INTO liab_steps (snapshot_id, step, phase, at) VALUES (?, ?, ?, ?)").bind(s.id, s.step, next.phase, Date.now()),
    db
      .prepare(
        `UPDATE liab_snapshots SET phase = ?, cursor = ?, step = step + 1, statements = statements + ?, status = COALESCE(?, status),
           root_hash = COALESCE(?, root_hash), root_sums = COALESCE(?, root_sums), problem = COALESCE(?, problem), finished_at = COALESCE(?, finished_at),
           block_level = COALESCE(?, block_level), stored_level = COALESCE(?, stored_level) WHERE id = ?`,
      )
      .bind(
        next.phase,
        next.cursor,
        recorded,
        next.status ?? null,
        next.root_hash ?? null,
        next.root_sums ?? null,
        next.problem ?? null,
        next.finished_at ?? null,
        next.block_level ?? null,
        next.stored_level ?? null,
        s.id,
      ),
  ];
}

/**
 * Builds snapshot `id` as far as `budget` allows; returns its row. Idempotent: a finished snapshot
 * changes nothing.
 */
export async function runSnapshot(env: SnapshotEnv, id: number, budget: Budget = CRON_BUDGET): Promise<SnapshotRow> {
  const db = env.DB;
  const c = new Counter(budget);
  c.add(1);
  let s = await readSnapshot(db, id);
  if (!s) throw new Error(`liabilities snapshot ${id} does not exist`);
  if (s.phase === "done") return s;
  c.add(1);
  await db.prepare("UPDATE liab_snapshots SET invocations = invocations + 1 WHERE id = ?").bind(id).run();
  const key = await nonceKey(env.PEPPER);
  for (;;) {
    c.add(1);
    s = (await readSnapshot(db, id))!;
    if (s.phase === "done") break;
    if (!c.fits(s.phase === "leaves" ? 3 + Math.ceil((2 << (s.block_level - s.stored_level)) / NODES_PER_STATEMENT) : 8)) break;
    if (s.phase === "copy") await copyStep(db, s, c, liabilityTables(env));
    else if (s.phase === "check") await checkStep(db, s, c);
    else if (s.phase === "leaves") await leavesStep(db, s, key, c);
    else if (s.phase === "top") await topStep(db, s, c);
    else await pruneStep(db, s, c);
  }
  // This invocation's statements after its last step (the final read and this update).
  await db.prepare("UPDATE liab_snapshots SET statements = statements + ? WHERE id = ?").bind(c.used + 1 - c.recorded, id).run();
  return (await readSnapshot(db, id))!;
}

async function copyStep(db: D1Database, s: SnapshotRow, c: Counter, t: { balances: string; ledger: string }) {
  c.add(1);
  const { results: currencies } = await db.prepare("SELECT id, name, scale FROM currencies ORDER BY id").all<SnapshotCurrency>();
  const now = Date.now();
  const stmts = [
    db
      .prepare(
        `INSERT INTO liab_balances (snapshot_id, user_id, currency_id, amount)
         SELECT ?1, user_id, currency_id, SUM(available + frozen) FROM ${t.balances} WHERE user_id > 0 GROUP BY user_id, currency_id`,
      )
      .bind(s.id),
    db
      .prepare(
        `INSERT INTO liab_users (snapshot_id, idx, user_id)
         SELECT ?1, ROW_NUMBER() OVER (ORDER BY random()) - 1, user_id FROM (SELECT user_id FROM liab_balances WHERE snapshot_id = ?1 GROUP BY user_id HAVING MAX(amount) > 0)`,
      )
      .bind(s.id),
    db
      .prepare(
        `INSERT INTO liab_totals (snapshot_id, currency_id, balances_total, ledger_total, copy_total)
         SELECT ?1, c.id, COALESCE(b.t, '0'), COALESCE(l.t, '0'), COALESCE(x.t, '0') FROM currencies c
         LEFT JOIN (SELECT currency_id, CAST(SUM(available + frozen) AS TEXT) AS t FROM ${t.balances} WHERE user_id > 0 GROUP BY currency_id) b ON b.currency_id = c.id
         LEFT JOIN (SELECT currency_id, CAST(SUM(d_available + d_frozen) AS TEXT) AS t FROM ${t.ledger} WHERE user_id > 0 GROUP BY currency_id) l ON l.currency_id = c.id
         LEFT JOIN (SELECT currency_id, CAST(SUM(amount) AS TEXT) AS t FROM liab_balances WHERE snapshot_id = ?1 GROUP BY currency_id) x ON x.currency_id = c.id`,
      )
      .bind(s.id),
    db
      .prepare(
        `UPDATE liab_snapshots SET taken_at = ?2, currencies = ?3,
           user_count = (SELECT COUNT(*) FROM liab_users WHERE snapshot_id = ?1),
           negative_users = (SELECT COUNT(*) FROM (SELECT user_id FROM ${t.balances} WHERE user_id > 0 AND (available < 0 OR frozen < 0)
             UNION SELECT user_id FROM liab_balances WHERE snapshot_id = ?1 AND amount < 0))
         WHERE id = ?1`,
      )
      .bind(s.id, now, JSON.stringify(currencies)),
  ];
  await commit(db, [...stmts, ...advance(db, s, { phase: "check", cursor: 0 }, stmts.length + 2, c)]);
}

interface TotalRow {
  currency_id: number;
  balances_total: string;
  ledger_total: string;
  copy_total: string;
  tree_total: string | null;
}

async function totalsOf(db: D1Database, id: number, c: Counter): Promise<TotalRow[]> {
  c.add(1);
  const { results } = await db.prepare("SELECT * FROM liab_totals WHERE snapshot_id = ? ORDER BY currency_id").bind(id).all<TotalRow>();
  return results;
}

/** Logs a snapshot that will not be published (the console shows the same reason). */
function alert(s: SnapshotRow, problem: unknown) {
  console.error(JSON.stringify({ level: "error", event: "liabilities_not_published", snapshot: s.id, problem }));
}

async function checkStep(db: D1Database, s: SnapshotRow, c: Counter) {
  const totals = await totalsOf(db, s.id, c);
  const mismatches = totals.filter((t) => t.balances_total !== t.ledger_total || t.copy_total !== t.balances_total);
  if (s.negative_users > 0 || mismatches.length > 0) {
    const problem = { negative_users: s.negative_users, mismatches: mismatches.map((t) => t.currency_id) };
    alert(s, problem);
    await commit(db, advance(db, s, { phase: "done", cursor: 0, status: "failed", problem: JSON.stringify(problem), finished_at: Date.now() }, 2, c));
    return;
  }
  if (s.user_count === 0) {
    // No user holds anything (a new exchange): the totals checked above are all zero, so the
    // snapshot publishes the empty root (schemas/liabilities.ts) with zero totals; no alarm.
    const currencies = JSON.parse(s.currencies) as SnapshotCurrency[];
    const root = await emptyRoot(currencies.length);
    const stmts = [db.prepare("UPDATE liab_totals SET tree_total = '0' WHERE snapshot_id = ?").bind(s.id)];
    const next: Next = { phase: "prune", cursor: 0, status: "published", root_hash: toHex(root.hash), root_sums: sumsText(root.sums), finished_at: Date.now() };
    await commit(db, [...stmts, ...advance(db, s, next, stmts.length + 2, c)]);
    return;
  }
  // The top level of this tree; blocks and stored levels never reach above it.
  const top = levelCounts(leafCount(s)).length - 1;
  const block = Math.min(s.block_level, top);
  const stored = Math.min(s.stored_level, block);
  await commit(db, advance(db, s, { phase: "leaves", cursor: 0, block_level: block, stored_level: stored }, 2, c));
}

interface LeafRow {
  idx: number;
  user_id: number;
  account: string;
  currency_id: number;
  amount: string;
}

/** The leaves [from, to) of a snapshot, computed from the copy: the users they belong to, their nonces, splits and bindings. */
export async function leavesOf(db: D1Database, s: SnapshotRow, key: CryptoKey, from: number, to: number): Promise<TreeNode[]> {
  const n = s.user_count;
  if (from < 0 || to > leafCount(s) || from >= to) throw new RangeError(`snapshot ${s.id}: leaves ${from}..${to} of ${leafCount(s)}`);
  const currencies = JSON.parse(s.currencies) as SnapshotCurrency[];
  const pos = new Map(currencies.map((cu, i) => [cu.id, i]));
  // Ranks owning leaves max(from, 1)..to-1 are consecutive; leaf 0 belongs to the last rank.
  const first = from === 0 ? (to > 1 ? 0 : -1) : leafOwner(from, n).rank;
  const last = to - 1 >= 1 ? leafOwner(to - 1, n).rank : -1;
  const { results } = await db
    .prepare(
      // Two index ranges (the block's ranks, and the last rank for leaf 0), never a scan of every rank.
      `WITH r AS (SELECT idx, user_id FROM liab_users WHERE snapshot_id = ?1 AND idx BETWEEN ?2 AND ?3
                  UNION ALL SELECT idx, user_id FROM liab_users WHERE snapshot_id = ?1 AND idx = ?4)
       SELECT r.idx, r.user_id, COALESCE(a.account, '#' || r.user_id) AS account, b.currency_id, CAST(b.amount AS TEXT) AS amount FROM r
       LEFT JOIN users a ON a.id = r.user_id
       JOIN liab_balances b ON b.snapshot_id = ?1 AND b.user_id = r.user_id ORDER BY r.idx`,
    )
    .bind(s.id, first, last, from === 0 ? n - 1 : -1)
    .all<LeafRow>();
  const users = new Map<number, { userId: number; account: string; balances: bigint[] }>();
  for (const r of results) {
    let u = users.get(r.idx);
    if (!u) users.set(r.idx, (u = { userId: r.user_id, account: r.account, balances: currencies.map(() => 0n) }));
    const p = pos.get(r.currency_id);
    if (p === undefined) throw new Error(`currency ${r.currency_id} is not in snapshot ${s.id}`);
    u.balances[p] = BigInt(r.amount);
  }
  const out: TreeNode[] = new Array(to - from);
  await Promise.all(
    [...users].map(async ([rank, u]) => {
      const leaves = await userLeaves({ snapshotId: s.id, rank, users: n, nonce: await nonceOf(key, s.id, u.userId), account: u.account, balances: u.balances });
      for (const l of leaves) if (l.index >= from && l.index < to) out[l.index - from] = l.node;
    }),
  );
  for (let i = 0; i < to - from; i++) if (!out[i]) throw new Error(`snapshot ${s.id}: leaf ${from + i} has no balances`);
  return out;
}

async function leavesStep(db: D1Database, s: SnapshotRow, key: CryptoKey, c: Counter) {
  const size = 1 << s.block_level;
  const from = s.cursor * size;
  const to = Math.min(from + size, leafCount(s));
  if (from >= leafCount(s)) {
    await commit(db, advance(db, s, { phase: "top", cursor: 0 }, 2, c));
    return;
  }
  c.add(1);
  let level: TreeNode[] = await leavesOf(db, s, key, from, to);
  const rows: [number, number, string, string][] = [];
  for (let l = 0; l <= s.block_level; l++) {
    if (l >= s.stored_level) {
      const first = from >> l;
      level.forEach((n, j) => rows.push([l, first + j, toHex(n.hash), sumsText(n.sums)]));
    }
    if (l < s.block_level) level = await levelUp(level);
  }
  const stmts: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += NODES_PER_STATEMENT) {
    stmts.push(
      db
        .prepare(
          `INSERT INTO liab_nodes (snapshot_id, level, idx, hash, sums)
           SELECT ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`,
        )
        .bind(s.id, JSON.stringify(rows.slice(i, i + NODES_PER_STATEMENT))),
    );
  }
  await commit(db, [...stmts, ...advance(db, s, { phase: "leaves", cursor: s.cursor + 1 }, stmts.length + 2, c)]);
}

async function topStep(db: D1Database, s: SnapshotRow, c: Counter) {
  const currencies = JSON.parse(s.currencies) as SnapshotCurrency[];
  c.add(1);
  const { results } = await db
    .prepare("SELECT idx, hash, sums FROM liab_nodes WHERE snapshot_id = ? AND level = ? ORDER BY idx")
    .bind(s.id, s.block_level)
    .all<{ idx: number; hash: string; sums: string }>();
  const blocks: TreeNode[] = results.map((r) => ({ hash: fromHex(r.hash)!, sums: sumsOf(r.sums) }));
  const counts = levelCounts(leafCount(s));
  if (blocks.length !== counts[s.block_level]) throw new Error(`snapshot ${s.id}: ${blocks.length} block roots, expected ${counts[s.block_level]}`);
  const levels = await buildLevels(blocks);
  const root = levels[levels.length - 1]![0]!;
  const rows: [number, number, string, string][] = [];
  levels.forEach((nodes, k) => {
    if (k > 0) nodes.forEach((n, j) => rows.push([s.block_level + k, j, toHex(n.hash), sumsText(n.sums)]));
  });
  const totals = await totalsOf(db, s.id, c);
  // The tree counts hundredths of a minimal unit: its totals are whole units, or they differ.
  const tree = new Map(currencies.map((cu, i) => [cu.id, root.sums[i]! % TREE_UNITS === 0n ? (root.sums[i]! / TREE_UNITS).toString() : `${root.sums[i]!}/${TREE_UNITS}`]));
  const mismatches = totals.filter((t) => tree.get(t.currency_id) !== t.copy_total || t.copy_total !== t.ledger_total);
  const stmts: D1PreparedStatement[] = [
    ...totals.map((t) => db.prepare("UPDATE liab_totals SET tree_total = ? WHERE snapshot_id = ? AND currency_id = ?").bind(tree.get(t.currency_id) ?? null, s.id, t.currency_id)),
  ];
  for (let i = 0; i < rows.length; i += NODES_PER_STATEMENT) {
    stmts.push(
      db
        .prepare(
          `INSERT INTO liab_nodes (snapshot_id, level, idx, hash, sums)
           SELECT ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`,
        )
        .bind(s.id, JSON.stringify(rows.slice(i, i + NODES_PER_STATEMENT))),
    );
  }
  const now = Date.now();
  if (mismatches.length > 0) {
    const problem = { negative_users: 0, mismatches: mismatches.map((t) => t.currency_id) };
    alert(s, problem);
    await commit(db, [...stmts, ...advance(db, s, { phase: "done", cursor: 0, status: "failed", problem: JSON.stringify(problem), finished_at: now }, stmts.length + 2, c)]);
    return;
  }
  const next: Next = { phase: "prune", cursor: 0, status: "published", root_hash: toHex(root.hash), root_sums: sumsText(root.sums), finished_at: now };
  await commit(db, [...stmts, ...advance(db, s, next, stmts.length + 2, c)]);
}

/** Deletes the copies and nodes of snapshots older than this published one, a bounded slice per step. */
async function pruneStep(db: D1Database, s: SnapshotRow, c: Counter) {
  c.add(1);
  const old = await db
    .prepare(
      `SELECT COALESCE((SELECT snapshot_id FROM liab_users WHERE snapshot_id < ?1 LIMIT 1),
         (SELECT snapshot_id FROM liab_nodes WHERE snapshot_id < ?1 LIMIT 1),
         (SELECT snapshot_id FROM liab_balances WHERE snapshot_id < ?1 LIMIT 1)) AS id`,
    )
    .bind(s.id)
    .first<{ id: number | null }>();
  if (!old || old.id === null) {
    await commit(db, advance(db, s, { phase: "done", cursor: 0 }, 2, c));
    return;
  }
  const stmts = [
    // The copy by user id and the ranks by rank: the shuffle keeps the two orders apart.
    db
      .prepare(
        `DELETE FROM liab_balances WHERE snapshot_id = ?1 AND user_id <= COALESCE(
           (SELECT MAX(user_id) FROM (SELECT user_id FROM liab_balances WHERE snapshot_id = ?1 ORDER BY user_id LIMIT ?2)), 0)`,
      )
      .bind(old.id, PRUNE_USERS),
    db
      .prepare("DELETE FROM liab_users WHERE snapshot_id = ?1 AND idx < (SELECT MIN(idx) FROM liab_users WHERE snapshot_id = ?1) + ?2")
      .bind(old.id, PRUNE_USERS),
    db.prepare("DELETE FROM liab_nodes WHERE snapshot_id = ?1 AND NOT EXISTS (SELECT 1 FROM liab_users WHERE snapshot_id = ?1)").bind(old.id),
  ];
  await commit(db, [...stmts, ...advance(db, s, { phase: "prune", cursor: old.id }, stmts.length + 2, c)]);
}
