/**
 * The invitees' fees of seconds contracts, leveraged positions and conversions with balances in the
 * account objects (issue #28, `ACCOUNTS=objects`; docs/architecture/account-objects.md "Launches,
 * adjustments and fee rebates in objects mode (session 15)"). D1's ledger books none of them in
 * objects mode (the fees go to the fee shards as legs), so the rebate settlement's fees step
 * (./settle.ts) reads what the fee shards were paid and the products' own records instead:
 * - **lever**: every movement a fee shard drained into `system_movements` under a position's key
 *   (`lever:{id}:open:…`: the open fee, taken when the position opens; `lever:{id}:close:…`: the
 *   close fee, with the open fee of a position opened before the open took it; `lever:{id}:fee:{day}:…`:
 *   an overnight fee), attributed through the position's row to its user, at the time the shard
 *   applied it;
 * - **seconds**: the fee of every contract settled in the window (`micro_orders.fee`, status 3,
 *   `settled_at`): the fee shards' legs carry no payer (the acceptance's, or a settled chunk's for a
 *   contract accepted before the acceptance took the fee), and a refused contract has no row;
 * - **conversion**: the fee of every conversion recorded in the window (`conversions.fee`, USDT).
 * Each fee falls in exactly one hour's window of its timestamp and each window's step commits once
 * (`invite_run_steps`), so a fee counts once however often a step is retried. Spot's fees are read
 * from `spot_trades` in both modes; the D1 ledger's query still runs (it finds what was booked there
 * before the cut-over).
 *
 * Since migration 0055 only a run made before it (`invite_runs.fee_seq` NULL) reads these by hour;
 * every newer run reads the same sources' rows as they landed in D1 (./fee-rows.ts).
 */

/** The statements that add the window's fees of those products to `invite_fees` (`upsert`: the step's ON CONFLICT clause). */
export function objectFeeStatements(db: D1Database, day: string, from: number, to: number, usdtId: number, upsert: string): D1PreparedStatement[] {
  return [
    db
      .prepare(
        `INSERT INTO invite_fees (day, user_id, product, currency_id, fee)
         SELECT ?1, p.user_id, 'lever', m.currency_id, SUM(m.d_available)
         FROM system_movements m
         JOIN lever_positions p ON p.id = CAST(substr(m.ref, 7, instr(substr(m.ref, 7), ':') - 1) AS INTEGER)
         JOIN users x ON x.id = p.user_id AND x.parent_id IS NOT NULL
         WHERE m.user_id = 0 AND m.created_at >= ?2 AND m.created_at < ?3 AND substr(m.ref, 1, 6) = 'lever:' AND m.d_available > 0
         GROUP BY p.user_id, m.currency_id ${upsert}`,
      )
      .bind(day, from, to),
    db
      .prepare(
        `INSERT INTO invite_fees (day, user_id, product, currency_id, fee)
         SELECT ?1, o.user_id, 'seconds', o.currency_id, SUM(o.fee)
         FROM micro_orders o JOIN users x ON x.id = o.user_id AND x.parent_id IS NOT NULL
         WHERE o.status = 3 AND o.settled_at >= ?2 AND o.settled_at < ?3 AND o.fee > 0
         GROUP BY o.user_id, o.currency_id ${upsert}`,
      )
      .bind(day, from, to),
    db
      .prepare(
        `INSERT INTO invite_fees (day, user_id, product, currency_id, fee)
         SELECT ?1, v.user_id, 'conversion', ?4, SUM(v.fee)
         FROM conversions v JOIN users x ON x.id = v.user_id AND x.parent_id IS NOT NULL
         WHERE v.created_at >= ?2 AND v.created_at < ?3 AND v.fee > 0
         GROUP BY v.user_id ${upsert}`,
      )
      .bind(day, from, to, usdtId),
  ];
}
