/**
 * Mining with balances in the account objects (ACCOUNTS=objects, issue #28): a purchase holds the
 * price in the user's object (hold `mining:{id}`), then the holding's row, whose batch owes the
 * legs that spend it to a treasury shard; an approved payout is held in its treasury shard first,
 * and the hourly cron's chunks owe each holder's net and the shard's spend, applied once each.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { buyShares } from "../../worker/domain/mining/holdings.ts";
import { runScheduled } from "../../worker/scheduled.ts";
import { api, makeUser } from "../api/helpers.ts";
import { approve, buy, HOUR, listPlan, nextHour, record } from "../api/mining-fixtures.ts";
import { BTC, seedWalletCurrencies, u8, USDT } from "../api/wallet-fixtures.ts";
import { d1LedgerRows } from "./fixtures.ts";
import { expectClean, fundShards, objectUser, openHolds, settled, shardBalance, shardReadModel, unsentLegs } from "./products-fixtures.ts";

beforeAll(async () => {
  await seedWalletCurrencies();
  await fundShards(BTC, "1");
  await fundShards(USDT, "1000");
});
afterEach(() => {
  vi.useRealTimers();
});

describe("mining on the account objects", () => {
  it("takes the price into a treasury shard, holds an approved payout there, and pays each holder's share once", async () => {
    const a = await makeUser({ role: "operator" });
    const b = await makeUser({ role: "operator" });
    const plan = await listPlan(a);
    const user = await objectUser([[USDT, "10000"]]);
    const bought = await buy(user, plan.id, 10);
    expect(bought.body, JSON.stringify(bought.body)).toMatchObject({ type: "ok", message: { shares: 10, cost: "1000" } });
    expect(await settled(user.id)).toEqual([["change", USDT, u8("9000"), 0n]]);
    expect(await openHolds(user.id)).toEqual([]);
    const holding = await env.DB.prepare("SELECT id FROM mining_holdings WHERE user_id = ?").bind(user.id).first<{ id: number }>();
    expect((await shardBalance(holding!.id, USDT))[0]).toBe(u8("1000") + u8("1000"));

    const H = nextHour();
    // Shares bought 10 minutes into the hour do not count for it.
    const late = await objectUser([[USDT, "1000"]]);
    await buyShares(env, late.id, { plan_id: plan.id, shares: 5 }, H + 600_000);

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(H + HOUR + 1000);
    const id = (await record(a, plan.id, new Date(H).toISOString(), "0.01")).body.message.id as number;
    const [btcAvail, btcFrozen] = await shardBalance(id, BTC);
    expect((await approve(b, id)).body).toMatchObject({ type: "ok", message: { status: "approved" } });
    expect(await shardBalance(id, BTC)).toEqual([btcAvail - u8("0.01"), btcFrozen + u8("0.01")]);
    expect((await approve(b, id)).body).toMatchObject({ code: "mining_decided" });
    expect(await shardBalance(id, BTC)).toEqual([btcAvail - u8("0.01"), btcFrozen + u8("0.01")]);
    await expectClean();

    // 0.01 × 10 / 1000 = 0.0001 BTC gross, 2 % fee 0.000002, net 0.000098; twice and the every-minute run: paid once.
    await runScheduled("0 * * * *", env, H + HOUR + 3000);
    await runScheduled("0 * * * *", env, H + HOUR + 4000);
    await runScheduled("* * * * *", env, H + HOUR + 5000);
    expect(await settled(user.id)).toEqual([
      ["change", BTC, u8("0.000098"), 0n],
      ["change", USDT, u8("9000"), 0n],
    ]);
    expect(await settled(late.id)).toEqual([["change", USDT, u8("500"), 0n]]);
    // The shard is out only what the user got: the fee, the unsold shares' part and the rounding are released.
    expect(await shardBalance(id, BTC)).toEqual([btcAvail - u8("0.000098"), btcFrozen]);
    expect(await shardReadModel(id, BTC)).toEqual(await shardBalance(id, BTC));
    expect(await unsentLegs()).toBe(0);
    expect(await d1LedgerRows(user.id)).toBe(0);
    const lines = (await api("/wallet/statement?limit=100", { token: user.token })).body.message.lines as { kind: string }[];
    expect(lines.map((l) => l.kind)).toEqual(["mining_payout", "mining_buy", "mining_hold"]);
    await expectClean();
  });

  it("refuses a buy the balance does not cover and an approval the shard cannot hold, changing nothing", async () => {
    const a = await makeUser({ role: "operator" });
    const b = await makeUser({ role: "operator" });
    const plan = await listPlan(a);
    const poor = await objectUser([[USDT, "150"]]);
    expect((await buy(poor, plan.id, 2)).body).toMatchObject({ code: "insufficient_balance" });
    expect(await settled(poor.id)).toEqual([["change", USDT, u8("150"), 0n]]);
    expect(await openHolds(poor.id)).toEqual([]);
    expect((await buy(poor, plan.id, 1)).body.type).toBe("ok");

    const H = nextHour();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(H + HOUR + 1000);
    // 9 BTC: more than the eight treasury shards hold together (1 each; a shard short of less borrows from its siblings).
    const id = (await record(a, plan.id, new Date(H).toISOString(), "9")).body.message.id as number;
    const before = await shardBalance(id, BTC);
    expect((await approve(b, id)).body).toMatchObject({ code: "mining_treasury_short" });
    expect(await shardBalance(id, BTC)).toEqual(before);
    await runScheduled("0 * * * *", env, H + HOUR + 3000);
    expect(await settled(poor.id)).toEqual([["change", USDT, u8("50"), 0n]]);
    await expectClean();
  });
});
