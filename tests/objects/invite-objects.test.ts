/**
 * Invite rebates with balances in the account objects (ACCOUNTS=objects; worker/domain/invite/rebates.ts):
 * a day's rebates are paid out of the fee account's shards, which pay only what they hold, as one
 * credit leg per inviter and day (`rebate:{day}:{inviter}`); a day settled again pays nothing more.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_USERS, accountStub, sendLegs, systemAddress, systemStub, userAddress } from "../../worker/lib/accounts.ts";
import { beijingDay, dayEnd } from "../../worker/domain/invite/days.ts";
import { settleDay } from "../../worker/domain/invite/settle.ts";
import { runScheduled } from "../../worker/scheduled.ts";
import { api, makeUser, seedSpotPair, units, type TestUser } from "../api/helpers.ts";
import { makeOperator } from "../api/wallet-fixtures.ts";
import { codeOf, registerWith, verify } from "../api/invite-fixtures.ts";
import { USDT, drainObject, feeTotals, objectBalances, readModel } from "./fixtures.ts";

let op: TestUser;
beforeAll(async () => {
  await seedSpotPair();
  op = await makeOperator();
});

let trades = 0;
/** A spot fee `fee` USDT the user paid as a seller at `at` (the row the pair's drain writes). */
async function paidFee(userId: number, fee: string, at = Date.now()) {
  trades += 1;
  await env.DB.prepare(
    `INSERT INTO spot_trades (pair_id, trade_id, price, qty, taker_side, buyer_id, seller_id, buy_order_id, sell_order_id, buyer_fee, seller_fee, created_at)
     VALUES (1, ?, 3000000, 1000000, 'buy', ?, ?, 1, 2, 0, ?, ?)`,
  )
    .bind(900_000 + trades, op.id, userId, String(units(fee)), at)
    .run();
}

/** Fees the shards received (as the pair's fee legs bring them, into the house account `change`): `amounts[k]` USDT into shard k ("0": none). */
async function feesInShards(tag: string, amounts: string[]) {
  for (const [k, a] of amounts.entries())
    if (a !== "0")
      await systemStub(env, SYSTEM_USERS.fees, k).systemReceive(SYSTEM_USERS.fees, k, [
      { key: `test-fees:${tag}:${k}`, to: systemAddress(SYSTEM_USERS.fees, k), ops: [{ t: "credit", kind: "change", cur: String(USDT), amt: Number(units(a)) }] },
    ]);
}

async function inviterWithInvitee(doc: string) {
  const inviter = await makeUser({ verified: 0 });
  await verify(op, inviter, `${doc}-A`);
  const invitee = await registerWith(await codeOf(inviter));
  await verify(op, invitee, `${doc}-B`);
  return { inviter, invitee };
}

const rebateOf = async (day: string, inviterId: number) =>
  BigInt((await env.DB.prepare("SELECT CAST(COALESCE(SUM(amount), 0) AS TEXT) AS a FROM invite_rebates WHERE day = ? AND inviter_id = ?").bind(day, inviterId).first<{ a: string }>())!.a);

describe("invite rebates on the account objects", () => {
  it("pays each inviter the day's rebate out of the fee shards once, however often the day is settled or its legs are sent", async () => {
    const { inviter, invitee } = await inviterWithInvitee("OBJ-REBATE-1");
    await paidFee(invitee.id, "100");
    // Two shards hold less than the rebate each; together they cover it.
    await feesInShards("a", ["12", "30"]);
    const feesBefore = (await feeTotals()).get(USDT) ?? 0n;
    const today = beijingDay(Date.now());
    const settleAt = dayEnd(today) + 8 * 3_600_000;
    const run = await settleDay(env, today, settleAt);
    expect(run.phase).toBe("done");
    const rebate = await rebateOf(today, inviter.id);
    // 20 % of 100 USDT of fees at level 1 (the default rates).
    expect(rebate).toBe(units("20"));
    const account = run.paid_to;
    expect(await objectBalances(inviter.id)).toEqual([[account, USDT, rebate, 0n]]);
    expect((await feeTotals()).get(USDT)).toBe(feesBefore - rebate);

    // Again: the console's run, the 00:00 cron, the every-minute job, and the inviter's leg delivered once more.
    await settleDay(env, today, settleAt);
    await runScheduled("0 0 * * *", env, settleAt);
    await runScheduled("* * * * *", env, settleAt + 60_000);
    expect(await sendLegs(env, userAddress(inviter.id), [{ key: `rebate:${today}:${inviter.id}`, to: userAddress(inviter.id), ops: [{ t: "credit", kind: account, cur: String(USDT), amt: Number(rebate) }] }])).toEqual(["seen"]);
    expect(await objectBalances(inviter.id)).toEqual([[account, USDT, rebate, 0n]]);
    expect((await feeTotals()).get(USDT)).toBe(feesBefore - rebate);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM record_legs").first<{ n: number }>())?.n).toBe(0);

    await drainObject(accountStub(env, inviter.id));
    expect(await readModel(inviter.id)).toEqual([[account, USDT, rebate, 0n]]);
    const lines = (await api(`/wallet/statement?currency_id=${USDT}`, { token: inviter.token })).body.message.lines as { kind: string; amount: string }[];
    expect(lines.map((l) => [l.kind, l.amount])).toEqual([["invite_rebate", "20.00000000"]]);
  });

  it("pays nothing while the fee shards hold less than the day's rebates, and pays once when they hold enough", async () => {
    const { inviter, invitee } = await inviterWithInvitee("OBJ-REBATE-2");
    const day = beijingDay(Date.now() - 86_400_000);
    // The fee was paid during that day (the window the settlement reads).
    await paidFee(invitee.id, "1000", dayEnd(day) - 3_600_000);
    const have = (await feeTotals()).get(USDT) ?? 0n;
    const rebate = units("200");
    expect(have).toBeLessThan(rebate);
    await expect(settleDay(env, day, Date.now())).rejects.toMatchObject({ key: "invite_fees_short", status: 409 });
    expect(await objectBalances(inviter.id)).toEqual([]);
    expect((await env.DB.prepare("SELECT phase FROM invite_runs WHERE day = ?").bind(day).first<{ phase: string }>())?.phase).toBe("pay");
    // Tried again by an operator before more fees came: a clear answer in their language (not a 500), still
    // nothing paid, and nothing held twice.
    const op = await makeOperator();
    const r = await api("/admin/invite/run", { lang: "es", token: op.token, body: { day, reason: "settle again" } });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ type: "error", code: "invite_fees_short", message: expect.stringContaining("no se pagó nada") });
    expect(await objectBalances(inviter.id)).toEqual([]);

    await feesInShards("b", ["0", "0", "500"]);
    const run = await settleDay(env, day, Date.now());
    expect(run.phase).toBe("done");
    expect(await rebateOf(day, inviter.id)).toBe(rebate);
    expect(await objectBalances(inviter.id)).toEqual([[run.paid_to, USDT, rebate, 0n]]);
    // What the shards held for the step and did not pay went back: the fee account lost exactly the rebate.
    expect((await feeTotals()).get(USDT)).toBe(have + units("500") - rebate);
    await settleDay(env, day, Date.now());
    expect(await objectBalances(inviter.id)).toEqual([[run.paid_to, USDT, rebate, 0n]]);
  });
});
