/**
 * A conversion with balances in the account objects (issue #28, `ACCOUNTS=objects`;
 * docs/architecture/account-objects.md "Deposits, withdrawals and conversion in objects mode").
 * The price, the fee and the bounds are decided exactly as on the D1 path (./conversions.ts,
 * ./quote.ts); only where the money moves differs:
 *
 * 1. the user's spot balance is read from their object: not enough, `insufficient_balance`, nothing
 *    touched anywhere;
 * 2. the house's payout (`treasuryOut` of the target currency) is held in treasury shard
 *    `system:-3:{user mod 8}` as `conversion:{…}` (the conversion's key): a shard that cannot pay it
 *    refuses (`treasury_insufficient`, as D1's treasury guard), nothing moved;
 * 3. one keyed operation on the user's object (`accountConvert`): the source out of available, the
 *    target credited; if the balance went meanwhile, the house's hold goes back (`{key}:refused`);
 * 4. the record (D1's `conversions` row) and the house's legs in one D1 batch (`record_legs`,
 *    worker/lib/record-legs.ts), delivered at once: the treasury shard spends its hold and takes
 *    what the user paid (less the fee), keyed by the conversion; the fee shard `system:0:{user mod 8}`
 *    takes the fee in USDT, `{key}:fee`.
 * A quote's key is the quote's, so it executes at most once: a second execution finds the house's
 * hold resolved (or the user's key seen) and answers `quote_expired`, after completing the record
 * and the legs of an execution that died half way (every write is keyed, so nothing lands twice).
 */
import type { Leg } from "../../../durable/money/index.ts";
import { accountStub, coreUnits, shardOf, SYSTEM_USERS, systemAddress, systemStub } from "../../lib/accounts.ts";
import { ApiError } from "../../lib/errors.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import { reserveOnTreasury } from "../../lib/treasury-refill.ts";
import { balanceIn } from "../wallet/object-reads.ts";

const TREASURY = SYSTEM_USERS.treasury;

export interface ObjectConversion {
  /** `conversion:q:{quote}` or `conversion:{user}:{uuid}`: the user's operation, the house's hold and legs */
  key: string;
  quoted: boolean;
  /** "coin_to_usdt" or "usdt_to_coin" (./quote.ts conversionDirection) */
  direction: string;
  fromId: number;
  toId: number;
  usdtId: number;
  /** paid by the user, source currency */
  money: bigint;
  /** credited to the user, target currency */
  received: bigint;
  /** paid by the house, target currency (received + the fee when the target is USDT) */
  treasuryOut: bigint;
  /** USDT to the fee account */
  fee: bigint;
}

/** The house's legs: the treasury shard's payout spent and what it takes in, the fee to a fee shard. */
export function houseLegs(userId: number, c: ObjectConversion): Leg[] {
  const shard = shardOf(userId);
  const houseIn = c.direction === "coin_to_usdt" ? c.money : c.money - c.fee;
  const legs: Leg[] = [
    {
      key: c.key,
      to: systemAddress(TREASURY, shard),
      ops: [
        { t: "spend", hold: c.key, cur: String(c.toId), amt: coreUnits(c.treasuryOut) },
        { t: "credit", kind: "change", cur: String(c.fromId), amt: coreUnits(houseIn) },
      ],
    },
  ];
  if (c.fee > 0n) legs.push({ key: `${c.key}:fee`, to: systemAddress(SYSTEM_USERS.fees, shard), ops: [{ t: "credit", kind: "change", cur: String(c.usdtId), amt: coreUnits(c.fee) }] });
  return legs;
}

/** Runs a priced conversion on the objects (see above); `record` is the `conversions` insert (ignored when already there). */
export async function convertOnObjects(env: Pick<Env, "DB" | "USER">, userId: number, c: ObjectConversion, record: D1PreparedStatement): Promise<void> {
  const db = env.DB;
  if (c.quoted && (await db.prepare("SELECT 1 AS x FROM conversions WHERE movement_key = ?").bind(c.key).first())) throw new ApiError("quote_expired", 409);
  const user = accountStub(env, userId);
  if (balanceIn(await user.accountBalances(userId), "change", c.fromId).available < c.money) throw new ApiError("insufficient_balance", 409);
  const shard = shardOf(userId);
  const treasury = systemStub(env, TREASURY, shard);
  const forId = c.key.slice("conversion:".length);
  const held = await reserveOnTreasury(env, shard, { forKind: "conversion", forId, account: "change", currencyId: c.toId, amount: c.treasuryOut });
  if (held.result === "insufficient") throw new ApiError("treasury_insufficient", 409);
  // A hold already resolved: this conversion was executed (or refused) before.
  if (held.result === "exists" && !held.hold.open) throw new ApiError("quote_expired", 409);
  const moved = await user.accountConvert(userId, {
    key: c.key,
    from: { account: "change", currencyId: c.fromId, amount: c.money },
    to: { account: "change", currencyId: c.toId, amount: c.received },
  });
  // The house's orphan sweep made this key final meanwhile (this Worker came back past the grace): nothing moved.
  if (moved === "void") throw new ApiError(c.quoted ? "quote_expired" : "try_again", c.quoted ? 409 : 503);
  if (moved === "insufficient") {
    await treasury.systemApply(TREASURY, shard, [{ key: `${c.key}:refused`, ops: [{ t: "release", hold: c.key, amount: "rest" }] }]);
    throw new ApiError("insufficient_balance", 409);
  }
  // Moved now, or seen (an execution that died after the user's operation): the record and the house's legs, once each.
  const legs = houseLegs(userId, c);
  await db.batch([record, ...recordLegsStatements(db, c.key, legs, Date.now())]);
  await deliverRecordLegs(env, legs);
  if (moved === "seen") throw new ApiError("quote_expired", 409);
}
