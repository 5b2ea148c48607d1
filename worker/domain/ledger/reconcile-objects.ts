/**
 * The reconciler's checks of the account objects against D1's read model (issue #28; objects mode,
 * `ACCOUNTS = "objects"`; docs/architecture/account-objects.md "Reads in objects mode"):
 *  A. every user's `account_balances` row equals the sum of their drained `account_movements`
 *     (D1 only, the whole read model, one statement);
 *  B. each account object's balances equal its `account_balances`, read at the same bookmark: the
 *     object drains first, and the comparison counts only when no movement landed between the drain
 *     and the reads (else it is tried again, and a user still busy after that is left for the next
 *     run, never reported). A run checks the next `limit` users after a cursor
 *     (`account_migration` row `reconcile:objects`), so every object is visited in turn without
 *     calling every object every run.
 * As the migration's verification (account-objects.ts) does, zero rows are left out: D1 keeps a
 * row at 0/0, an object never writes one.
 */
import type { AccountBalance } from "../../../durable/account/types.ts";
import { userStub } from "../../lib/notify.ts";

/** Objects compared per run (the every-ten-minutes cron: 200 users × 6 runs an hour). */
export const OBJECTS_PER_RUN = 200;
const CURSOR = "reconcile:objects";
const LIMIT = 100;
const ATTEMPTS = 3;
const CONCURRENCY = 16;

export type ObjectDifference =
  | { check: "read_model_vs_movements"; user_id: number; currency_id: number; account: string; balance: string; movements: string }
  | { check: "object_vs_read_model"; user_id: number; currency_id: number; account: string; object: string; read_model: string };

export interface ObjectsCheck {
  differences: ObjectDifference[];
  /** objects compared this run */
  checked: number;
  /** users whose money kept moving through every attempt: compared again on a later run */
  busy: number[];
  /** the last user compared: the next run starts after it (0 = from the start again) */
  cursor: number;
}

/** A: `account_balances` against the sum of `account_movements`, both ways, every user. */
export async function readModelDifferences(db: D1Database): Promise<ObjectDifference[]> {
  const sums = "SELECT user_id, currency_id, account, SUM(d_available) AS a, SUM(d_frozen) AS f FROM account_movements GROUP BY user_id, currency_id, account";
  const { results } = await db
    .prepare(
      `SELECT b.user_id, b.currency_id, b.account, CAST(b.available AS TEXT) AS ba, CAST(b.frozen AS TEXT) AS bf,
              CAST(COALESCE(m.a, 0) AS TEXT) AS ma, CAST(COALESCE(m.f, 0) AS TEXT) AS mf
         FROM account_balances b LEFT JOIN (${sums}) m ON m.user_id = b.user_id AND m.currency_id = b.currency_id AND m.account = b.account
        WHERE b.available != COALESCE(m.a, 0) OR b.frozen != COALESCE(m.f, 0)
       UNION ALL
       SELECT m.user_id, m.currency_id, m.account, '0', '0', CAST(m.a AS TEXT), CAST(m.f AS TEXT)
         FROM (${sums}) m LEFT JOIN account_balances b ON b.user_id = m.user_id AND b.currency_id = m.currency_id AND b.account = m.account
        WHERE b.user_id IS NULL AND (m.a != 0 OR m.f != 0)
       LIMIT ${LIMIT}`,
    )
    .all<{ user_id: number; currency_id: number; account: string; ba: string; bf: string; ma: string; mf: string }>();
  return results.map((r) => ({ check: "read_model_vs_movements", user_id: r.user_id, currency_id: r.currency_id, account: r.account, balance: `${r.ba}/${r.bf}`, movements: `${r.ma}/${r.mf}` }));
}

type Row = { account: string; currencyId: number; available: bigint; frozen: bigint };

const keyOf = (r: { account: string; currencyId: number }) => `${r.currencyId}|${r.account}`;
const nonZero = (rows: readonly Row[]) => new Map(rows.filter((r) => r.available !== 0n || r.frozen !== 0n).map((r) => [keyOf(r), r]));

/** B for one user: the differences, or null when the object's money kept moving through every attempt. */
export async function compareObject(env: Pick<Env, "DB" | "USER">, userId: number): Promise<ObjectDifference[] | null> {
  const stub = userStub(env, userId);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    let drained = await stub.accountDrain();
    for (let i = 0; drained.more && i < 50; i++) drained = await stub.accountDrain();
    if (drained.more) continue;
    const object: AccountBalance[] = await stub.accountBalances(userId);
    // Nothing moved since the drain: the object's balances are those of its bookmark.
    const after = await stub.accountDrain();
    if (after.movements > 0 || after.drainedSeq !== drained.drainedSeq) continue;
    const [mark, rows] = await env.DB.batch([
      env.DB.prepare("SELECT seq FROM account_drained WHERE user_id = ?").bind(userId),
      env.DB.prepare("SELECT currency_id, account, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM account_balances WHERE user_id = ?").bind(userId),
    ]);
    const seen = (mark!.results[0] as { seq: number } | undefined)?.seq ?? 0;
    // A later drain (a movement after our reads) reached D1 first: read again. Since the bookmark
    // moves with the movements themselves (migrations/0052), a read model ahead of an object that
    // has still moved nothing holds movements the object never made: no race, compared below.
    if (seen !== drained.drainedSeq) {
      const again = await stub.accountDrain();
      if (!(seen > drained.drainedSeq && again.movements === 0 && again.drainedSeq === drained.drainedSeq)) continue;
    }
    const model = nonZero(
      (rows!.results as { currency_id: number; account: string; a: string; f: string }[]).map((r) => ({ account: r.account, currencyId: r.currency_id, available: BigInt(r.a), frozen: BigInt(r.f) })),
    );
    const held = nonZero(object);
    const out: ObjectDifference[] = [];
    for (const k of new Set([...held.keys(), ...model.keys()])) {
      const o = held.get(k);
      const m = model.get(k);
      if (o?.available === m?.available && o?.frozen === m?.frozen) continue;
      const [currency, account] = k.split("|") as [string, string];
      out.push({
        check: "object_vs_read_model",
        user_id: userId,
        currency_id: Number(currency),
        account,
        object: `${o?.available ?? 0n}/${o?.frozen ?? 0n}`,
        read_model: `${m?.available ?? 0n}/${m?.frozen ?? 0n}`,
      });
    }
    return out;
  }
  return null;
}

/** A, then B for the next `limit` users after the cursor (users whose objects have drained into D1). */
export async function reconcileObjects(env: Pick<Env, "DB" | "USER">, limit = OBJECTS_PER_RUN, now = Date.now()): Promise<ObjectsCheck> {
  const differences = await readModelDifferences(env.DB);
  await env.DB.prepare("INSERT INTO account_migration (name, cursor, users, started_at, updated_at) VALUES (?1, 0, 0, ?2, ?2) ON CONFLICT (name) DO NOTHING").bind(CURSOR, now).run();
  const after = (await env.DB.prepare("SELECT cursor FROM account_migration WHERE name = ?").bind(CURSOR).first<{ cursor: number }>())?.cursor ?? 0;
  const { results } = await env.DB.prepare("SELECT user_id FROM account_drained WHERE user_id > ? ORDER BY user_id LIMIT ?").bind(after, limit).all<{ user_id: number }>();
  const ids = results.map((r) => r.user_id);
  const busy: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, ids.length) }, async () => {
      while (next < ids.length) {
        const userId = ids[next++]!;
        const found = await compareObject(env, userId);
        if (found === null) busy.push(userId);
        else differences.push(...found);
      }
    }),
  );
  // Past the end: the next run starts from the first user again.
  const cursor = ids.length < limit ? 0 : ids.at(-1)!;
  await env.DB.prepare("UPDATE account_migration SET cursor = ?2, users = users + ?3, updated_at = ?4 WHERE name = ?1").bind(CURSOR, cursor, ids.length - busy.length, now).run();
  return { differences, checked: ids.length - busy.length, busy: busy.sort((a, b) => a - b), cursor };
}
