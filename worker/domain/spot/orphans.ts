/**
 * Orphaned holds: an order whose funds were frozen in D1 but that never reached its pair object
 * (the Worker died between the two steps). After a grace period the object is asked about it:
 * if it knows the order, its outbox will settle it (we only nudge the drain); if not, the object
 * writes a tombstone first — so the order can never be booked later — and then the hold is
 * released here, once, under a unique movement key.
 */
import { movementStatements } from "../../lib/ledger.ts";
import { pairStub } from "./pairs.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";

export const ORPHAN_GRACE_MS = 60_000;

export async function reconcileSpotOrders(env: Env, now = Date.now(), graceMs = ORPHAN_GRACE_MS) {
  // With balances in the account objects a spot hold is theirs: their own sweep releases orphans, never D1's ledger.
  if (accountsOnObjects(env)) return { checked: 0, released: 0 };
  const { results } = await env.DB.prepare(
    "SELECT id, user_id, pair_id, reserved_units, reserved_currency FROM spot_orders WHERE status = 0 AND created_at < ? ORDER BY id LIMIT 200",
  )
    .bind(now - graceMs)
    .all<{ id: number; user_id: number; pair_id: number; reserved_units: number; reserved_currency: number }>();
  let released = 0;
  const nudged = new Set<number>();
  for (const o of results) {
    const stub = pairStub(env, o.pair_id);
    const verdict = await stub.tombstone(o.pair_id, o.id);
    if (verdict === "known") {
      if (!nudged.has(o.pair_id)) await stub.drain();
      nudged.add(o.pair_id);
      continue;
    }
    const units = BigInt(o.reserved_units);
    try {
      await env.DB.batch([
        ...movementStatements(env.DB, `spot-orphan:${o.id}`, "spot_release", [
          { userId: o.user_id, currencyId: o.reserved_currency, account: "change", dAvailable: units, dFrozen: -units, memo: "order never booked" },
        ]),
        env.DB.prepare("UPDATE spot_orders SET status = 4, done_reason = 'orphaned', updated_at = ? WHERE id = ? AND status = 0").bind(now, o.id),
      ]);
      released += 1;
    } catch (err) {
      if (!/UNIQUE constraint failed: movements\.key/.test(String(err))) throw err;
    }
  }
  return { checked: results.length, released };
}

/**
 * The same for conditional orders (worker/domain/spot/conditional.ts): a row still submitted after
 * the grace period is asked about. Known to the object: its outbox carries the state to D1 (the
 * drain is nudged). Unknown: the object records it as refused (`orphaned`), so it can never be
 * watched later, and releases what D1 froze for it through its outbox, which also marks the row
 * (durable/pair/desks/conditional.ts `orphan`). An OCO's limit leg is a spot_orders row of the
 * same id, released by reconcileSpotOrders above.
 */
export async function reconcileConditionalOrders(env: Env, now = Date.now(), graceMs = ORPHAN_GRACE_MS) {
  const { results } = await env.DB.prepare(
    "SELECT id, user_id, pair_id, side, type, CAST(reserved_units AS TEXT) AS own FROM spot_conditional_orders WHERE status = 0 AND created_at < ? ORDER BY id LIMIT 200",
  )
    .bind(now - graceMs)
    .all<{ id: number; user_id: number; pair_id: number; side: "buy" | "sell"; type: "stop_limit" | "oco" | "trailing"; own: string }>();
  let released = 0;
  const nudged = new Set<number>();
  for (const o of results) {
    const stub = pairStub(env, o.pair_id);
    const verdict = await stub.conditionalOrphan(o.pair_id, o.id, o.user_id, { own: o.own, side: o.side, type: o.type });
    if (verdict === "tombstoned") released += 1;
    else if (!nudged.has(o.pair_id)) {
      nudged.add(o.pair_id);
      await stub.drain();
    }
  }
  return { checked: results.length, released };
}
