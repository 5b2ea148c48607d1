/**
 * Rebates of fees whose rows reach D1 after the run of their day (ACCOUNTS=objects: the read model's
 * drains bring a settled contract's row, a conversion's row and a fee shard's movements about 1 s
 * later, and much later while D1 fails; migrations/0055, worker/domain/invite/fee-rows.ts). The run
 * counts fee rows in the order D1 received them: a row that lands after today's early run is paid by
 * tomorrow's run, once, out of the fee shards; settling either day again pays nothing twice.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_USERS, systemAddress, systemStub } from "../../worker/lib/accounts.ts";
import { addDays, beijingDay, dayEnd } from "../../worker/domain/invite/days.ts";
import { settleDay } from "../../worker/domain/invite/settle.ts";
import { seedSpotPair, units, type TestUser } from "../api/helpers.ts";
import { makeOperator } from "../api/wallet-fixtures.ts";
import { verifiedInvite } from "../api/invite-fixtures.ts";
import { PAIR, USDT, objectBalances } from "./fixtures.ts";

let op: TestUser;
beforeAll(async () => {
  await seedSpotPair();
  op = await makeOperator();
});

/** A conversion's row as the drain writes it: `fee` USDT paid by the user at `at`. */
async function conversionLands(userId: number, fee: string, at: number) {
  await env.DB.prepare(
    "INSERT INTO conversions (user_id, from_currency, to_currency, money, money2, price, rate, fee, fee_percent, usdt_value, movement_key, created_at) VALUES (?, 3, 1, 100, 1, '1', '1', ?, '1', 100, ?, ?)",
  )
    .bind(userId, String(units(fee)), `conversion:late:${userId}:${at}`, at)
    .run();
}

const paidFees = async (day: string, userId: number) =>
  (await env.DB.prepare("SELECT product, CAST(fee AS TEXT) AS fee FROM invite_fees WHERE day = ? AND user_id = ? ORDER BY product").bind(day, userId).all<{ product: string; fee: string }>()).results;

describe("rebates of fees that reach D1 after their day's run, on the account objects", () => {
  it("pays a settled contract's and a conversion's fee landing after today's early run in tomorrow's run, once", async () => {
    const { inviter, invitee } = await verifiedInvite(op, "OBJ-LATE");
    // The fee shard holds the fees (the products' fee legs brought them).
    expect(
      await systemStub(env, SYSTEM_USERS.fees, 3).systemReceive(SYSTEM_USERS.fees, 3, [
        { key: `test-late-fees:3`, to: systemAddress(SYSTEM_USERS.fees, 3), ops: [{ t: "credit", kind: "change", cur: String(USDT), amt: Number(units("10")) }] },
      ]),
    ).toEqual(["applied"]);

    // Before today's early run: a conversion (4 USDT of fee) and an accepted contract (2 USDT of fee, settled later).
    const now = Date.now();
    await conversionLands(invitee.id, "4", now - 1000);
    const contract = 8_200_001;
    await env.DB.prepare(
      "INSERT INTO micro_orders (id, user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps, status, created_at, end_at) VALUES (?, ?, ?, ?, 1, 100, ?, 0, 30, 8000, 1, ?, ?)",
    )
      .bind(contract, invitee.id, PAIR, USDT, String(units("2")), now - 30_000, now - 500)
      .run();

    const today = beijingDay(now);
    const first = await settleDay(env, today, now, 600, true);
    expect(first).toMatchObject({ phase: "done", inviters_paid: 1, total_paid: Number(units("0.8")) });
    expect(await paidFees(today, invitee.id)).toEqual([{ product: "conversion", fee: String(units("4")) }]);
    const cut = first.window_to!;

    // After the run, the drains bring what happened before its cut: the contract settled 0.3 s before
    // (its row's status 3), a conversion 0.4 s before (0.118 USDT of fee).
    await env.DB.prepare("UPDATE micro_orders SET status = 3, end_tick_id = 1, end_price = 1, result = -100, settled_at = ? WHERE id = ?").bind(cut - 300, contract).run();
    await conversionLands(invitee.id, "0.118", cut - 400);

    // Today again: already settled, nothing more.
    const again = await settleDay(env, today, Date.now(), 600, true);
    expect(again).toMatchObject({ phase: "done", total_paid: first.total_paid });
    expect(await objectBalances(inviter.id)).toEqual([[first.paid_to, USDT, units("0.8"), 0n]]);

    // Tomorrow's run counts both late fees, once, however often it runs.
    const tomorrow = addDays(today, 1);
    const next = await settleDay(env, tomorrow, dayEnd(tomorrow) + 8 * 3_600_000);
    expect(next).toMatchObject({ phase: "done", inviters_paid: 1, fees_counted: Number(units("2.118")) });
    expect(await paidFees(tomorrow, invitee.id)).toEqual([
      { product: "conversion", fee: String(units("0.118")) },
      { product: "seconds", fee: String(units("2")) },
    ]);
    await settleDay(env, tomorrow, dayEnd(tomorrow) + 9 * 3_600_000);
    // 20 % of 4, then 20 % of 2 and of 0.118 (each line rounded down).
    const rebates = units("0.8") + units("0.4") + units("0.0236");
    expect(await objectBalances(inviter.id)).toEqual([[first.paid_to, USDT, rebates, 0n]]);
  });
});
