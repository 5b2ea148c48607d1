/**
 * Open spot orders as a reconciliation hold source: what each open order still has frozen.
 * A buy keeps limit price × unfilled quantity of quote (price improvement is released per fill);
 * a sell keeps its unfilled quantity of base. Both are converted to minimal units per pair.
 */
import { baseUnitsPerLot, lotsToBaseUnits, notionalToQuoteUnits, quoteUnitsPerTickLot } from "../../../durable/engine/units.ts";
import { CHILD_ID_BASE } from "../../../durable/engine/conditional.ts";
import type { Hold, HoldSource, UserHold } from "../ledger/holds.ts";
import { spotConditionalHolds } from "./conditional.ts";

interface OrderRest {
  side: string;
  currency_id: number;
  legal_id: number;
  price_decimals: number;
  qty_decimals: number;
  base_scale: number;
  quote_scale: number;
  notional: string;
  qty: string;
}

/** What open orders' unfilled rest keeps frozen: quote for a buy (limit price × rest), base for a sell. */
function restHold(r: OrderRest): { currencyId: number; units: bigint } {
  if (r.side === "buy") {
    const perTickLot = quoteUnitsPerTickLot({ quoteScale: r.quote_scale, priceDecimals: r.price_decimals, qtyDecimals: r.qty_decimals });
    return { currencyId: r.legal_id, units: notionalToQuoteUnits(BigInt(r.notional), perTickLot) };
  }
  const perLot = baseUnitsPerLot({ baseScale: r.base_scale, qtyDecimals: r.qty_decimals });
  return { currencyId: r.currency_id, units: lotsToBaseUnits(BigInt(r.qty), perLot) };
}

const COLUMNS = `o.side, p.currency_id, p.legal_id, p.price_decimals, p.qty_decimals, b.scale AS base_scale, q.scale AS quote_scale`;
const JOINS = `spot_orders o JOIN pairs p ON p.id = o.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id`;

/** What one user's open spot orders and open conditional orders hold, per currency (the spot screen's "In orders"). */
export async function spotOrdersHeld(db: D1Database, userId: number): Promise<Map<number, bigint>> {
  const out = new Map<number, bigint>();
  const holds = await Promise.all([spotOrderHolds.forUser!(db, userId), spotConditionalHolds.forUser!(db, userId)]);
  for (const h of holds.flat()) out.set(h.currencyId, (out.get(h.currencyId) ?? 0n) + h.units);
  return out;
}

export const spotOrderHolds: HoldSource = {
  name: "spot_orders",
  async load(db) {
    const { results } = await db
      .prepare(
        `SELECT o.user_id, ${COLUMNS}, CAST(SUM(o.price * (o.qty - o.filled)) AS TEXT) AS notional, CAST(SUM(o.qty - o.filled) AS TEXT) AS qty
           FROM ${JOINS} WHERE o.status IN (0, 1) GROUP BY o.user_id, o.side, o.pair_id`,
      )
      .all<OrderRest & { user_id: number }>();
    return results.map((r): Hold => ({ userId: r.user_id, account: "change", ...restHold(r) }));
  },
  async forUser(db, userId) {
    return (await openOrdersOf(db, userId)).map((o) => o.hold);
  },
  /**
   * At the cut-over (`ACCOUNTS=objects`): a conditional order's child (ids from 2^52) and an OCO's
   * limit leg spend their conditional order's hold `spot_cond:{id}` in objects mode
   * (durable/pair/desks/spot.ts `holdOf`), so their frozen funds are opened under that name.
   */
  async openingHolds(db, userId) {
    const [orders, ocos] = await Promise.all([
      openOrdersOf(db, userId),
      db.prepare("SELECT id FROM spot_conditional_orders WHERE user_id = ? AND type = 'oco'").bind(userId).all<{ id: number }>(),
    ]);
    const legs = new Set(ocos.results.map((r) => r.id));
    return orders.map(({ hold: h, pairId }) => {
      // Owned by its pair, as a placement on the objects names it: a cancel asks that pair.
      const owned = { ...h, owner: `pair:${pairId}` };
      const id = h.ref.id ?? 0;
      if (id >= CHILD_ID_BASE) return { ...owned, holdKind: "spot_cond", ref: { ...h.ref, id: id - CHILD_ID_BASE } };
      return legs.has(id) ? { ...owned, holdKind: "spot_cond" } : owned;
    });
  },
};

/** One user's open orders, each with what it still holds and its pair. */
async function openOrdersOf(db: D1Database, userId: number): Promise<{ hold: UserHold; pairId: number }[]> {
  const { results } = await db
    .prepare(
      `SELECT o.id, o.pair_id, ${COLUMNS}, b.name AS base, q.name AS quote, CAST(o.price * (o.qty - o.filled) AS TEXT) AS notional, CAST(o.qty - o.filled AS TEXT) AS qty
         FROM ${JOINS} WHERE o.user_id = ? AND o.status IN (0, 1) ORDER BY o.id`,
    )
    .bind(userId)
    .all<OrderRest & { id: number; pair_id: number; base: string; quote: string }>();
  return results.map((r) => ({ pairId: r.pair_id, hold: { account: "change", ...restHold(r), purpose: "spot_order", ref: { type: "spot_order", id: r.id }, label: `${r.base}/${r.quote}` } }));
}
