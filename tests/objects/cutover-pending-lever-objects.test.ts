/**
 * A pending limit open requested on D1's path and carried over the cut-over (ACCOUNTS=objects).
 * D1 took its open fee at the request (the fee account's available balance) and gives it back if
 * the open is revoked; the cut-over opens the user's hold with the margin alone. So the cut-over
 * holds that fee in the position's fee shard (`lever_fee:{id}`, the pair's `fee_paid` 2): a revoke
 * on the objects spends it back to the user, a fill releases it (the fee is earned, and no second
 * fee is taken). Before this the revoke gave back the margin only: the user lost the fee.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { leverFeeHold, leverShard } from "../../durable/pair/desks/lever-objects.ts";
import type { LeverPosition } from "../../schemas/lever.ts";
import { cutOverStep, migrationStep, systemStep } from "../../worker/domain/ledger/account-cutover.ts";
import { submitPosition } from "../../worker/domain/lever/positions.ts";
import { SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { CUT_OVER_KEY } from "../../worker/lib/maintenance.ts";
import { api, credit, makeUser, seedSpotPair, units as u8, type TestUser } from "../api/helpers.ts";
import { positionRow, sweepNow } from "../api/lever-fixtures.ts";
import { fundTreasury } from "../api/wallet-fixtures.ts";
import { BTC, USDT, legsDelivered, objectBalances, pageFee, setObjectIndex, statementSum, withoutOpenLegs } from "./fixtures.ts";
import { expectClean } from "./products-fixtures.ts";

const FEES = SYSTEM_USERS.fees;
const actor = { operatorId: 0, reason: "test", checked: false };

/** The fee account over its shards, in the house account (USDT): [available, frozen]. */
async function feeAccount(): Promise<[bigint, bigint]> {
  let available = 0n;
  let frozen = 0n;
  for (let k = 0; k < SYSTEM_SHARDS; k++)
    for (const b of await systemStub(env, FEES, k).systemBalances(FEES, k))
      if (b.currencyId === USDT && b.account === "change") {
        available += b.available;
        frozen += b.frozen;
      }
  return [available, frozen];
}

/** The fee shard's hold of a position's open fee. */
const feeHold = (id: number) => systemStub(env, FEES, leverShard(id)).systemHold(FEES, leverShard(id), leverFeeHold(id));

/** A user's D1 balance of one account (USDT), [available, frozen]. */
async function d1Balance(userId: number, account: string): Promise<[bigint, bigint]> {
  const r = await env.DB.prepare("SELECT CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM balances WHERE user_id = ? AND currency_id = ? AND account = ?")
    .bind(userId, USDT, account)
    .first<{ a: string; f: string }>();
  return [BigInt(r?.a ?? 0), BigInt(r?.f ?? 0)];
}

/** A verified user with 100 USDT in D1's lever account, who asks on D1's path for a long limit open of 10 lots × 10 at `price` (pending: the index is 101). */
async function pendingOnD1(price: string): Promise<{ u: TestUser; p: LeverPosition }> {
  const u = await makeUser({ verified: 2 });
  await credit(`test:d1-lever:${u.id}`, u.id, USDT, u8("100"), "lever", { d1: true });
  const p = await submitPosition({ ...env, ACCOUNTS: "d1" } as Env, u.id, { currency_id: BTC, legal_id: USDT, type: 1, share: 10, multiple: 10, target_price: price });
  expect(p.status).toBe(1);
  return { u, p };
}

let revoked: { u: TestUser; p: LeverPosition };
let filled: { u: TestUser; p: LeverPosition };
let filledBefore: { u: TestUser; p: LeverPosition };
/** The fee account in D1 when the cut-over began. */
let feesOnD1: bigint;

beforeAll(async () => {
  await seedSpotPair();
  await fundTreasury(USDT, u8("1000000"), { d1: true });
  await setObjectIndex("101.00");
  revoked = await pendingOnD1("95");
  filled = await pendingOnD1("99");
  filledBefore = await pendingOnD1("97");
  // D1's path: the margin frozen, the open fee (95 × 0.1 × 0.05 %) gone to the fee account at the request.
  expect(await d1Balance(revoked.u.id, "lever")).toEqual([u8("100") - u8("0.95475"), u8("0.95")]);
  feesOnD1 = (await d1Balance(FEES, "change"))[0];
  expect(feesOnD1).toBeGreaterThanOrEqual(u8("0.0097") + u8("0.00485"));

  // The cut-over's steps as the routes run them, while no cut-over is recorded (the test project records one at its start).
  await env.DB.prepare("DELETE FROM settings WHERE key = ?").bind(CUT_OVER_KEY).run();
  const opened = await migrationStep(env, actor, { limit: 100 });
  expect(opened.failed).toEqual([]);
  expect((await systemStep(env, actor)).mismatched).toEqual([]);
  await cutOverStep(env, actor);
});

describe("a pending limit open carried over the cut-over", () => {
  it("gives its owner the whole open fee back when revoked, out of its fee shard's hold", async () => {
    const { u, p } = revoked;
    // The user's object holds the margin alone (D1's frozen funds); the fee account holds D1's fees.
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.95475"), u8("0.95")]]);
    const [available, frozen] = await feeAccount();
    expect(available + frozen).toBe(feesOnD1);
    await expectClean();
    const page = await pageFee("lever", "USDT");

    const r = await api("/lever/cancel", { token: u.token, body: { id: p.id } });
    expect(r.body.message, JSON.stringify(r.body)).toMatchObject({ status: 5 });
    await legsDelivered();
    // Back to exactly what the user had before the request; the fee account gave the fee back, once.
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100"), 0n]]);
    const after = await feeAccount();
    expect(after[0] + after[1]).toBe(feesOnD1 - u8("0.00475"));
    await expectClean();
    // As D1 books a revoke: one line, the fee back and the margin no longer held; the transparency page's lever fees less that fee.
    expect(await statementSum(u.token, "lever", "lever_revoke")).toEqual([u8("0.00475"), -u8("0.95")]);
    expect((await pageFee("lever", "USDT")) - page).toBe(-u8("0.00475"));
    // It came out of the fee shard's hold of it, opened by the cut-over out of D1's available fees (the other open's is still held).
    expect(await feeHold(p.id)).toMatchObject({ amount: u8("0.00475"), spent: u8("0.00475"), released: 0n, open: false });
    expect(after).toEqual([feesOnD1 - u8("0.0097") - u8("0.00485"), u8("0.00495") + u8("0.00485")]);
  });

  it("takes no second open fee when it fills: the fee shard's hold is released, the fee stays earned", async () => {
    const { u, p } = filled;
    const fees = await feeAccount();
    await setObjectIndex("99.00");
    await sweepNow();
    await expect.poll(async () => (await positionRow(p.id))?.status).toBe(2);
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.99495"), u8("0.99")]]);
    expect(await feeHold(p.id)).toMatchObject({ amount: u8("0.00495"), released: u8("0.00495"), spent: 0n, open: false });
    expect(await feeAccount()).toEqual([fees[0] + u8("0.00495"), fees[1] - u8("0.00495")]);
    expect(await positionRow(p.id)).toMatchObject({ fee_held: 0 });
    await expectClean();

    // Closed at its open price: the close fee alone.
    const c = (await api("/lever/close", { token: u.token, body: { id: p.id } })).body.message;
    expect(c).toMatchObject({ status: 4, profit: "0.00000000", close_fee: "0.00495000" });
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.00495") - u8("0.00495"), 0n]]);
    expect(await feeAccount()).toEqual([fees[0] + u8("0.00495") + u8("0.00495"), fees[1] - u8("0.00495")]);
    await expectClean();
  });

  it("releases the fee shard's hold at the close of one that filled before the pair's legs ran (a fill in the window, on D1's path)", async () => {
    const { u, p } = filledBefore;
    const fees = await feeAccount();
    // The fill as a pair without legs makes it (D1's path in the cut-over's window): nothing moves, the fee stays held.
    await withoutOpenLegs("lever", async () => {
      await setObjectIndex("97.00");
      await sweepNow();
      await expect.poll(async () => (await positionRow(p.id))?.status).toBe(2);
    });
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.97485"), u8("0.97")]]);
    expect(await feeHold(p.id)).toMatchObject({ amount: u8("0.00485"), released: 0n, spent: 0n, open: true });
    await expectClean();

    const c = (await api("/lever/close", { token: u.token, body: { id: p.id } })).body.message;
    expect(c).toMatchObject({ status: 4, profit: "0.00000000", close_fee: "0.00485000" });
    await legsDelivered();
    // The close fee alone from the user; the open fee earned by its shard, the hold released.
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.00485") - u8("0.00485"), 0n]]);
    expect(await feeHold(p.id)).toMatchObject({ released: u8("0.00485"), spent: 0n, open: false });
    expect(await feeAccount()).toEqual([fees[0] + fees[1] + u8("0.00485"), 0n]);
    await expectClean();
  });
});
