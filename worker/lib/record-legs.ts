/**
 * Legs owed by records that live in D1 (issue #28, `ACCOUNTS=objects`): a C2C order's release or
 * return, a savings interest day, a cover's payout, a deposit credited, a day's invite rebates. The
 * record's transition writes its legs into `record_legs` (migrations/0050) in the same D1 batch as the
 * transition itself, so a committed transition never loses its money; the Worker then sends them
 * to their account objects (`sendLegs`) and deletes each row its object answered. Every answer
 * (applied, seen, refused) acknowledges the leg, as the money core's outbox does; a refusal is
 * logged for an operator. A row left behind (the Worker died, an object was unreachable) is sent
 * again by the every-minute job (`resendRecordLegs`): the objects apply each key once, so sending
 * twice moves nothing twice.
 */
import type { Leg } from "../../durable/money/index.ts";
import { sendLegs } from "./accounts.ts";

/** A row older than this is one its sender did not finish: the job sends it again. */
export const RESEND_AFTER_MS = 30_000;
const RESEND_LIMIT = 200;

/** The statement that records `legs` in the transition's own batch (none for no legs). */
export function recordLegsStatements(db: D1Database, record: string, legs: readonly Leg[], now: number): D1PreparedStatement[] {
  if (legs.length === 0) return [];
  return [
    db
      .prepare(
        `INSERT INTO record_legs (key, dest, ops, record, created_at)
         SELECT value ->> 'key', value ->> 'to', value ->> 'ops', ?, ? FROM json_each(?) WHERE true ON CONFLICT (key) DO NOTHING`,
      )
      .bind(record, now, JSON.stringify(legs)),
  ];
}

/**
 * Sends legs to their objects (one call per object) and forgets the answered ones. Never throws:
 * an object that cannot be reached leaves its legs in `record_legs` for the job. Answers the
 * number of legs still unanswered.
 */
export async function deliverRecordLegs(env: Pick<Env, "DB" | "USER">, legs: readonly Leg[]): Promise<number> {
  if (legs.length === 0) return 0;
  const byDest = new Map<string, Leg[]>();
  for (const l of legs) byDest.set(l.to, [...(byDest.get(l.to) ?? []), l]);
  let left = 0;
  const answered: string[] = [];
  await Promise.all(
    [...byDest].map(async ([to, group]) => {
      try {
        const results = await sendLegs(env, to, group);
        group.forEach((l, i) => {
          if (results[i] === "refused") console.error(JSON.stringify({ level: "error", msg: "record leg refused by its account", key: l.key, to }));
          answered.push(l.key);
        });
      } catch (err) {
        left += group.length;
        console.error(JSON.stringify({ level: "warn", msg: "record legs not delivered; the job sends them again", to, error: String(err).slice(0, 300) }));
      }
    }),
  );
  if (answered.length > 0)
    await env.DB.prepare("DELETE FROM record_legs WHERE key IN (SELECT value FROM json_each(?))").bind(JSON.stringify(answered)).run();
  return left;
}

/** The job's part: legs whose sender did not finish (older than `afterMs`), sent again, oldest first. */
export async function resendRecordLegs(env: Pick<Env, "DB" | "USER">, now = Date.now(), afterMs = RESEND_AFTER_MS): Promise<{ sent: number; left: number }> {
  const { results } = await env.DB.prepare("SELECT key, dest, ops FROM record_legs WHERE created_at <= ? ORDER BY created_at LIMIT ?")
    .bind(now - afterMs, RESEND_LIMIT)
    .all<{ key: string; dest: string; ops: string }>();
  if (results.length === 0) return { sent: 0, left: 0 };
  await env.DB.prepare("UPDATE record_legs SET attempts = attempts + 1 WHERE key IN (SELECT value FROM json_each(?))").bind(JSON.stringify(results.map((r) => r.key))).run();
  const legs: Leg[] = results.map((r) => ({ key: r.key, to: r.dest, ops: JSON.parse(r.ops) as Leg["ops"] }));
  const left = await deliverRecordLegs(env, legs);
  return { sent: legs.length - left, left };
}

/** The legs a record still owes (none once all were answered): what tests and operators look at. */
export async function pendingRecordLegs(db: D1Database, record: string): Promise<string[]> {
  const { results } = await db.prepare("SELECT key FROM record_legs WHERE record = ? ORDER BY key").bind(record).all<{ key: string }>();
  return results.map((r) => r.key);
}
