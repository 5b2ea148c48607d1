/**
 * Ledger reconciliation (DESIGN §3: nothing lost, nothing counted twice). Checks, over the whole
 * database:
 *  1. per currency, the ledger sums to zero across every account (users and system accounts);
 *  2. every balance row equals the sum of its ledger rows (and no ledger group lacks its row);
 *  3. every movement nets to zero per currency;
 *  4. no account is negative except the two external-flow counterparts (EXTERNAL_ACCOUNTS:
 *     deposits -1, withdrawals -2, which mirror money from and to the outside world); the fee
 *     account, the treasury and any other system account never are (the database refuses it too:
 *     migrations/0034); system accounts hold nothing frozen (except the treasury: the house's holds
 *     for open seconds contracts and leveraged positions, checked in 5);
 *  4b. every debit of the fee account is explained: a reversal of a product fee (a kind in the
 *     products' `feeKinds`: a refund, a revoked open) or a rebate payment, and each rebate payment
 *     (`invite-rebate:{day}:{inviter}`) equals the rebate lines it pays (invite_rebates), so the
 *     fee account's balance is exactly the fees collected − their reversals − the rebates paid;
 *  5. frozen funds equal the open holds that explain them. Each product declares its hold
 *     sources in its worker/domain/<area>/product.ts (withdrawals and spot orders, seconds
 *     contracts, C2C escrow, leveraged positions), gathered by worker/domain/products.ts, so this
 *     file imports no product; frozen money that no source explains — or a hold without the
 *     frozen money behind it — is reported.
 * In objects mode (`ACCOUNTS = "objects"`: users' money lives in their account objects, D1 is the
 * read model) check 5 reads users' frozen funds from the read model and confirms a difference
 * with the user's object itself, then again after the pairs owning the user's holds drained their
 * records into D1 (a fill the pair has not drained yet is not a difference), the treasury's from
 * D1 plus its shard objects (the covers of
 * seconds and lever), each source's holds as the objects hold them (`loadObjects`), and the objects are compared with the read model
 * (reconcile-objects.ts): the sum of `account_movements` = `account_balances` = the object's balances.
 * Checks 1–4 keep checking D1's ledger (the record up to the cut-over, and the system accounts).
 * Differences are returned, written to `reconciliation_reports` and logged with console.error.
 */
import { TREASURY } from "../../lib/guarded.ts";
import { EXTERNAL_ACCOUNTS, SYSTEM } from "../../lib/ledger.ts";
import { PRODUCTS } from "../../../schemas/products.ts";
import { holdSourcesOf } from "../products.ts";
import { accountReads, readsOnObjects, type AccountReads, type AccountsEnv } from "../wallet/object-reads.ts";
import type { HoldSource } from "./holds.ts";
import { reconcileObjects, type ObjectDifference } from "./reconcile-objects.ts";

export type { Hold, HoldSource } from "./holds.ts";

export type Difference =
  | { check: "ledger_sum"; currency_id: number; sum: string }
  | { check: "balance_vs_ledger"; user_id: number; currency_id: number; account: string; balance: string; ledger: string }
  | { check: "movement_unbalanced"; movement_key: string; currency_id: number; sum: string }
  | { check: "negative_balance"; user_id: number; currency_id: number; account: string; available: string; frozen: string }
  | { check: "system_frozen"; user_id: number; currency_id: number; account: string; frozen: string }
  | { check: "system_unexplained"; user_id: number; currency_id: number; movement_key: string; kind: string; amount: string; explained: string }
  | { check: "frozen_vs_holds"; user_id: number; currency_id: number; account: string; frozen: string; holds: string }
  | ObjectDifference;

export interface ReconcileResult {
  ok: boolean;
  checked_at: number;
  differences: Difference[];
  stats: { ledger_rows: number; movements: number; balance_rows: number; open_holds: number; hold_sources: string[] };
}

const LIMIT = 100;
const external = EXTERNAL_ACCOUNTS.join(", ");
/** Kinds that may take money out of the fee account: reversals of product fees, and rebate payments. */
const FEE_DEBIT_KINDS = [...new Set([...PRODUCTS.flatMap((p) => p.feeKinds), "invite_rebate"])].map((k) => `'${k.replace(/'/g, "''")}'`).join(", ");

/** Runs every check and returns the differences (empty when the books are right); `reads`: objects mode. */
export async function reconcile(db: D1Database, sources: HoldSource[] = holdSourcesOf(), reads: AccountReads | null = null): Promise<ReconcileResult> {
  const differences: Difference[] = [];
  const grouped = `SELECT user_id, currency_id, account, SUM(d_available) AS a, SUM(d_frozen) AS f FROM ledger GROUP BY user_id, currency_id, account`;
  const [sums, balanceRows, unbalanced, negative, systemFrozen, counts, feeDebits] = await db.batch([
    db.prepare("SELECT currency_id, CAST(SUM(d_available + d_frozen) AS TEXT) AS s FROM ledger GROUP BY currency_id HAVING SUM(d_available + d_frozen) != 0"),
    db.prepare(
      `SELECT b.user_id, b.currency_id, b.account, CAST(b.available AS TEXT) AS ba, CAST(b.frozen AS TEXT) AS bf,
              CAST(COALESCE(l.a, 0) AS TEXT) AS la, CAST(COALESCE(l.f, 0) AS TEXT) AS lf
         FROM balances b LEFT JOIN (${grouped}) l
           ON l.user_id = b.user_id AND l.currency_id = b.currency_id AND l.account = b.account
        WHERE b.available != COALESCE(l.a, 0) OR b.frozen != COALESCE(l.f, 0)
       UNION ALL
       SELECT l.user_id, l.currency_id, l.account, '0', '0', CAST(l.a AS TEXT), CAST(l.f AS TEXT)
         FROM (${grouped}) l LEFT JOIN balances b
           ON l.user_id = b.user_id AND l.currency_id = b.currency_id AND l.account = b.account
        WHERE b.user_id IS NULL AND (l.a != 0 OR l.f != 0)
       LIMIT ${LIMIT}`,
    ),
    db.prepare(
      `SELECT movement_key, currency_id, CAST(SUM(d_available + d_frozen) AS TEXT) AS s FROM ledger
        GROUP BY movement_key, currency_id HAVING SUM(d_available + d_frozen) != 0 LIMIT ${LIMIT}`,
    ),
    db
      .prepare(
        `SELECT user_id, currency_id, account, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM balances
          WHERE user_id NOT IN (${external}) AND (available < 0 OR frozen < 0) LIMIT ${LIMIT}`,
      ),
    db.prepare(`SELECT user_id, currency_id, account, CAST(frozen AS TEXT) AS f FROM balances WHERE user_id <= 0 AND user_id != ? AND frozen != 0 LIMIT ${LIMIT}`).bind(TREASURY),
    db.prepare("SELECT (SELECT count(*) FROM ledger) AS l, (SELECT count(*) FROM movements) AS m, (SELECT count(*) FROM balances) AS b"),
    // Fee-account debits of a kind that may not debit it, and rebate payments that differ from their lines.
    db
      .prepare(
        `SELECT l.user_id, l.currency_id, l.movement_key, l.kind, CAST(-l.d_available - l.d_frozen AS TEXT) AS amount,
                CAST(COALESCE(r.s, 0) AS TEXT) AS explained
           FROM ledger l
           LEFT JOIN (SELECT 'invite-rebate:' || day || ':' || inviter_id AS k, SUM(amount) AS s FROM invite_rebates GROUP BY day, inviter_id) r
             ON l.kind = 'invite_rebate' AND r.k = l.movement_key
          WHERE l.user_id = ? AND l.d_available + l.d_frozen < 0
            AND (l.kind NOT IN (${FEE_DEBIT_KINDS}) OR (l.kind = 'invite_rebate' AND -l.d_available - l.d_frozen != COALESCE(r.s, 0)))
          LIMIT ${LIMIT}`,
      )
      .bind(SYSTEM.fees),
  ]);

  for (const r of (sums!.results ?? []) as { currency_id: number; s: string }[]) differences.push({ check: "ledger_sum", currency_id: r.currency_id, sum: r.s });
  for (const r of (balanceRows!.results ?? []) as { user_id: number; currency_id: number; account: string; ba: string; bf: string; la: string; lf: string }[]) {
    differences.push({ check: "balance_vs_ledger", user_id: r.user_id, currency_id: r.currency_id, account: r.account, balance: `${r.ba}/${r.bf}`, ledger: `${r.la}/${r.lf}` });
  }
  for (const r of (unbalanced!.results ?? []) as { movement_key: string; currency_id: number; s: string }[]) {
    differences.push({ check: "movement_unbalanced", movement_key: r.movement_key, currency_id: r.currency_id, sum: r.s });
  }
  for (const r of (negative!.results ?? []) as { user_id: number; currency_id: number; account: string; a: string; f: string }[]) {
    differences.push({ check: "negative_balance", user_id: r.user_id, currency_id: r.currency_id, account: r.account, available: r.a, frozen: r.f });
  }
  for (const r of (systemFrozen!.results ?? []) as { user_id: number; currency_id: number; account: string; f: string }[]) {
    differences.push({ check: "system_frozen", user_id: r.user_id, currency_id: r.currency_id, account: r.account, frozen: r.f });
  }

  for (const r of (feeDebits!.results ?? []) as { user_id: number; currency_id: number; movement_key: string; kind: string; amount: string; explained: string }[]) {
    differences.push({ check: "system_unexplained", user_id: r.user_id, currency_id: r.currency_id, movement_key: r.movement_key, kind: r.kind, amount: r.amount, explained: r.explained });
  }

  // Frozen funds against the holds that explain them, both ways.
  const loaded = await holdsOf(db, sources, reads !== null);
  const holds = loaded.holds;
  // Objects mode: users' frozen funds are in their objects, as of the last drain in the read model.
  const { results: frozenRows } = await db
    .prepare(
      reads
        ? "SELECT user_id, currency_id, account, CAST(frozen AS TEXT) AS f FROM account_balances WHERE frozen != 0 UNION ALL SELECT user_id, currency_id, account, CAST(frozen AS TEXT) FROM balances WHERE user_id = ?1 AND frozen != 0"
        : "SELECT user_id, currency_id, account, CAST(frozen AS TEXT) AS f FROM balances WHERE (user_id > 0 OR user_id = ?) AND frozen != 0",
    )
    .bind(TREASURY)
    .all<{ user_id: number; currency_id: number; account: string; f: string }>();
  const frozen = new Map<string, bigint>(frozenRows.map((r) => [`${r.user_id}|${r.currency_id}|${r.account}`, BigInt(r.f)]));
  // Objects mode: the treasury's holds of seconds and lever (their covers) are in its shard objects, besides what D1's products hold in D1.
  // Once the cut-over opened the shards from D1's treasury (`openSystemAccounts`: a shard's first
  // movement), D1's treasury row is the copy they were opened from, not money of its own: the shards alone count.
  if (reads && (await db.prepare("SELECT 1 AS x FROM system_movements WHERE user_id = ?1 AND seq = 1 AND ref LIKE 'migrate:opening%' LIMIT 1").bind(TREASURY).first()))
    for (const k of [...frozen.keys()]) if (k.startsWith(`${TREASURY}|`)) frozen.delete(k);
  // The treasury's frozen funds D1 still counts (before a cut-over), without its shards': a recheck adds the shards' again.
  const treasuryInD1 = new Map([...frozen].filter(([k]) => k.startsWith(`${TREASURY}|`)).map(([k, f]) => [k.slice(`${TREASURY}|`.length), f]));
  if (reads)
    for (const b of await reads.systemBalances(TREASURY))
      if (b.frozen !== 0n) frozen.set(`${TREASURY}|${b.currencyId}|${b.account}`, (frozen.get(`${TREASURY}|${b.currencyId}|${b.account}`) ?? 0n) + b.frozen);
  const objectFrozen = new Map<number, Promise<Map<string, bigint>>>();
  let mismatched: FrozenMismatch[] = [];
  for (const k of new Set([...holds.keys(), ...frozen.keys()])) {
    let f = frozen.get(k) ?? 0n;
    const h = holds.get(k) ?? 0n;
    const [u, c, a] = k.split("|");
    if (f !== h && reads && Number(u) > 0) {
      // The read model may not have the user's latest hold yet: the object's own frozen funds decide.
      const user = Number(u);
      if (!objectFrozen.has(user)) objectFrozen.set(user, frozenInObject(reads, user));
      f = (await objectFrozen.get(user)!).get(`${c}|${a}`) ?? 0n;
    }
    if (f !== h) mismatched.push({ userId: Number(u), currencyId: Number(c), account: a!, frozen: f, holds: h });
  }
  if (reads) mismatched = await confirmedAfterPairs(db, sources, reads, mismatched, treasuryInD1);
  for (const m of mismatched.slice(0, Math.max(0, 10 * LIMIT - differences.length))) {
    differences.push({ check: "frozen_vs_holds", user_id: m.userId, currency_id: m.currencyId, account: m.account, frozen: m.frozen.toString(), holds: m.holds.toString() });
  }

  const c = (counts!.results?.[0] ?? { l: 0, m: 0, b: 0 }) as { l: number; m: number; b: number };
  return {
    ok: differences.length === 0,
    checked_at: Date.now(),
    differences,
    stats: { ledger_rows: c.l, movements: c.m, balance_rows: c.b, open_holds: loaded.count, hold_sources: sources.map((s) => s.name) },
  };
}

/** Every source's open holds summed per user, currency and account (`objects`: as the account objects hold them), and how many. */
async function holdsOf(db: D1Database, sources: HoldSource[], objects: boolean): Promise<{ holds: Map<string, bigint>; count: number }> {
  const holds = new Map<string, bigint>();
  let count = 0;
  for (const source of sources) {
    for (const h of await (objects && source.loadObjects ? source.loadObjects(db) : source.load(db))) {
      count++;
      const k = `${h.userId}|${h.currencyId}|${h.account}`;
      holds.set(k, (holds.get(k) ?? 0n) + h.units);
    }
  }
  return { holds, count };
}

/** A user's frozen funds of one currency and account that the open holds do not explain. */
interface FrozenMismatch {
  userId: number;
  currencyId: number;
  account: string;
  frozen: bigint;
  holds: bigint;
}

/** Checks of a user's mismatch after their pairs drained, before it is reported anyway. */
const RECHECKS = 3;

/**
 * Objects mode: D1's rows of a user's orders, contracts and positions arrive with their pair's
 * drain, so for a moment they may explain what the object held before a fill (a partly filled
 * order's row still holding the whole order). A user's mismatch is checked again after every pair
 * owning their holds has drained (`drainHoldPairs`), against the hold sources read again and the
 * object's frozen funds read again, and only what still differs is kept: a mismatch found twice
 * with the same amounts, or still there after the last check (a user trading meanwhile moves
 * the amounts between checks). System accounts (the treasury's shards) are kept as they are.
 */
async function confirmedAfterPairs(db: D1Database, sources: HoldSource[], reads: AccountReads, found: FrozenMismatch[], treasuryInD1: ReadonlyMap<string, bigint>): Promise<FrozenMismatch[]> {
  const kept = await treasuryAfterPairs(db, sources, reads, found.filter((m) => m.userId <= 0), treasuryInD1);
  let pending = found.filter((m) => m.userId > 0);
  for (let check = 1; check <= RECHECKS && pending.length > 0; check++) {
    const users = [...new Set(pending.map((m) => m.userId))];
    await reads.drainHoldPairs(users);
    const [{ holds }, objects] = await Promise.all([holdsOf(db, sources, true), Promise.all(users.map(async (u) => [u, await frozenInObject(reads, u)] as const))]);
    const frozenOf = new Map(objects);
    const next: FrozenMismatch[] = [];
    for (const m of pending) {
      const now = { ...m, frozen: frozenOf.get(m.userId)!.get(`${m.currencyId}|${m.account}`) ?? 0n, holds: holds.get(`${m.userId}|${m.currencyId}|${m.account}`) ?? 0n };
      if (now.frozen === now.holds) continue;
      if ((now.frozen === m.frozen && now.holds === m.holds) || check === RECHECKS) kept.push(now);
      else next.push(now);
    }
    pending = next;
  }
  return kept;
}

/**
 * The treasury's mismatches (objects mode): its shards hold the covers of contracts and positions
 * whose D1 rows come with their pair's drain, so a cover held a moment ago may have no row yet.
 * Every pair drains, then the treasury's shards and the hold sources are read again; what still
 * differs is kept. The treasury's D1 part (before a cut-over) does not move here: it is carried.
 */
async function treasuryAfterPairs(db: D1Database, sources: HoldSource[], reads: AccountReads, found: FrozenMismatch[], treasuryInD1: ReadonlyMap<string, bigint>): Promise<FrozenMismatch[]> {
  if (!found.some((m) => m.userId === TREASURY)) return found;
  await reads.drainAllPairs();
  const [{ holds }, shards] = await Promise.all([holdsOf(db, sources, true), reads.systemBalances(TREASURY)]);
  const shardsNow = new Map(shards.map((b) => [`${b.currencyId}|${b.account}`, b.frozen]));
  const kept: FrozenMismatch[] = [];
  for (const m of found) {
    if (m.userId !== TREASURY) {
      kept.push(m);
      continue;
    }
    const k = `${m.currencyId}|${m.account}`;
    // D1's part as it was counted, plus the shards' frozen funds now.
    const now = { ...m, frozen: (treasuryInD1.get(k) ?? 0n) + (shardsNow.get(k) ?? 0n), holds: holds.get(`${TREASURY}|${k}`) ?? 0n };
    if (now.frozen !== now.holds) kept.push(now);
  }
  return kept;
}

/** One user's frozen funds per currency and account, from their object after it drained. */
async function frozenInObject(reads: AccountReads, userId: number): Promise<Map<string, bigint>> {
  await reads.drained(userId);
  return new Map((await reads.balances(userId)).map((b) => [`${b.currencyId}|${b.account}`, b.frozen]));
}

/**
 * Runs the checks, stores a report row and shouts when anything is off. `env` (the cron's and the
 * operator route's) switches on the objects' checks when `ACCOUNTS = "objects"`.
 */
export async function reconcileAndRecord(db: D1Database, source: "cron" | "operator", env?: AccountsEnv): Promise<ReconcileResult & { report_id: number }> {
  const objects = env && readsOnObjects(env) ? env : null;
  const result = await reconcile(db, holdSourcesOf(), objects ? accountReads(objects) : null);
  if (objects) {
    const check = await reconcileObjects(objects);
    result.differences.push(...check.differences);
    result.ok = result.differences.length === 0;
    if (check.busy.length > 0) console.warn(JSON.stringify({ level: "warn", event: "reconciliation_objects_busy", users: check.busy }));
  }
  if (!result.ok) {
    console.error(JSON.stringify({ level: "error", event: "reconciliation_difference", source, differences: result.differences, stats: result.stats }));
  }
  const row = await db
    .prepare("INSERT INTO reconciliation_reports (ok, source, differences, stats, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id")
    .bind(result.ok ? 1 : 0, source, JSON.stringify(result.differences), JSON.stringify(result.stats), result.checked_at)
    .first<{ id: number }>();
  return { ...result, report_id: row!.id };
}
