/**
 * The house's conversion holds whose Worker never came back (objects mode, ./objects.ts): a
 * conversion holds the treasury's payout first (hold `conversion:q:{quote}` in a treasury shard),
 * then runs the user's operation, then writes its record and the house's legs. A Worker that dies
 * in between leaves the hold open. After the grace, for each such hold, the user's object makes the
 * conversion's key final (`accountVoidConvert`): it never ran (`voided`: a late attempt under it
 * moves nothing) and the hold goes back, `{key}:orphan`; or it ran (`ran`) and its record and the
 * house's legs are written from its terms (the quote row, written before any money moved) and
 * delivered, each once by its key. Does nothing with the switch off.
 */
import { USDT_ID } from "../../../schemas/wallet.ts";
import { accountsOnObjects, accountStub, SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../lib/accounts.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import { conversionRecord, type QuoteRow } from "./conversions.ts";
import { houseLegs, type ObjectConversion } from "./objects.ts";
import { conversionDirection } from "./quote.ts";

export const CONVERSION_GRACE_MS = 60_000;
const TREASURY = SYSTEM_USERS.treasury;

type TermsRow = QuoteRow & { user_id: number };

export async function reconcileConversionHolds(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, now = Date.now(), graceMs = CONVERSION_GRACE_MS) {
  const out = { checked: 0, voided: 0, completed: 0 };
  if (!accountsOnObjects(env)) return out;
  for (let k = 0; k < SYSTEM_SHARDS; k++) {
    const treasury = systemStub(env, TREASURY, k);
    for (const h of await treasury.systemOpenHolds(TREASURY, k, "conversion", now - graceMs)) {
      const quote = /^q:([0-9a-f]{32})$/.exec(h.forId)?.[1];
      const row = quote ? await env.DB.prepare("SELECT * FROM conversion_quotes WHERE id = ?").bind(quote).first<TermsRow>() : null;
      const direction = row ? conversionDirection(row.from_currency, row.to_currency) : null;
      if (!row || !direction) {
        console.error(JSON.stringify({ level: "error", event: "conversion_hold_unknown", shard: k, hold: h.hold }));
        continue;
      }
      out.checked += 1;
      const key = h.hold;
      if ((await accountStub(env, row.user_id).accountVoidConvert(row.user_id, key)) === "voided") {
        await treasury.systemApply(TREASURY, k, [{ key: `${key}:orphan`, ops: [{ t: "release", hold: key, amount: "rest" }] }]);
        out.voided += 1;
        continue;
      }
      const c: ObjectConversion = {
        key,
        quoted: true,
        direction,
        fromId: row.from_currency,
        toId: row.to_currency,
        usdtId: USDT_ID,
        money: BigInt(row.money),
        received: BigInt(row.money2),
        treasuryOut: BigInt(row.treasury_out),
        fee: BigInt(row.fee),
      };
      const record = conversionRecord(
        env.DB,
        { userId: row.user_id, from: c.fromId, to: c.toId, money: c.money, money2: c.received, price: row.price, rate: row.rate, fee: c.fee, feePercent: row.fee_percent, usdtValue: BigInt(row.usdt_value), key, now },
        true,
      );
      const legs = houseLegs(row.user_id, c);
      await env.DB.batch([record, ...recordLegsStatements(env.DB, key, legs, now)]);
      await deliverRecordLegs(env, legs);
      out.completed += 1;
    }
  }
  return out;
}
