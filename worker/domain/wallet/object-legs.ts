/**
 * Legs a D1 decision owes the account objects (issue #28, objects mode; migrations/0050
 * `object_legs`). A product whose record lives in D1 (a deposit credited, a withdrawal rejected,
 * failed or sent) writes its legs into `object_legs` in the same batch as the decision, so the
 * decision and the money it owes commit together; then it delivers them at once (`deliverObjectLegs`).
 * Each object applies a leg once by its key and every answer (applied, seen, refused) acknowledges
 * it, so the row is deleted; a row left behind (the Worker died after the batch, an object did not
 * answer) is sent again by the every-minute job (`resendObjectLegs`, worker/jobs/object-legs.ts).
 */
import type { Leg } from "../../../durable/money/index.ts";
import { sendLegs } from "../../lib/accounts.ts";

/** A row older than this is sent again by the job (the request that wrote it sends it at once). */
export const OBJECT_LEGS_GRACE_MS = 30_000;
const RESEND_LIMIT = 200;
const MAX_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

/** Integer units as the money core counts them (a safe integer; anything past 2^53 − 1 is a bug upstream). */
export function coreUnits(v: bigint): number {
  if (v < 0n || v > MAX_UNITS) throw new RangeError(`units out of the money core's range: ${v}`);
  return Number(v);
}

/** The inserts of `legs` into `object_legs`, to run in the decision's own batch (a copy of a row is ignored). */
export function objectLegStatements(db: D1Database, legs: readonly Leg[], now: number): D1PreparedStatement[] {
  return legs.map((l) =>
    db.prepare("INSERT INTO object_legs (dest, key, ops, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (dest, key) DO NOTHING").bind(l.to, l.key, JSON.stringify(l.ops), now),
  );
}

/**
 * Sends legs to their objects, one call per object with its legs in order, and forgets in D1 each
 * leg its object answered. A refused leg is logged for an operator (the object recorded why); an
 * object that did not answer keeps its rows for the job. Answers how many legs were answered.
 */
export async function deliverObjectLegs(env: Pick<Env, "DB" | "USER">, legs: readonly Leg[]): Promise<number> {
  const byDest = new Map<string, Leg[]>();
  for (const l of legs) byDest.set(l.to, [...(byDest.get(l.to) ?? []), l]);
  const answered = await Promise.all(
    [...byDest].map(async ([dest, list]) => {
      try {
        const results = await sendLegs(env, dest, list);
        results.forEach((r, i) => {
          if (r === "refused") console.error(JSON.stringify({ level: "error", event: "object_leg_refused", dest, key: list[i]!.key }));
        });
        await env.DB.prepare("DELETE FROM object_legs WHERE dest = ?1 AND key IN (SELECT value FROM json_each(?2))")
          .bind(dest, JSON.stringify(list.map((l) => l.key)))
          .run();
        return list.length;
      } catch (err) {
        console.error(JSON.stringify({ level: "warn", event: "object_legs_undelivered", dest, error: String(err).slice(0, 300) }));
        return 0;
      }
    }),
  );
  return answered.reduce((a, b) => a + b, 0);
}

/** The job's step: legs whose decision committed more than `graceMs` ago and that no object has answered yet. */
export async function resendObjectLegs(env: Pick<Env, "DB" | "USER">, now = Date.now(), graceMs = OBJECT_LEGS_GRACE_MS): Promise<{ pending: number; delivered: number }> {
  const { results } = await env.DB.prepare(`SELECT dest, key, ops FROM object_legs WHERE created_at < ? ORDER BY seq LIMIT ${RESEND_LIMIT}`)
    .bind(now - graceMs)
    .all<{ dest: string; key: string; ops: string }>();
  if (results.length === 0) return { pending: 0, delivered: 0 };
  const delivered = await deliverObjectLegs(
    env,
    results.map((r) => ({ key: r.key, to: r.dest, ops: JSON.parse(r.ops) as Leg["ops"] })),
  );
  return { pending: results.length, delivered };
}
