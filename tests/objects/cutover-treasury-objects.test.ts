/**
 * The cut-over's opening of the treasury (`openSystemAccounts`, ACCOUNTS=objects): a savings product
 * published on D1's path before the cut-over keeps its budget frozen in D1's treasury; after the
 * cut-over its interest days spend `earn_product:{id}` in the treasury shard of its id, so that hold
 * must be opened there (found by the crash run over every product, session 15: the budget had
 * become a `migrated` hold split over all shards, and each interest day's house leg was refused —
 * the user credited, the treasury never debited). And the reconciler must count the treasury's
 * frozen funds once, in the shards (it added D1's row they were opened from: twice the holds).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { shardOf, SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { createProduct } from "../../worker/domain/earn/catalogue.ts";
import { openSystemAccounts } from "../../worker/domain/ledger/account-objects.ts";
import { runScheduled } from "../../worker/scheduled.ts";
import { api, type TestUser } from "../api/helpers.ts";
import { daily, held } from "../api/earn-fixtures.ts";
import { makeOperator, seedWalletCurrencies, u8, USDT } from "../api/wallet-fixtures.ts";
import { expectClean, objectUser, settled, shardBalance, TREASURY, unsentLegs } from "./products-fixtures.ts";

let operator: TestUser;

beforeAll(async () => {
  await seedWalletCurrencies();
  operator = await makeOperator();
});

describe("the treasury's opening at the cut-over", () => {
  it("opens a savings budget published before the cut-over as its own hold in its shard, and pays its interest days from it", async () => {
    // The treasury funded on D1's path (a balanced movement from the deposits account, as the seed does).
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare("INSERT INTO movements (key, kind, created_at) VALUES ('test:treasury', 'treasury_funding', ?)").bind(now),
      env.DB.prepare(
        "INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) VALUES ('test:treasury', ?1, ?3, 'change', ?4, 0, 'treasury_funding', 'test', ?5), ('test:treasury', ?2, ?3, 'change', -?4, 0, 'treasury_funding', 'test', ?5)",
      ).bind(TREASURY, SYSTEM_USERS.deposits, USDT, Number(u8("10000")), now),
    ]);
    // Published on D1's path (before the switch): the budget frozen in D1's treasury.
    const d1Path = { ...env, ACCOUNTS: "d1" } as Env;
    const id = await createProduct(d1Path, operator.id, { currency_id: USDT, term_days: 0, apr: "36.5", min_amount: "10", max_amount: "1000", budget: "100", reason: "published before the cut-over" });
    const treasury = await env.DB.prepare("SELECT CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM balances WHERE user_id = ? AND currency_id = ? AND account = 'change'").bind(TREASURY, USDT).first();
    expect(treasury).toEqual({ a: String(u8("9900")), f: String(u8("100")) });

    const opened = await openSystemAccounts(env);
    expect(opened.mismatched).toEqual([]);
    const k = shardOf(id);
    // The budget is the product's own hold in its shard; the available part is split over every shard.
    expect(await systemStub(env, TREASURY, k).systemHold(TREASURY, k, `earn_product:${id}`)).toMatchObject({ amount: u8("100"), spent: 0n, released: 0n, open: true });
    expect(await systemStub(env, TREASURY, k).systemHold(TREASURY, k, `migrated:change:${USDT}`)).toBeNull();
    const before = await shardBalance(id, USDT);
    expect(before).toEqual([u8("9900") / BigInt(SYSTEM_SHARDS), u8("100")]);

    // After the cut-over a user subscribes on the objects and is paid an interest day: the shard pays it from the budget.
    const user = await objectUser([[USDT, "1000"]]);
    const sub = await api("/earn/subscribe", { token: user.token, body: { product_id: id, amount: "1000" } });
    expect(sub.body.type, JSON.stringify(sub.body)).toBe("ok");
    await runScheduled("0 0 * * *", env, held(1));
    await runScheduled("* * * * *", env, held(1) + 60_000);
    const d = daily(u8("1000"), 3_650n);
    expect(await settled(user.id)).toEqual([["change", USDT, d, u8("1000")]]);
    expect(await unsentLegs()).toBe(0);
    expect(await shardBalance(id, USDT)).toEqual([before[0], before[1] - d]);
    expect(await systemStub(env, TREASURY, k).systemHold(TREASURY, k, `earn_product:${id}`)).toMatchObject({ spent: d, open: true });
    // The reconciler counts the treasury's frozen funds once: in its shards, not again in the D1 row they were opened from.
    await expectClean();
  });
});
