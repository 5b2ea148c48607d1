/**
 * Cover with balances in the account objects (ACCOUNTS=objects, issue #28): a purchase holds the
 * full cover in a treasury shard first (hold `cover:{id}`), then the premium in the user's object,
 * then the D1 row, whose batch owes the premium's legs; a payout spends the shard's hold into the
 * user's seconds account, an end releases it: each keyed `insurance:{id}:settle`, applied once.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { buyCover } from "../../worker/domain/insurance/covers.ts";
import { shardOf, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { holdAt, treasuryAt } from "../../worker/lib/product-objects.ts";
import { runScheduled } from "../../worker/scheduled.ts";
import { api, type TestUser } from "../api/helpers.ts";
import { DAY, publishCoverPlan, settledContract, todayStart } from "../api/insurance-fixtures.ts";
import { makeOperator, seedWalletCurrencies, u8, USDT } from "../api/wallet-fixtures.ts";
import { d1LedgerRows } from "./fixtures.ts";
import { expectClean, fundShards, objectUser, openHolds, settled, shardBalance, shardReadModel, unsentLegs } from "./products-fixtures.ts";

let operator: TestUser;

beforeAll(async () => {
  await seedWalletCurrencies();
  operator = await makeOperator();
  await fundShards(USDT, "10000");
});

/** A user opened with USDT in the spot account (premiums) and in the seconds account (the insured asset). */
const buyer = (spot: string, micro: string) =>
  objectUser([
    [USDT, spot],
    [USDT, micro, "micro"],
  ]);

const status = async (user: TestUser, id: number) => ((await api("/insurance/my", { token: user.token })).body.message.data as any[]).find((c) => c.id === id);

describe("cover on the account objects", () => {
  it("takes the premium and holds the cover in the treasury's shard, then pays a claim once into the seconds account", async () => {
    const plan = await publishCoverPlan(operator);
    const user = await buyer("100", "1000");
    const r = await api("/insurance/buy", { token: user.token, body: { plan_id: plan.id, amount: "1000" } });
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    const bought = r.body.message;
    expect(await settled(user.id)).toEqual([
      ["change", USDT, u8("50"), 0n],
      ["micro", USDT, u8("1000"), 0n],
    ]);
    expect(await openHolds(user.id)).toEqual([]);
    const [avail, frozen] = await shardBalance(bought.id, USDT);
    expect(frozen).toBe(u8("500"));
    expect(await d1LedgerRows(user.id)).toBe(0);
    await expectClean();

    // A cover in force (bought yesterday), a loss of half, claimed five times at once: paid once.
    const id = (await buyCover(env, user.id, { plan_id: (await publishCoverPlan(operator)).id, amount: "1000" }, Date.now() - DAY)).id;
    await settledContract(user.id, "-500");
    const shard = await shardBalance(id, USDT);
    const results = await Promise.all(Array.from({ length: 5 }, () => api("/insurance/claim", { token: user.token, body: { id } })));
    expect(results.filter((x) => x.body.type === "ok")).toHaveLength(1);
    // The second premium took the last 50 of the spot account.
    expect(await settled(user.id)).toEqual([["micro", USDT, u8("1500"), 0n]]);
    expect(await shardBalance(id, USDT)).toEqual([shard[0], shard[1] - u8("500")]);
    expect(await shardReadModel(id, USDT)).toEqual(await shardBalance(id, USDT));
    expect((await api("/insurance/claim", { token: user.token, body: { id } })).body.code).toBe("insurance_invalid");
    expect(await unsentLegs()).toBe(0);
    const kinds = ((await api(`/wallet/statement?currency_id=${USDT}&limit=100`, { token: user.token })).body.message.lines as any[]).map((l) => l.kind);
    expect(kinds).toContain("insurance_payout");
    expect(kinds).toContain("insurance_premium");
    expect(avail).toBeGreaterThan(0n);
    await expectClean();
  });

  it("releases the shard's hold once when the cover ends at its end date, however often the cron runs", async () => {
    const plan = await publishCoverPlan(operator, { days: 1 });
    const user = await buyer("100", "1000");
    const id = (await buyCover(env, user.id, { plan_id: plan.id, amount: "1000" }, Date.now() - DAY)).id;
    const [avail, frozen] = await shardBalance(id, USDT);
    await runScheduled("0 0 * * *", env, todayStart() + DAY);
    await runScheduled("0 0 * * *", env, todayStart() + DAY);
    await runScheduled("* * * * *", env, todayStart() + DAY + 60_000);
    expect(await status(user, id)).toMatchObject({ status: "ended", end_reason: "expired" });
    expect(await shardBalance(id, USDT)).toEqual([avail + u8("500"), frozen - u8("500")]);
    expect(await settled(user.id)).toEqual([
      ["change", USDT, u8("50"), 0n],
      ["micro", USDT, u8("1000"), 0n],
    ]);
    await expectClean();
  });

  it("refuses a purchase whose premium is not there, leaving the user's object and the shard as they were", async () => {
    const plan = await publishCoverPlan(operator);
    const user = await buyer("10", "1000");
    const shards = await Promise.all(Array.from({ length: 8 }, (_, k) => shardBalance(k, USDT)));
    const r = await api("/insurance/buy", { token: user.token, body: { plan_id: plan.id, amount: "1000" } });
    expect(r.body).toMatchObject({ code: "insufficient_balance" });
    expect(await settled(user.id)).toEqual([
      ["change", USDT, u8("10"), 0n],
      ["micro", USDT, u8("1000"), 0n],
    ]);
    expect(await Promise.all(Array.from({ length: 8 }, (_, k) => shardBalance(k, USDT)))).toEqual(shards);
    expect(((await api("/insurance/my", { token: user.token })).body.message.data as any[]).length).toBe(0);
    await expectClean();
  });

  it("releases a cover held in a shard whose row never came, once, after the grace", async () => {
    const id = 900_000_123;
    const [avail, frozen] = await shardBalance(id, USDT);
    expect(await holdAt(env, treasuryAt(id), { forKind: "cover", forId: String(id), account: "change", currencyId: USDT, amount: u8("70") })).toBe("reserved");
    expect(await shardBalance(id, USDT)).toEqual([avail - u8("70"), frozen + u8("70")]);
    const stub = systemStub(env, SYSTEM_USERS.treasury, shardOf(id));
    expect(await stub.accountSweep(0)).toMatchObject({ released: 1 });
    expect(await stub.accountSweep(0)).toMatchObject({ released: 0 });
    expect(await shardBalance(id, USDT)).toEqual([avail, frozen]);
  });
});
