/**
 * Open spot orders as a reconciliation hold source: what each open order still has frozen.
 * A buy keeps limit price × unfilled quantity of quote (price improvement is released per fill);
 * a sell keeps its unfilled quantity of base. Both are converted to minimal units per pair.
 */
import { baseUnitsPerLot, lotsToBaseUnits, notionalToQuoteUnits, quoteUnitsPerTickLot } from "../../../durable/engine/units.ts";
import type { Hold, HoldSource } from "../ledger/holds.ts";

export const spotOrderHolds: HoldSource = {
  name: "spot_orders",
  async load(db) {
    const { results } = await db
      .prepare(
        `SELECT o.user_id, o.side, p.currency_id, p.legal_id, p.price_decimals, p.qty_decimals, b.scale AS base_scale, q.scale AS quote_scale,
                CAST(SUM(o.price * (o.qty - o.filled)) AS TEXT) AS notional, CAST(SUM(o.qty - o.filled) AS TEXT) AS qty
           FROM spot_orders o JOIN pairs p ON p.id = o.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id
          WHERE o.status IN (0, 1)
          GROUP BY o.user_id, o.side, o.pair_id`,
      )
      .all<{ user_id: number; side: string; currency_id: number; legal_id: number; price_decimals: number; qty_decimals: number; base_scale: number; quote_scale: number; notional: string; qty: string }>();
    const holds: Hold[] = [];
    for (const r of results) {
      if (r.side === "buy") {
        const perTickLot = quoteUnitsPerTickLot({ quoteScale: r.quote_scale, priceDecimals: r.price_decimals, qtyDecimals: r.qty_decimals });
        holds.push({ userId: r.user_id, currencyId: r.legal_id, account: "change", units: notionalToQuoteUnits(BigInt(r.notional), perTickLot) });
      } else {
        const perLot = baseUnitsPerLot({ baseScale: r.base_scale, qtyDecimals: r.qty_decimals });
        holds.push({ userId: r.user_id, currencyId: r.currency_id, account: "change", units: lotsToBaseUnits(BigInt(r.qty), perLot) });
      }
    }
    return holds;
  },
};
