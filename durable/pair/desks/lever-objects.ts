/**
 * Leveraged positions with balances in the account objects (issue #28, `ACCOUNTS=objects`).
 *
 * Before the desk sees a position, the Worker (worker/domain/lever/objects.ts) made two holds of
 * the same name `lever_margin:{id}`: the house's cover (the most the position can win) in treasury
 * shard `shardOf(id)`, and the margin plus the open fee in the user's `lever` account. The desk's
 * money events become legs, committed in the event's own transaction with the desk's state and
 * delivered by the pair's outbox of legs (durable/pair/legs.ts), each applied once by its key:
 *
 * - the open `lever:{id}:open`: the user's hold pays the open fee to fee shard `shardOf(id)`, as
 *   D1's `lever_open` books it; in the acceptance's transaction for a position opened at once, in
 *   the sweep's that fills it for a pending limit open (its fee stays in the hold until then, so a
 *   revoke gives it back with the margin: a fee shard cannot give a fee back, a leg never debits);
 *   the position records it (`fee_paid`);
 * - an overnight fee: `lever:{id}:fee:{day}`: the user's hold pays the fee to fee shard `shardOf(id)`;
 * - a close (by its owner, a stop, the cap or a liquidation: one per position, ever) `lever:{id}:close`:
 *   the user's hold pays any loss and gives back the rest, a win beyond the
 *   collateral is credited; the treasury shard's cover pays what the house owes (the P/L, capped at
 *   the cover) and is released, or takes the house's gain; the fee shard gets the close fee. A
 *   position opened before the open took its fee (`fee_paid` 0) pays the open fee here too, as
 *   before: the user's hold spends it and the fee shard gets it with the close fee;
 * - a revoke (a pending open cancelled) `lever:{id}:revoke`: both holds back whole (the margin and
 *   the open fee, which a pending open has not paid yet).
 *
 * A pending limit open carried over the cut-over from D1's path (`fee_paid` 2, marked by the
 * cut-over: durable/pair/object.ts `feesPaidOnD1`): D1 took its open fee at the request, so the
 * user's hold is the margin alone, and the cut-over opened the fee as a hold `lever_fee:{id}` in fee
 * shard `shardOf(id)` (the fee account's money D1 would give back at a revoke). Its revoke spends
 * that hold to the user (the fee back, as D1 refunds it); its fill, or the close of a position that
 * filled before the objects ran, releases it (`lever_fee:{id}:earned`: the fee is the fee shard's).
 * Each event balances per currency (the pair's money core checks it at commit).
 */
import type { Leg, Op } from "../../money/index.ts";
import type { CloseReason } from "../../engine/margin.ts";
import { shardOf, systemAddress, SYSTEM_USERS, userAddress } from "../../account/address.ts";

export const LEVER_HOLD = "lever_margin";
export const leverHold = (positionId: number) => `${LEVER_HOLD}:${positionId}`;
/** The user's account a position's margin lives in (D1's lever account). */
export const LEVER_USER_KIND = "lever";
/** The house's account in the treasury and fee shards (D1's HOUSE_ACCOUNT). */
export const LEVER_HOUSE_KIND = "change";
/** The treasury shard of a position's cover and the fee shard of its fees. */
export const leverShard = (positionId: number) => shardOf(positionId);
/** The fee shard's hold of a carried-over pending limit's open fee (`fee_paid` 2), opened by the cut-over. */
export const LEVER_FEE_HOLD = "lever_fee";
export const leverFeeHold = (positionId: number) => `${LEVER_FEE_HOLD}:${positionId}`;

const num = (n: bigint, what: string): number => {
  if (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${what} out of range: ${n}`);
  return Number(n);
};

function legs(key: string, parts: { to: string; ops: Op[] }[]): Leg[] {
  return parts.flatMap(({ to, ops }) => {
    const kept = ops.filter((op) => op.amt > 0);
    return kept.length > 0 ? [{ key: `${key}:${to}`, to, ops: kept }] : [];
  });
}

export interface LeverMoney {
  positionId: number;
  userId: number;
  currencyId: number;
  margin: bigint;
  /** the open fee (held with the margin until the open's legs, `leverOpenLegs`, or for a position from before them, until the close) */
  openFee: bigint;
  /** the open fee left the hold for the fee shard (`leverOpenLegs`), or D1 took it; false: the close or the revoke takes it */
  feePaid: boolean;
  /** `fee_paid` 2: D1 took the open fee of this pending limit, and its fee shard holds it (`leverFeeHold`) until the fill, close or revoke */
  feeInFeeShard: boolean;
  /** the house's cover */
  hold: bigint;
  /** overnight fees already paid from the hold */
  overnight: bigint;
}

/** The event key of a position's close (whatever the reason: a position closes once). */
export const leverCloseKey = (positionId: number) => `lever:${positionId}:close`;
export const leverNightKey = (positionId: number, day: number) => `lever:${positionId}:fee:${day}`;
export const leverRevokeKey = (positionId: number) => `lever:${positionId}:revoke`;
export const leverOpenKey = (positionId: number) => `lever:${positionId}:open`;
/** Not under `lever:`: the release moves no fee (the rebates and the transparency page count `lever:` movements of the fee shards). */
export const leverFeeEarnedKey = (positionId: number) => `${leverFeeHold(positionId)}:earned`;

/** The open fee, from the user's hold to fee shard `shardOf(id)` (D1's `lever_open`). */
export function leverOpenLegs(p: { positionId: number; userId: number; currencyId: number; openFee: bigint }): Leg[] {
  const cur = String(p.currencyId);
  return legs(leverOpenKey(p.positionId), [
    { to: userAddress(p.userId), ops: [{ t: "spend", hold: leverHold(p.positionId), cur, amt: num(p.openFee, "open fee") }] },
    { to: systemAddress(SYSTEM_USERS.fees, leverShard(p.positionId)), ops: [{ t: "credit", kind: LEVER_HOUSE_KIND, cur, amt: num(p.openFee, "open fee") }] },
  ]);
}

/** A carried-over pending limit filled (or closed, when it filled before the objects ran): its fee shard's hold of the open fee released, the fee earned. */
export function leverFeeEarnedLegs(p: { positionId: number; currencyId: number; openFee: bigint }): Leg[] {
  return legs(leverFeeEarnedKey(p.positionId), [
    { to: systemAddress(SYSTEM_USERS.fees, leverShard(p.positionId)), ops: [{ t: "release", hold: leverFeeHold(p.positionId), cur: String(p.currencyId), amt: num(p.openFee, "open fee") }] },
  ]);
}

/**
 * A close: `payout` goes back to the user's available balance, `closeFee` to the fee shard
 * (durable/engine/margin.ts closeAt). The user's leg ends with the close's reason
 * (`lever:{id}:close:user:{uid}:{reason}`): their statement names it as D1 does (`lever_loss`, …).
 */
export function leverCloseLegs(p: LeverMoney, payout: bigint, closeFee: bigint, reason?: CloseReason): Leg[] {
  const cur = String(p.currencyId);
  const hold = leverHold(p.positionId);
  const col = p.margin - p.overnight;
  // What the house pays beyond the collateral (the P/L; negative: the house gains).
  const housePays = payout + closeFee - col;
  const shard = leverShard(p.positionId);
  // The open fee this close takes: none when the open's legs took it.
  const openFee = p.feePaid ? 0n : p.openFee;
  return legs(leverCloseKey(p.positionId), [
    {
      to: userAddress(p.userId),
      ops:
        payout <= col
          ? [
              { t: "spend", hold, cur, amt: num(openFee + col - payout, "fee and loss") },
              { t: "release", hold, cur, amt: num(payout, "payout") },
            ]
          : [
              { t: "spend", hold, cur, amt: num(openFee, "open fee") },
              { t: "release", hold, cur, amt: num(col, "collateral") },
              { t: "credit", kind: LEVER_USER_KIND, cur, amt: num(payout - col, "profit") },
            ],
    },
    {
      to: systemAddress(SYSTEM_USERS.treasury, shard),
      ops:
        housePays > 0n
          ? [
              { t: "spend", hold, cur, amt: num(housePays, "house pays") },
              { t: "release", hold, cur, amt: num(p.hold - housePays, "cover back") },
            ]
          : [
              { t: "release", hold, cur, amt: num(p.hold, "cover back") },
              { t: "credit", kind: LEVER_HOUSE_KIND, cur, amt: num(-housePays, "house gains") },
            ],
    },
    { to: systemAddress(SYSTEM_USERS.fees, shard), ops: [{ t: "credit", kind: LEVER_HOUSE_KIND, cur, amt: num(openFee + closeFee, "fees") }] },
  ])
    .map((l) => (reason !== undefined && l.to === userAddress(p.userId) ? { ...l, key: `${l.key}:${reason}` } : l))
    .concat(p.feeInFeeShard ? leverFeeEarnedLegs(p) : []);
}

/** One day's overnight fee, from the user's hold to the fee shard. */
export function leverNightLegs(p: { positionId: number; userId: number; currencyId: number }, day: number, fee: bigint): Leg[] {
  const cur = String(p.currencyId);
  return legs(leverNightKey(p.positionId, day), [
    { to: userAddress(p.userId), ops: [{ t: "spend", hold: leverHold(p.positionId), cur, amt: num(fee, "overnight fee") }] },
    { to: systemAddress(SYSTEM_USERS.fees, leverShard(p.positionId)), ops: [{ t: "credit", kind: LEVER_HOUSE_KIND, cur, amt: num(fee, "overnight fee") }] },
  ]);
}

/**
 * A pending open cancelled by its owner: both holds back whole (its open fee is still in the user's:
 * `leverOpenLegs` runs at the fill). One carried over the cut-over (`feeInFeeShard`): the margin
 * back, and the open fee D1 took at the request from its fee shard's hold to the user, as D1 refunds it.
 */
export function leverRevokeLegs(p: LeverMoney): Leg[] {
  const cur = String(p.currencyId);
  const hold = leverHold(p.positionId);
  const feeBack = p.feeInFeeShard ? p.openFee : 0n;
  return legs(leverRevokeKey(p.positionId), [
    {
      to: userAddress(p.userId),
      ops: [
        { t: "release", hold, cur, amt: num(p.margin + (p.feePaid ? 0n : p.openFee), "margin and fee") },
        { t: "credit", kind: LEVER_USER_KIND, cur, amt: num(feeBack, "open fee back") },
      ],
    },
    { to: systemAddress(SYSTEM_USERS.treasury, leverShard(p.positionId)), ops: [{ t: "release", hold, cur, amt: num(p.hold, "cover") }] },
    { to: systemAddress(SYSTEM_USERS.fees, leverShard(p.positionId)), ops: [{ t: "spend", hold: leverFeeHold(p.positionId), cur, amt: num(feeBack, "open fee back") }] },
  ]);
}

/**
 * A position's D1 row when the pair's drain inserts it (`ACCOUNTS=objects`: the open wrote none):
 * [id, userId, pairId, currencyId, type, lots, multiple, share units, quote price, target price,
 * margin, fee, hold, fee bps, overnight bps, maintenance bps, stop profit, stop loss, created at].
 */
export type ObjectsPositionRow = [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  string,
  number,
  number | null,
  string,
  string,
  string,
  number,
  number,
  number,
  number | null,
  number | null,
  number,
];

/**
 * The drain's insert of positions accepted on the account objects: one statement, each row as the
 * D1 path's open batch writes it, status 0 (the same batch's acceptance update then moves it on). A
 * copy already there is left alone (a re-sent batch).
 */
export function objectsPositionsStatement(db: D1Database, rows: ObjectsPositionRow[]): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO lever_positions (id, user_id, pair_id, currency_id, type, lots, multiple, share_units, quote_price, target_price, margin, fee, hold,
         fee_bps, overnight_bps, maintenance_bps, stop_profit, stop_loss, status, created_at)
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9, value ->> 10,
         value ->> 11, value ->> 12, value ->> 13, value ->> 14, value ->> 15, value ->> 16, value ->> 17, 0, value ->> 18
       FROM json_each(?) WHERE true ORDER BY key ON CONFLICT DO NOTHING`,
    )
    .bind(JSON.stringify(rows));
}

/** The columns of a pair's lever settings an open is priced on (D1's `lever_pairs`), as the pair object compares them. */
export interface LeverTermsColumns {
  pair_id: number;
  share_num: string;
  multiples: string;
  min_lots: number;
  max_lots: number;
  lot_step: number;
  fee_bps: number;
  overnight_bps: number;
  maintenance_bps: number;
  pair_exposure: string;
  max_positions: number;
  status: number;
}

/**
 * The settings an open was priced on, as one string (the same columns `LEVER_TERMS_GUARD` compares
 * in D1's path); "off" for settings that allow no open. The pair object holds the one D1 has.
 */
export function leverTermsKey(r: LeverTermsColumns | null): string {
  if (!r || Number(r.status) !== 1) return "off";
  return JSON.stringify([r.pair_id, r.share_num, r.multiples, r.min_lots, r.max_lots, r.lot_step, r.fee_bps, r.overnight_bps, r.maintenance_bps, r.pair_exposure, r.max_positions].map(String));
}
