/**
 * The rebate attack (issue #26, "A price nobody can print"), as an outsider would try it: two
 * accounts of one person print a BTC trade at 100,000,000 USDT so that the invitee's fees count as
 * thousands of USDT and the inviter is paid out of the fee account.
 *  - On a two-sided book the printed order is refused by the price band (single and batch).
 *  - Where no band applies (an empty book) the print goes through, but the fees are valued at the
 *    index ticks, never the last trade: the inviter gets exactly 20 % of the fee's real value.
 *  - The fee account cannot be driven negative: the database refuses it.
 *  - The reconciler reports an unexplained debit of the fee account and a negative system account.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { runScheduled } from "../../worker/scheduled.ts";
import { beijingDay, dayEnd } from "../../worker/domain/invite/days.ts";
import { reconcile } from "../../worker/domain/ledger/reconcile.ts";
import { applyMovement, SYSTEM } from "../../worker/lib/ledger.ts";
import { api, balance, d1Only, drainPair, makeUser, reconcileNow, seedSpotPair, type TestUser, units } from "./helpers.ts";
import { BTC, PAIR, USDT, buy, clearBook, sell, trader } from "./spot-fixtures.ts";
import { makeOperator } from "./wallet-fixtures.ts";
import { buyAt30000, codeOf, feesUsdt, marketAt30000, registerWith, share, verify } from "./invite-fixtures.ts";

let inviter: TestUser;
let attacker: TestUser; // the inviter's verified invitee
let accomplice: TestUser; // a second account of the same person

beforeAll(async () => {
  await seedSpotPair();
  await clearBook();
  const op = await makeOperator();
  inviter = await makeUser({ verified: 0 });
  await verify(op, inviter, "ATTACK-INVITER-01");
  attacker = await registerWith(await codeOf(inviter));
  await verify(op, attacker, "ATTACK-INVITEE-01");
  accomplice = await trader("100000", "1");
  await marketAt30000();
  // A real trade of the invitee: 0.025 BTC at 30,000 pays a 0.00005 BTC fee (1.50 USDT at the index).
  await buyAt30000(attacker, "0.025");
}, 120_000);

describe("the rebate attack", () => {
  it("refuses a limit order printed at 100,000,000 USDT with the band in the caller's language, and gives the funds back", async () => {
    const before = await balance(accomplice.id, BTC);
    const r = await sell(accomplice.token, { price: "100000000", num: "0.0001" });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("price_out_of_band");
    expect(r.body.message).toBe("A limit price must be within 10% of the index price: between 27000.00 and 33000.00. Nothing was placed");
    const zh = await api("/transaction/walletOut", { token: accomplice.token, lang: "zh", body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "100000000", num: "0.0001" } });
    expect(zh.body.message).toContain("27000.00");
    expect(zh.body.message).toContain("限价");
    // The freeze was released by the pair object's refusal, exactly once.
    expect(await balance(accomplice.id, BTC)).toEqual(before);
    await drainPair(PAIR);
    expect(await balance(accomplice.id, BTC)).toEqual(before);
    // The rules the order form reads state the band.
    const rules = (await api(`/transaction/balance?currency_id=${BTC}&legal_id=${USDT}`, { token: accomplice.token })).body.message;
    expect(rules).toMatchObject({ price_band_percent: "10", index_price: "30000.00", price_band_low: "27000.00", price_band_high: "33000.00" });
  });

  it("refuses the printed orders in a batch too, and places the orders within the band", async () => {
    const r = await api("/transaction/batch", {
      token: accomplice.token,
      body: {
        currency_id: BTC,
        legal_id: USDT,
        orders: [
          { side: "sell", mode: 2, price: "100000000", num: "0.0001" },
          { side: "buy", mode: 2, price: "1", num: "10" },
          { side: "sell", mode: 2, price: "32000", num: "0.001" },
        ],
      },
    });
    const [high, low, inside] = r.body.message.orders;
    expect(high.code).toBe("price_out_of_band");
    expect(low.code).toBe("price_out_of_band");
    expect(inside.status).toBe("open");
    await drainPair(PAIR);
    // Only the order within the band holds funds.
    expect(await balance(accomplice.id, BTC)).toEqual([units("1") - units("0.001"), units("0.001")]);
  });

  it("values the invitee's fees at the index, not at a trade printed on an empty book: the inviter gets exactly 20 % of their real value", async () => {
    // Where no band applies (nobody quotes), the two accounts print a trade at 100,000,000.
    await clearBook();
    await sell(accomplice.token, { price: "100000000", num: "0.000001" });
    expect((await buy(attacker.token, { price: "100000000", num: "0.000001" })).body.message).toMatchObject({ status: "filled" });
    await drainPair(PAIR);
    const last = await env.DB.prepare("SELECT price FROM spot_trades ORDER BY trade_id DESC LIMIT 1").first<{ price: number }>();
    expect(last!.price).toBe(10_000_000_000); // 100,000,000.00: the last trade is the printed one

    const day = beijingDay(Date.now());
    await runScheduled("0 0 * * *", env, dayEnd(day) + 8 * 3_600_000);
    const price = await env.DB.prepare("SELECT price, source FROM invite_prices WHERE day = ? AND currency_id = ?").bind(day, BTC).first<{ price: string; source: string }>();
    expect(price).toEqual({ price: "30000.00", source: expect.stringMatching(/^index:1:median:\d+$/) });

    const real = await feesUsdt(attacker.id); // every BTC fee valued at 30,000, the USDT ones as paid
    expect(real).toBeLessThan(units("2"));
    const [paid] = await balance(inviter.id, USDT, "lever");
    expect(paid).toBe(share(real, 2000n));
    expect(paid).toBeLessThanOrEqual((real * 20n) / 100n);
    const line = await env.DB.prepare("SELECT fee_usdt, amount FROM invite_rebates WHERE inviter_id = ?").bind(inviter.id).first<{ fee_usdt: number; amount: number }>();
    expect(BigInt(line!.fee_usdt)).toBe(real);
  });

  // The two tests below write D1's ledger and balances past the products (its triggers and the
  // reconciler's checks of D1's books); in objects mode the fee shards' own CHECKs refuse an overdraft.
  it.skipIf(d1Only("D1's ledger written directly"))("never lets the fee account go negative: the database refuses a payment it cannot cover and changes nothing", async () => {
    const [fees] = await balance(SYSTEM.fees, USDT);
    const taker = await makeUser({ verified: 2 });
    await expect(
      applyMovement(env.DB, "attack:drain-fees", "invite_rebate", [
        { userId: SYSTEM.fees, currencyId: USDT, account: "change", dAvailable: -(fees + 1n), dFrozen: 0n },
        { userId: taker.id, currencyId: USDT, account: "change", dAvailable: fees + 1n, dFrozen: 0n },
      ]),
    ).rejects.toThrow(/system_overdraft/);
    expect(await balance(SYSTEM.fees, USDT)).toEqual([fees, 0n]);
    expect(await balance(taker.id, USDT)).toEqual([0n, 0n]);
    // Nor can anyone write the balance directly.
    await expect(env.DB.prepare("UPDATE balances SET available = -1 WHERE user_id = 0 AND currency_id = ?").bind(USDT).run()).rejects.toThrow(/system_overdraft/);
    expect((await reconcileNow()).differences).toEqual([]);
  });

  it.skipIf(d1Only("D1's ledger written directly"))("reports a debit of the fee account that no fee reversal or rebate explains, and a negative system account", async () => {
    expect((await reconcile(env.DB)).ok).toBe(true);
    const taker = await makeUser({ verified: 2 });
    // A bug pays someone out of the fee account under a kind that may not touch it.
    await applyMovement(env.DB, "attack:bonus", "bonus", [
      { userId: SYSTEM.fees, currencyId: USDT, account: "change", dAvailable: -1n, dFrozen: 0n },
      { userId: taker.id, currencyId: USDT, account: "change", dAvailable: 1n, dFrozen: 0n },
    ]);
    const r = await reconcile(env.DB);
    expect(r.ok).toBe(false);
    expect(r.differences).toContainEqual({ check: "system_unexplained", user_id: 0, currency_id: USDT, movement_key: "attack:bonus", kind: "bonus", amount: "1", explained: "0" });

    // A fee account driven negative before the guard existed (the guard set aside to write it).
    await env.DB.prepare("DROP TRIGGER system_no_overdraft_update").run();
    await env.DB.prepare("UPDATE balances SET available = -996 WHERE user_id = 0 AND currency_id = ?").bind(BTC).run();
    const negative = await reconcile(env.DB);
    expect(negative.differences).toContainEqual({ check: "negative_balance", user_id: 0, currency_id: BTC, account: "change", available: "-996", frozen: "0" });
  });
});
