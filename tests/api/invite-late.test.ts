/**
 * A fee whose row reaches D1 after the rebate run of its day (D1 mode: a spot trade's row comes
 * through the pair's drain; migrations/0055, worker/domain/invite/fee-rows.ts): the run counts fee
 * rows in the order D1 received them, so the next run pays that fee's rebate, once, and running the
 * same day again pays nothing twice.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runScheduled } from "../../worker/scheduled.ts";
import { addDays, beijingDay, dayEnd } from "../../worker/domain/invite/days.ts";
import { settleDay } from "../../worker/domain/invite/settle.ts";
import { ratesFor } from "../../worker/domain/invite/settings.ts";
import { movementStatements, SYSTEM } from "../../worker/lib/ledger.ts";
import { PRODUCTS } from "../../schemas/products.ts";
import { api, balance, credit, d1Only, seedSpotPair, type TestUser, units } from "./helpers.ts";
import { USDT, clearBook } from "./spot-fixtures.ts";
import { expectBooksBalanced, makeOperator } from "./wallet-fixtures.ts";
import { buyAt30000, feesUsdt, marketAt30000, share, verifiedInvite } from "./invite-fixtures.ts";

/** The row the pair's drain writes for a trade in which the invitee sold to `op` at `at`, paying `fee` USDT. */
async function tradeRowLands(op: TestUser, invitee: TestUser, fee: bigint, at: number, tradeId = 7700001) {
  const pair = await env.DB.prepare("SELECT id FROM pairs WHERE legal_id = ? ORDER BY id LIMIT 1").bind(USDT).first<{ id: number }>();
  await env.DB.prepare(
    `INSERT INTO spot_trades (pair_id, trade_id, price, qty, taker_side, buyer_id, seller_id, buy_order_id, sell_order_id, buyer_fee, seller_fee, created_at)
     VALUES (?, ?, 3000000, 1000000, 'buy', ?, ?, 1, 2, 0, ?, ?)`,
  )
    .bind(pair!.id, tradeId, op.id, invitee.id, String(fee), at)
    .run();
}

describe("a fee row that reaches D1 after its day's run", () => {
  it("is paid by the next run exactly once, and running either day again pays nothing twice", async () => {
    await seedSpotPair();
    await clearBook();
    await marketAt30000();
    const op = await makeOperator();
    const { inviter, invitee } = await verifiedInvite(op, "LATE-0001");
    const today = beijingDay(Date.now());
    await buyAt30000(invitee, "0.1");
    const paidSoFar = await feesUsdt(invitee.id);
    expect(paidSoFar).toBeGreaterThan(0n);
    const first = await api("/admin/invite/run", { token: op.token, body: { day: today, reason: "close today early" } });
    expect(first.body.message).toMatchObject({ day: today, status: "done", inviters_paid: 1 });
    const cut = (await env.DB.prepare("SELECT window_to FROM invite_runs WHERE day = ?").bind(today).first<{ window_to: number }>())!.window_to;

    // A sale of 0.4 s before the cut reaches D1 only now (as observed in objects mode: 0.118 USDT of fee).
    const late = units("0.118");
    await tradeRowLands(op, invitee, late, cut - 400);

    // Today again: already settled, nothing more.
    const again = await api("/admin/invite/run", { token: op.token, body: { day: today, reason: "again" } });
    expect(units(again.body.message.total_paid_usdt)).toBe(share(paidSoFar, 2000n));
    expect(await balance(inviter.id, USDT, "lever")).toEqual([share(paidSoFar, 2000n), 0n]);

    // Tomorrow's run counts the late fee, once, however often it runs.
    const tomorrow = addDays(today, 1);
    await runScheduled("0 0 * * *", env, dayEnd(tomorrow) + 8 * 3_600_000);
    await runScheduled("0 0 * * *", env, dayEnd(tomorrow) + 8 * 3_600_000);
    await runScheduled("* * * * *", env, dayEnd(tomorrow) + 8 * 3_600_000 + 60_000);
    await settleDay(env, tomorrow, dayEnd(tomorrow) + 9 * 3_600_000);
    const runs = (await api("/admin/invite/runs", { token: op.token })).body.message.data;
    const next = runs.find((r: { day: string }) => r.day === tomorrow);
    expect(next).toMatchObject({ status: "done", inviters_paid: 1, fees_counted_usdt: "0.11800000" });
    expect(units(next.total_paid_usdt)).toBe(share(late, 2000n));
    expect(await balance(inviter.id, USDT, "lever")).toEqual([share(paidSoFar, 2000n) + share(late, 2000n), 0n]);
    const lines = (await api("/invite/rebates", { token: inviter.token })).body.message.data;
    expect(lines.map((l: { day: string; amount: string }) => [l.day, units(l.amount)])).toEqual([
      [tomorrow, share(late, 2000n)],
      [today, share(paidSoFar, 2000n)],
    ]);
    await expectBooksBalanced();
  }, 120_000);

  // D1's ledger rows of each fee kind (tests/objects/invite-late-objects.test.ts takes in the fee shards' rows).
  it.skipIf(d1Only("fee rows planted in D1's ledger"))("takes in the fee movement of every product's fee kind as it lands (the ledger's fee rows: seconds, leverage, conversion)", async () => {
    const op = await makeOperator();
    const { invitee } = await verifiedInvite(op, "LATE-0002");
    const kinds = PRODUCTS.filter((p) => p.id !== "spot").flatMap((p) => p.feeKinds);
    expect(kinds.length).toBeGreaterThan(0);
    for (const kind of kinds)
      await env.DB.batch(
        movementStatements(env.DB, `late-kind:${kind}:${invitee.id}`, kind, [
          { userId: invitee.id, currencyId: USDT, account: "change", dAvailable: -1n, dFrozen: 0n },
          { userId: SYSTEM.fees, currencyId: USDT, account: "change", dAvailable: 1n, dFrozen: 0n },
        ]),
      );
    const { results } = await env.DB.prepare("SELECT kind FROM invite_fee_rows WHERE source = 'ledger' AND ref LIKE ? ORDER BY seq").bind(`late-kind:%:${invitee.id}`).all<{ kind: string }>();
    expect(results.map((r) => r.kind)).toEqual(kinds);
  });

  it("does not count again the fees of a run made before the change, which counted its window's hours", async () => {
    const op = await makeOperator();
    const { inviter, invitee } = await verifiedInvite(op, "LATE-0003");
    // The fee account holds the USDT the rebate is paid from.
    await credit(`late-fees-held:${invitee.id}`, SYSTEM.fees, USDT, units("1"));
    const day = addDays(beijingDay(Date.now()), -3);
    const fee = units("0.5");
    await tradeRowLands(op, invitee, fee, dayEnd(day) - 3 * 3_600_000, 7700002);
    // The day's run as made before migration 0055 (no fee_seq: it counts the whole day by hours).
    const rates = await ratesFor(env.DB, day);
    await env.DB.prepare(
      "INSERT INTO invite_runs (day, phase, paid_to, l1_rate, l2_rate, l3_rate, agents, started_at) VALUES (?, 'fees', 'lever', ?, ?, ?, ?, ?)",
    )
      .bind(day, rates.l1, rates.l2, rates.l3, JSON.stringify(rates.agents), Date.now())
      .run();
    expect(await settleDay(env, day, Date.now())).toMatchObject({ phase: "done", inviters_paid: 1, fees_counted: Number(fee) });
    const next = await settleDay(env, addDays(day, 1), Date.now());
    expect(next).toMatchObject({ phase: "done", inviters_paid: 0, fees_counted: 0 });
    expect(await balance(inviter.id, USDT, "lever")).toEqual([share(fee, 2000n), 0n]);
  });
});
