/**
 * Savings with balances in the account objects (ACCOUNTS=objects, issue #28): the product's
 * interest budget is a hold in a treasury shard, a position's principal a hold `savings:{id}` in
 * the user's object, made before the D1 rows; interest days, maturities and redemptions are legs
 * owed in the same D1 batch as the rows and applied once each. D1 gets the movements afterwards as
 * the read model, and no row of its own ledger.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub, SYSTEM_SHARDS, systemStub } from "../../worker/lib/accounts.ts";
import { createProduct as createProductAt } from "../../worker/domain/earn/catalogue.ts";
import { reconcile } from "../../worker/domain/ledger/reconcile.ts";
import { accountReads } from "../../worker/domain/wallet/object-reads.ts";
import { claimRecord, holdAt, userAt } from "../../worker/lib/product-objects.ts";
import { runScheduled } from "../../worker/scheduled.ts";
import { api, type TestUser } from "../api/helpers.ts";
import { createEarnProduct, daily, held } from "../api/earn-fixtures.ts";
import { makeOperator, seedWalletCurrencies, u8, USDT } from "../api/wallet-fixtures.ts";
import { d1LedgerRows } from "./fixtures.ts";
import { expectClean, fundShards, objectUser, openHolds, settled, shardBalance, shardReadModel, TREASURY, unsentLegs } from "./products-fixtures.ts";

let operator: TestUser;

beforeAll(async () => {
  await seedWalletCurrencies();
  operator = await makeOperator();
  await fundShards(USDT, "100000");
});

const createProduct = (over: Record<string, unknown> = {}) => createEarnProduct(operator, over);

const subscribe = (token: string, product_id: number, amount: string) => api("/earn/subscribe", { token, body: { product_id, amount } });
const positions = async (token: string) => (await api("/earn/positions", { token })).body.message as any[];
const product = async (id: number) => ((await api("/earn/products")).body.message as any[]).find((p) => p.id === id);

describe("savings on the account objects", () => {
  it("holds the budget in a treasury shard and the principal in the user's object, pays each flexible day once, and redeems exactly", async () => {
    const before = await shardBalance(0, USDT);
    const p = await createProduct({ term_days: 0, apr: "3.65", budget: "50" });
    const shardBefore = await shardBalance(p.id, USDT);
    // The budget is held by the shard of the product's id (one shard per product); D1 wrote no movement.
    expect(shardBefore[1]).toBeGreaterThanOrEqual(u8("50"));
    const user = await objectUser([[USDT, "1000"]]);

    const sub = await subscribe(user.token, p.id, "1000");
    expect(sub.body.type, JSON.stringify(sub.body)).toBe("ok");
    const pos = sub.body.message;
    expect(await settled(user.id)).toEqual([["change", USDT, 0n, u8("1000")]]);
    expect(await openHolds(user.id)).toEqual([[`savings:${pos.id}`, u8("1000")]]);
    expect(await d1LedgerRows(user.id)).toBe(0);
    // The wallet's holds list names the position and its product (flexible).
    const holds = (await api("/wallet/holds", { token: user.token })).body.message.groups as { holds: unknown[] }[];
    expect(holds.flatMap((g) => g.holds)).toEqual([expect.objectContaining({ purpose: "savings", ref: { type: "earn", id: pos.id }, term_days: 0 })]);

    // Two interest days, each paid once however often the cron runs.
    const d = daily(u8("1000"), 365n);
    await runScheduled("0 0 * * *", env, held(2));
    await runScheduled("0 0 * * *", env, held(2));
    await runScheduled("* * * * *", env, held(2) + 60_000);
    expect(await settled(user.id)).toEqual([["change", USDT, d * 2n, u8("1000")]]);
    expect(await unsentLegs()).toBe(0);
    const after = await shardBalance(p.id, USDT);
    expect(after).toEqual([shardBefore[0], shardBefore[1] - d * 2n]);
    expect(await shardReadModel(p.id, USDT)).toEqual(after);
    expect((await positions(user.token))[0]).toMatchObject({ days: 2, paid: "0.2" });

    const r = await api("/earn/redeem", { token: user.token, body: { position_id: pos.id } });
    expect(r.body.message).toMatchObject({ status: "redeemed" });
    expect(await settled(user.id)).toEqual([["change", USDT, u8("1000") + d * 2n, 0n]]);
    expect(await openHolds(user.id)).toEqual([]);
    // Twice is refused and moves nothing.
    expect((await api("/earn/redeem", { token: user.token, body: { position_id: pos.id } })).body).toMatchObject({ code: "earn_position_closed" });
    expect(await settled(user.id)).toEqual([["change", USDT, u8("1000") + d * 2n, 0n]]);
    // The statement reads the days and the end as savings lines.
    const lines = (await api(`/wallet/statement?currency_id=${USDT}&limit=100`, { token: user.token })).body.message.lines as any[];
    expect(lines.map((l) => l.kind)).toEqual(["earn_redeem", "earn_interest", "earn_interest", "earn_subscribed"]);
    expect(lines.every((l) => l.ref.type === "earn" && l.ref.id === pos.id)).toBe(true);
    expect(await d1LedgerRows(user.id)).toBe(0);
    expect(before[0]).toBeGreaterThan(0n);
    await expectClean();
  });

  it("pays a fixed position's principal and interest once at maturity, the interest spent from the budget's hold", async () => {
    const p = await createProduct({ term_days: 7, apr: "12.5", budget: "100" });
    const shardBefore = await shardBalance(p.id, USDT);
    const user = await objectUser([[USDT, "1000"]]);
    expect((await subscribe(user.token, p.id, "1000")).body.type).toBe("ok");
    const d = daily(u8("1000"), 1250n);
    await runScheduled("0 0 * * *", env, held(8));
    await runScheduled("0 0 * * *", env, held(9));
    expect((await positions(user.token))[0]).toMatchObject({ status: "matured", days: 7 });
    expect(await settled(user.id)).toEqual([["change", USDT, u8("1000") + d * 7n, 0n]]);
    expect(await shardBalance(p.id, USDT)).toEqual([shardBefore[0], shardBefore[1] - d * 7n]);
    expect(await openHolds(user.id)).toEqual([]);

    // Closing the product gives the unpromised budget back to the shard's available, once.
    expect((await api("/admin/earn/close", { token: operator.token, body: { product_id: p.id, reason: "campaign over" } })).body.type).toBe("ok");
    await runScheduled("* * * * *", env, held(9));
    expect(await shardBalance(p.id, USDT)).toEqual([shardBefore[0] + u8("100") - d * 7n, shardBefore[1] - u8("100")]);
    expect(await shardReadModel(p.id, USDT)).toEqual(await shardBalance(p.id, USDT));
    await expectClean();
  });

  it("refuses what it cannot take and leaves every balance as it was", async () => {
    const p = await createProduct({ term_days: 30, apr: "36.5", budget: "10", max_amount: "100" });
    const poor = await objectUser([[USDT, "50"]]);
    expect((await subscribe(poor.token, p.id, "100")).body).toMatchObject({ code: "insufficient_balance" });
    expect(await settled(poor.id)).toEqual([["change", USDT, u8("50"), 0n]]);
    expect(await openHolds(poor.id)).toEqual([]);

    // 100 USDT at 36.5 % for 30 days reserves 3 USDT: a 10 USDT budget covers three of six parallel subscriptions.
    const users = await Promise.all(Array.from({ length: 6 }, () => objectUser([[USDT, "100"]])));
    const results = await Promise.all(users.map((u) => subscribe(u.token, p.id, "100")));
    expect(results.filter((r) => r.body.type === "ok")).toHaveLength(3);
    for (const [i, r] of results.entries()) {
      const u = users[i]!;
      if (r.body.type === "ok") expect(await settled(u.id)).toEqual([["change", USDT, 0n, u8("100")]]);
      else {
        expect(r.body).toMatchObject({ code: "earn_budget" });
        // The hold made before the refused row went back at once.
        expect(await settled(u.id)).toEqual([["change", USDT, u8("100"), 0n]]);
        expect(await openHolds(u.id)).toEqual([]);
      }
    }
    // A product the treasury's shard cannot fund is refused, nothing held.
    const big = await api("/admin/earn/products", {
      token: operator.token,
      body: { currency_id: USDT, term_days: 30, apr: "5", min_amount: "10", max_amount: "1000", budget: "1000000", reason: "too big" },
    });
    expect(big.body).toMatchObject({ code: "earn_treasury_short" });
    await expectClean();
  });

  it("releases a principal hold whose position never came, once, after the grace, and never one whose position came", async () => {
    const user = await objectUser([[USDT, "100"]]);
    const stub = accountStub(env, user.id);
    // A Worker that died between the hold and the row: the hold is there, the row never came.
    expect(await holdAt(env, userAt(user.id), { forKind: "savings", forId: "777000111", account: "change", currencyId: USDT, amount: u8("40") })).toBe("reserved");
    // One whose row did come (its batch claimed it).
    expect(await holdAt(env, userAt(user.id), { forKind: "savings", forId: "777000112", account: "change", currencyId: USDT, amount: u8("10") })).toBe("reserved");
    await env.DB.batch([claimRecord(env.DB, "savings:777000112", Date.now())]);

    expect(await stub.accountSweep(0)).toMatchObject({ known: 1, released: 1 });
    expect(await stub.accountSweep(0)).toMatchObject({ known: 0, released: 0 });
    expect(await settled(user.id)).toEqual([["change", USDT, u8("90"), u8("10")]]);
    expect(await openHolds(user.id)).toEqual([["savings:777000112", u8("10")]]);
    // The row can no longer come: its claim is the orphan's.
    await expect(env.DB.batch([claimRecord(env.DB, "savings:777000111", Date.now())])).rejects.toThrow(/UNIQUE/);
  });
});

describe("the product page in objects mode", () => {
  it("answers the same fields", async () => {
    const p = await createProduct({ term_days: 0, apr: "1", budget: "20" });
    expect(await product(p.id)).toMatchObject({ id: p.id, kind: "flexible", budget: "20", remaining: "20" });
  });
});

describe("ids drawn in one millisecond, savings on the account objects", () => {
  /** The treasury's frozen funds over all its shards, of one currency. */
  const treasuryFrozen = async () => {
    let sum = 0n;
    for (let k = 0; k < SYSTEM_SHARDS; k++) for (const b of await systemStub(env, TREASURY, k).systemBalances(TREASURY, k)) if (b.currencyId === USDT) sum += b.frozen;
    return sum;
  };

  it("publishes every product created in the same millisecond under its own id, each budget held once", async () => {
    const before = await treasuryFrozen();
    const now = Date.now();
    const ids = new Set<number>();
    const input = { currency_id: USDT, term_days: 7 as const, apr: "5", min_amount: "10", max_amount: "100", budget: "1", reason: "one millisecond" };
    // 200 draws of 4096 ids in one millisecond meet a taken id a few times: the shard's hold is there, so the id is drawn again.
    for (let i = 0; i < 200; i++) ids.add(await createProductAt(env, operator.id, input, now));
    expect(ids.size).toBe(200);
    // Each product's budget is held once; a hold made for a taken id was given back.
    expect(await treasuryFrozen()).toBe(before + u8("200"));
    const claims = await env.DB.prepare("SELECT count(*) AS n FROM object_hold_claims WHERE state = 'record' AND hold IN (SELECT 'earn_product:' || value FROM json_each(?))")
      .bind(JSON.stringify([...ids]))
      .first<{ n: number }>();
    expect(claims!.n).toBe(200);
    // The reconciler finds the treasury's frozen funds explained by the products' budgets (an earlier test left a user's orphan hold on purpose).
    const r = await reconcile(env.DB, undefined, accountReads(env));
    expect(r.differences.filter((d) => d.user_id === TREASURY)).toEqual([]);
  });
});
