/**
 * The move of a running exchange's balances from D1 into the account objects (issue #28;
 * docs/architecture/account-objects.md "Migration"). Two steps, each over a batch of users in
 * user id order, each safe to run again:
 * - `migrateAccountsStep`: opens the next users' account objects from their D1 balance rows (a
 *   user with frozen funds also gets one hold per open record, from the products' hold sources,
 *   and one `migrated` hold for any frozen rest no record explains). The object's opening is keyed,
 *   so a batch run twice writes nothing twice; the cursor in `account_migration` moves past a
 *   user only once their object answered, so a stopped run resumes where it stopped.
 * - `verifyAccountsStep`: drains each user's object into the read model and compares, exactly,
 *   D1's balances with the object's and with the read model's; any difference is listed.
 * - `openSystemAccounts`: opens the system accounts' shards (`system:{id}:{k}`: the treasury, the
 *   fees, …) from D1's system balances, each balance split over SYSTEM_SHARDS shards, keyed as a
 *   user's opening; then drains them and compares the shards' sums with D1, in the objects and in
 *   the read model (`system_balances`).
 */
import type { AccountBalance, OpeningBalance, OpeningHold } from "../../../durable/account/types.ts";
import { userStub } from "../../lib/notify.ts";
import { parseAddress, systemAddress, systemStub, SYSTEM_SHARDS } from "../../lib/accounts.ts";
import { holdSourcesOf } from "../products.ts";
import { pairStub } from "../spot/pairs.ts";
import type { HoldSource, SystemOpeningHold } from "./holds.ts";

const MIGRATION = "opening";
/** Objects called at once by one step. */
const CONCURRENCY = 16;

interface D1Row {
  user_id: number;
  currency_id: number;
  account: string;
  available: string;
  frozen: string;
}

export interface MigrateStep {
  /** Users whose objects were opened now, or found opened before (a step run again). */
  imported: number;
  seen: number;
  /** Users opened before whose object no longer equals D1 (D1 changed after their opening: outside the read-only window). */
  mismatched: number[];
  /** Users whose object refused or failed: the cursor stops before the first of them. */
  failed: { user_id: number; error: string }[];
  cursor: number;
  done: boolean;
}

export interface VerifyStep {
  checked: number;
  mismatched: { user_id: number; where: "object" | "read_model" }[];
  /** The last user checked: the next step starts after it. */
  next: number;
  done: boolean;
}

/** Balances as comparable text, zero rows left out (D1 keeps a row at 0/0, an object never writes one). */
function canonical(rows: readonly { account: string; currencyId: number; available: bigint; frozen: bigint }[]): string {
  return rows
    .filter((r) => r.available !== 0n || r.frozen !== 0n)
    .map((r) => `${r.account}:${r.currencyId}=${r.available}/${r.frozen}`)
    .sort()
    .join(",");
}

const opening = (rows: D1Row[]): OpeningBalance[] =>
  rows.map((r) => ({ account: r.account, currencyId: r.currency_id, available: BigInt(r.available), frozen: BigInt(r.frozen) }));

/** Users `first`..`last` (inclusive): a range that one driver migrates while others take other ranges. */
export interface UserRange {
  first: number;
  last: number;
}

const EVERYONE: UserRange = { first: 1, last: Number.MAX_SAFE_INTEGER };

/** The cursor's row: one per range, so ranges run side by side, each resumable on its own. */
const cursorName = (r: UserRange) => (r.first === EVERYONE.first && r.last === EVERYONE.last ? MIGRATION : `${MIGRATION}:${r.first}-${r.last}`);

/** The next `limit` users after `after` (up to `last`) that have balance rows, with all their rows (amounts as exact text). */
async function nextUsers(db: D1Database, after: number, limit: number, last = EVERYONE.last): Promise<Map<number, D1Row[]>> {
  const { results } = await db
    .prepare(
      `SELECT user_id, currency_id, account, CAST(available AS TEXT) AS available, CAST(frozen AS TEXT) AS frozen FROM balances
       WHERE user_id > ?1 AND user_id <= (SELECT COALESCE(max(user_id), ?1) FROM (SELECT DISTINCT user_id FROM balances WHERE user_id > ?1 AND user_id <= ?3 ORDER BY user_id LIMIT ?2))
       ORDER BY user_id, account, currency_id`,
    )
    .bind(Math.max(0, after), limit, last)
    .all<D1Row>();
  const users = new Map<number, D1Row[]>();
  for (const r of results) {
    const list = users.get(r.user_id) ?? [];
    list.push(r);
    users.set(r.user_id, list);
  }
  return users;
}

/**
 * One user's open records, each its own hold keyed by its purpose and record id (what the product
 * will resolve once it moves); a record sharing its key with another of another currency gets the
 * account and currency in its id. Records that claim more than a balance's frozen amount (the
 * reconciler reports those) are left out: that frozen amount stays in one `migrated` hold.
 */
async function recordHolds(db: D1Database, userId: number, rows: OpeningBalance[], sources: HoldSource[]): Promise<OpeningHold[]> {
  const lists = await Promise.all(sources.map((s) => (s.openingHolds ? s.openingHolds(db, userId) : s.forUser ? s.forUser(db, userId) : Promise.resolve([]))));
  const byKey = new Map<string, OpeningHold>();
  for (const h of lists.flat()) {
    if (h.units <= 0n) continue;
    const id = String(h.ref.id ?? "none");
    const kind = h.holdKind ?? h.purpose;
    const k = `${kind}:${id}:${h.account}:${h.currencyId}`;
    const same = byKey.get(k);
    if (same) same.amount += h.units;
    else byKey.set(k, { forKind: kind, forId: id, account: h.account, currencyId: h.currencyId, amount: h.units, ...(h.owner ? { owner: h.owner } : {}) });
  }
  const holds = [...byKey.values()];
  const ids = new Map<string, number>();
  for (const h of holds) ids.set(`${h.forKind}:${h.forId}`, (ids.get(`${h.forKind}:${h.forId}`) ?? 0) + 1);
  for (const h of holds) if ((ids.get(`${h.forKind}:${h.forId}`) ?? 0) > 1) h.forId = `${h.forId}:${h.account}:${h.currencyId}`;
  const frozen = new Map(rows.map((r) => [`${r.account}:${r.currencyId}`, r.frozen]));
  const claimed = new Map<string, bigint>();
  for (const h of holds) claimed.set(`${h.account}:${h.currencyId}`, (claimed.get(`${h.account}:${h.currencyId}`) ?? 0n) + h.amount);
  return holds.filter((h) => (claimed.get(`${h.account}:${h.currencyId}`) ?? 0n) <= (frozen.get(`${h.account}:${h.currencyId}`) ?? 0n));
}

/** Runs `fn` over items, `CONCURRENCY` at a time. */
async function pool<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/**
 * Opens the next `limit` users' account objects from D1 (of `range`, by default everyone) and
 * moves the range's cursor past those that answered; `also` (the step's audit row) is written in
 * the same batch as the cursor.
 */
export async function migrateAccountsStep(
  env: Pick<Env, "DB" | "USER">,
  limit: number,
  range: UserRange = EVERYONE,
  sources: HoldSource[] = holdSourcesOf(),
  now = Date.now(),
  also: (step: MigrateStep) => D1PreparedStatement[] = () => [],
): Promise<MigrateStep> {
  const name = cursorName(range);
  await env.DB.prepare("INSERT INTO account_migration (name, cursor, users, started_at, updated_at) VALUES (?1, ?2, 0, ?3, ?3) ON CONFLICT (name) DO NOTHING").bind(name, range.first - 1, now).run();
  const cursor = await migrationCursor(env.DB, range);
  const users = await nextUsers(env.DB, cursor, limit, range.last);
  const ids = [...users.keys()];
  const answered = new Set<number>();
  const step: MigrateStep = { imported: 0, seen: 0, mismatched: [], failed: [], cursor, done: false };
  await pool(ids, async (userId) => {
    try {
      const rows = opening(users.get(userId)!);
      const records = rows.some((r) => r.frozen > 0n) ? await recordHolds(env.DB, userId, rows, sources) : [];
      const answer = await userStub(env, userId).accountImport(userId, rows, records);
      if (answer.result === "imported") step.imported++;
      else step.seen++;
      if (canonical(answer.balances) !== canonical(rows)) step.mismatched.push(userId);
      answered.add(userId);
    } catch (err) {
      step.failed.push({ user_id: userId, error: String(err).slice(0, 200) });
    }
  });
  // Past every user that answered, up to the first that did not.
  let moved = cursor;
  for (const id of ids) {
    if (!answered.has(id)) break;
    moved = id;
  }
  step.cursor = moved;
  step.mismatched.sort((a, b) => a - b);
  step.failed.sort((a, b) => a.user_id - b.user_id);
  step.done = ids.length === 0 || (step.failed.length === 0 && ids.length < limit);
  const writes = [
    ...(moved !== cursor ? [env.DB.prepare("UPDATE account_migration SET cursor = max(cursor, ?2), users = users + ?3, updated_at = ?4 WHERE name = ?1").bind(name, moved, step.imported, now)] : []),
    ...also(step),
  ];
  if (writes.length > 0) await env.DB.batch(writes);
  return step;
}

/** A range's cursor: the last user id it has opened (`first - 1` before its first step). */
export async function migrationCursor(db: D1Database, range: UserRange = EVERYONE): Promise<number> {
  return (await db.prepare("SELECT cursor FROM account_migration WHERE name = ?").bind(cursorName(range)).first<{ cursor: number }>())?.cursor ?? range.first - 1;
}

/** Drains the next `limit` users' objects after `after` (up to `last`), then compares D1's balances with each object and with the read model. */
export async function verifyAccountsStep(env: Pick<Env, "DB" | "USER">, after: number, limit: number, last = EVERYONE.last): Promise<VerifyStep> {
  const users = await nextUsers(env.DB, after, limit, last);
  const ids = [...users.keys()];
  const objects = new Map<number, AccountBalance[]>();
  await pool(ids, async (userId) => {
    const stub = userStub(env, userId);
    for (let i = 0; i < 1000; i++) if (!(await stub.accountDrain()).more) break;
    objects.set(userId, await stub.accountBalances(userId));
  });
  const model = new Map<number, OpeningBalance[]>();
  if (ids.length > 0) {
    const { results } = await env.DB.prepare(
      `SELECT user_id, currency_id, account, CAST(available AS TEXT) AS available, CAST(frozen AS TEXT) AS frozen FROM account_balances WHERE user_id BETWEEN ?1 AND ?2`,
    )
      .bind(ids[0], ids.at(-1))
      .all<D1Row>();
    for (const r of results) {
      const list = model.get(r.user_id) ?? [];
      list.push(...opening([r]));
      model.set(r.user_id, list);
    }
  }
  const mismatched: VerifyStep["mismatched"] = [];
  for (const userId of ids) {
    const d1 = canonical(opening(users.get(userId)!));
    if (canonical(objects.get(userId) ?? []) !== d1) mismatched.push({ user_id: userId, where: "object" });
    if (canonical(model.get(userId) ?? []) !== d1) mismatched.push({ user_id: userId, where: "read_model" });
  }
  return { checked: ids.length, mismatched, next: ids.at(-1) ?? after, done: ids.length < limit };
}

export interface SystemOpening {
  /** Shards opened now, or found opened before (run again). */
  imported: number;
  seen: number;
  /** D1 system rows not moved: below zero by design (the deposits account mirrors money from outside) or no shard name. */
  skipped: { user_id: number; account: string; currency_id: number; available: string; frozen: string }[];
  /** System accounts whose shards, summed, differ from D1: in the objects or in the read model. */
  mismatched: { user_id: number; where: "object" | "read_model" }[];
}

/** `amount` over `shards` parts as even as integers allow (the first `amount mod shards` parts get one more). */
export function splitOver(amount: bigint, shards = SYSTEM_SHARDS): bigint[] {
  const n = BigInt(shards);
  return Array.from({ length: shards }, (_, k) => amount / n + (BigInt(k) < amount % n ? 1n : 0n));
}

/**
 * Opens every system account's shards from D1 (user ids ≤ 0 with balance rows): each row's
 * available amount split over the shards (`splitOver`); its frozen amount goes first to the
 * records the products resolve by name in one shard (`HoldSource.systemOpeningHolds`: a savings
 * budget, a live cover, an approved mining payout, each a hold `{kind}:{id}` in the treasury shard
 * of its id), and what no such record explains is split over the shards as their
 * `migrated:{account}:{currency}` holds, as a user's unexplained frozen funds are. A balance whose
 * records claim more than its frozen amount (the reconciler reports that) keeps all of it in the
 * `migrated` holds. A record held out of the available amount (`fromAvailable`: a carried-over
 * pending limit's open fee, which D1 would give back from the fee account) is a hold in its shard
 * too, and the available amount split over the shards is D1's less those: the shards then hold
 * D1's balance with that part frozen, and are compared so; records asking for more than the
 * available amount are reported as a difference (the cut-over is not recorded). Keyed per shard,
 * so a second run writes nothing; then each opened shard is drained and the sums over the shards
 * are compared with D1, in the objects and in `system_balances`.
 */
export async function openSystemAccounts(env: Pick<Env, "DB" | "USER">, sources: HoldSource[] = holdSourcesOf()): Promise<SystemOpening> {
  const { results } = await env.DB.prepare(
    "SELECT user_id, currency_id, account, CAST(available AS TEXT) AS available, CAST(frozen AS TEXT) AS frozen FROM balances WHERE user_id <= 0 ORDER BY user_id DESC, account, currency_id",
  ).all<D1Row>();
  const out: SystemOpening = { imported: 0, seen: 0, skipped: [], mismatched: [] };
  const byUser = new Map<number, OpeningBalance[]>();
  for (const r of results) {
    const row = opening([r])[0]!;
    if (row.available < 0n || row.frozen < 0n || !parseAddress(systemAddress(r.user_id, 0))) {
      out.skipped.push(r);
      continue;
    }
    if (row.available === 0n && row.frozen === 0n) continue;
    byUser.set(r.user_id, [...(byUser.get(r.user_id) ?? []), row]);
  }
  const records = (await Promise.all(sources.map((s) => (s.systemOpeningHolds ? s.systemOpeningHolds(env.DB) : Promise.resolve([]))))).flat();
  const sum = (holds: SystemOpeningHold[]) => holds.reduce((a, h) => a + h.amount, 0n);
  // What each system account's shards must hold together: D1's rows, but for the records held out of the available balance.
  const expected = new Map<number, OpeningBalance[]>();
  const shards = [...byUser].flatMap(([userId, rows]) => {
    const parts = rows.map((r) => {
      const mine = records.filter((h) => h.userId === userId && h.account === r.account && h.currencyId === r.currencyId);
      const fromFrozen = mine.filter((h) => !h.fromAvailable);
      const fromAvailable = mine.filter((h) => h.fromAvailable);
      const claimed = sum(fromFrozen);
      const taken = sum(fromAvailable);
      // More than the available balance held for records D1 could pay back: the balance is short, the shards are not opened right.
      if (taken > r.available) out.mismatched.push({ user_id: userId, where: "object" });
      const moved = taken <= r.available ? taken : 0n;
      const held = [...(claimed <= r.frozen ? fromFrozen : []), ...(moved > 0n ? fromAvailable : [])];
      const inShard = (k: number) => sum(held.filter((h) => h.shard === k));
      const rest = splitOver(r.frozen - (claimed <= r.frozen ? claimed : 0n));
      expected.set(userId, [...(expected.get(userId) ?? []), { ...r, available: r.available - moved, frozen: r.frozen + moved }]);
      return { r, held, available: splitOver(r.available - moved), frozen: Array.from({ length: SYSTEM_SHARDS }, (_, k) => inShard(k) + rest[k]!) };
    });
    return Array.from({ length: SYSTEM_SHARDS }, (_, k) => ({
      userId,
      k,
      rows: parts.map((p) => ({ ...p.r, available: p.available[k]!, frozen: p.frozen[k]! })).filter((r) => r.available > 0n || r.frozen > 0n),
      holds: parts.flatMap((p) => p.held.filter((h) => h.shard === k).map((h): OpeningHold => ({ forKind: h.forKind, forId: h.forId, account: h.account, currencyId: h.currencyId, amount: h.amount }))),
    })).filter((s) => s.rows.length > 0);
  });
  const objects = new Map<number, AccountBalance[]>();
  await pool(shards, async ({ userId, k, rows, holds }) => {
    const stub = systemStub(env, userId, k);
    const answer = await stub.systemImport(userId, k, rows, holds);
    if (answer.result === "imported") out.imported++;
    else out.seen++;
    for (let i = 0; i < 1000; i++) if (!(await stub.accountDrain()).more) break;
    objects.set(userId, [...(objects.get(userId) ?? []), ...answer.balances]);
  });
  const { results: model } = await env.DB.prepare(
    "SELECT user_id, currency_id, account, CAST(sum(available) AS TEXT) AS available, CAST(sum(frozen) AS TEXT) AS frozen FROM system_balances GROUP BY user_id, currency_id, account",
  ).all<D1Row>();
  for (const userId of byUser.keys()) {
    const d1 = canonical(expected.get(userId) ?? []);
    if (canonical(summed(objects.get(userId) ?? [])) !== d1) out.mismatched.push({ user_id: userId, where: "object" });
    if (canonical(opening(model.filter((r) => r.user_id === userId))) !== d1) out.mismatched.push({ user_id: userId, where: "read_model" });
  }
  return out;
}

/** Balances of several shards summed per account and currency. */
function summed(rows: readonly AccountBalance[]): AccountBalance[] {
  const sums = new Map<string, AccountBalance>();
  for (const b of rows) {
    const k = `${b.account}:${b.currencyId}`;
    const s = sums.get(k);
    if (s) sums.set(k, { ...s, available: s.available + b.available, frozen: s.frozen + b.frozen });
    else sums.set(k, { ...b });
  }
  return [...sums.values()];
}

/**
 * The contracts and positions open at the cut-over ran on D1's path, which took their open fee at
 * the open: their holds are opened without it (D1's frozen funds), and their settle or close on the
 * objects must not take it again. Marks them paid in every pair (`feesPaidOnD1`) and in D1's rows
 * (`fee_held` 0, what the reconciler's hold sources read in objects mode). A pending limit open
 * with a fee (which D1 would give back at a revoke) the pair marks as held by its fee shard, and
 * D1's row says so (`fee_held` 2): `openSystemAccounts`, run after this, opens that fee as the hold
 * `lever_fee:{id}` in the position's fee shard (worker/domain/lever/positions.ts `leverHolds`).
 * Idempotent (each pair answers every position it marked so, each time); run by the cut-over's
 * system step while no cut-over is recorded (account-cutover.ts `systemStep`), when every open
 * record is from D1's path.
 */
export async function carryOverOpenFees(env: Pick<Env, "DB" | "PAIR">): Promise<{ contracts: number; positions: number; feesHeld: number }> {
  const { results } = await env.DB.prepare("SELECT id FROM pairs ORDER BY id").all<{ id: number }>();
  const marked = await Promise.all(results.map((r) => pairStub(env, r.id).feesPaidOnD1(r.id)));
  const held = marked.flatMap((m) => m.held);
  await env.DB.batch([
    env.DB.prepare("UPDATE micro_orders SET fee_held = 0 WHERE fee_held = 1 AND status IN (0, 1, 2)"),
    env.DB.prepare("UPDATE lever_positions SET fee_held = 2 WHERE id IN (SELECT value FROM json_each(?1)) AND fee > 0").bind(JSON.stringify(held)),
    env.DB.prepare("UPDATE lever_positions SET fee_held = 0 WHERE fee_held = 1 AND status IN (0, 1, 2, 3)"),
  ]);
  return marked.reduce((a, m) => ({ ...a, contracts: a.contracts + m.contracts, positions: a.positions + m.positions }), { contracts: 0, positions: 0, feesHeld: held.length });
}
