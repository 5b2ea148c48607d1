/**
 * The move of D1's balances into the account objects (worker/domain/ledger/account-objects.ts,
 * scripts/migrate-accounts.mjs): in steps over users in id order, resumable from a cursor, safe to
 * repeat, each open record's frozen funds becoming that record's own hold, and a verification
 * that compares every user's totals in D1 with the object and with the read model.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../worker/index.ts";
import { userStub } from "../../worker/lib/notify.ts";
import { migrateAccountsStep, migrationCursor, openSystemAccounts, verifyAccountsStep } from "../../worker/domain/ledger/account-objects.ts";
import { SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { api, drainPair, seedSpotPair } from "../api/helpers.ts";
import { BTC, PAIR, USDT, buy, trader } from "../api/spot-fixtures.ts";

/** Users that exist only as balance rows (the migration reads nothing else of a user without open records). */
const FIRST = 700_001;
const SYNTHETIC = 300;

let orderUser = 0;
let orderId = 0;
let ocoUser = 0;
let ocoId = 0;

beforeAll(async () => {
  await seedSpotPair();
  const u = await trader("1000", "0");
  const placed = await buy(u.token, { price: "50", num: "2" });
  expect(placed.body.type).toBe("ok");
  await drainPair(PAIR);
  orderUser = u.id;
  orderId = Number(placed.body.message.order_id);
  // An OCO buy: its limit leg at 40 (a spot order of the same id) and its stop's own part up to the child's 70.
  const o = await trader("1000", "0");
  const oco = await api("/transaction/conditional", { token: o.token, body: { currency_id: BTC, legal_id: USDT, side: "buy", type: "oco", num: "1", price: "40", stop_price: "60", limit_price: "70" } });
  expect(oco.body.type).toBe("ok");
  await drainPair(PAIR);
  ocoUser = o.id;
  ocoId = Number(oco.body.message.id);
  // Every third user has funds frozen with no open record behind them; every fifth holds BTC too.
  const rows: [number, number, string, number, number][] = [];
  for (let i = 0; i < SYNTHETIC; i++) {
    rows.push([FIRST + i, USDT, "change", 1_000_000 + i, i % 3 === 0 ? 500 + i : 0]);
    if (i % 5 === 0) rows.push([FIRST + i, BTC, "micro", 7 * i + 1, 0]);
  }
  await env.DB.prepare(
    "INSERT INTO balances (user_id, currency_id, account, available, frozen) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?)",
  )
    .bind(JSON.stringify(rows))
    .run();
});

/** POST through the Worker's own entry point with the given environment (as `npm start` runs it by default). */
async function post(path: string, body: unknown, e: Env = { ...env, DEV_OUTBOX: "on", DEV_CLOCK: "on" }) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://exchange.test/api${path}`, { method: "POST", headers: { lang: "en", "content-type": "application/json", "cf-connecting-ip": "198.18.0.28" }, body: JSON.stringify(body) }),
    e,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as { type: string; code?: string; field?: string; message: Record<string, unknown> } };
}

const usersWithBalances = async () =>
  (await env.DB.prepare("SELECT count(DISTINCT user_id) AS n FROM balances WHERE user_id > 0").first<{ n: number }>())!.n;

describe("moving D1's balances into account objects", () => {
  it("opens every user's object in steps, resumes after a stop without opening anyone twice, and verifies every total", async () => {
    const total = await usersWithBalances();
    expect(total).toBeGreaterThan(SYNTHETIC);
    const started = Date.now();
    const first = await migrateAccountsStep(env, 100);
    expect(first).toMatchObject({ imported: 100, seen: 0, mismatched: [], failed: [], done: false });
    // A run that stopped after opening the next batch but before its cursor moved: the step is
    // repeated, finds every object opened, and moves nothing twice.
    const second = await migrateAccountsStep(env, 100);
    expect(second.imported).toBe(100);
    await env.DB.prepare("UPDATE account_migration SET cursor = ?").bind(first.cursor).run();
    const repeated = await migrateAccountsStep(env, 100);
    expect(repeated).toMatchObject({ imported: 0, seen: 100, mismatched: [], failed: [], cursor: second.cursor });
    let steps = 3;
    let imported = first.imported + second.imported;
    for (;;) {
      const step = await migrateAccountsStep(env, 100);
      expect(step.failed).toEqual([]);
      expect(step.mismatched).toEqual([]);
      imported += step.imported;
      steps++;
      if (step.done) break;
    }
    const migrateMs = Date.now() - started;
    expect(imported).toBe(total);
    expect(await migrationCursor(env.DB)).toBe(FIRST + SYNTHETIC - 1);
    // A further step after the end opens nobody.
    expect(await migrateAccountsStep(env, 100)).toMatchObject({ imported: 0, seen: 0, done: true });

    const verifyStarted = Date.now();
    let checked = 0;
    let after = 0;
    for (;;) {
      const v = await verifyAccountsStep(env, after, 100);
      expect(v.mismatched).toEqual([]);
      checked += v.checked;
      after = v.next;
      if (v.done) break;
    }
    expect(checked).toBe(total);
    // The measured rate, for the cut-over's estimate (a figure, not a check: docs/architecture/account-objects.md).
    console.log(`account migration: ${total} users in ${steps} steps, opened in ${migrateMs} ms (${Math.round((total * 1000) / migrateMs)}/s), drained and verified in ${Date.now() - verifyStarted} ms (${Math.round((total * 1000) / (Date.now() - verifyStarted))}/s)`);

    const u = FIRST + 3;
    expect(await userStub(env, u).accountBalances(u)).toEqual([
      { account: "change", currencyId: USDT, available: 1_000_003n, frozen: 503n },
    ]);
    expect(await userStub(env, u).accountOpenHolds(u)).toMatchObject([{ hold: "migrated:change:3", amount: 503n, forKind: "migrated" }]);
  });

  it("turns an open spot order's frozen funds into that order's own hold, owned by its pair so a cancel on the objects finds it", async () => {
    const holds = await userStub(env, orderUser).accountOpenHolds(orderUser);
    // 2 BTC at 50 USDT: 100 USDT frozen for the order, nothing left unexplained.
    expect(holds).toMatchObject([{ hold: `spot_order:${orderId}`, account: "change", currencyId: USDT, amount: 10_000_000_000n, spent: 0n, forKind: "spot_order", forId: String(orderId) }]);
    // The pair that books it, as a placement on the objects names it (a cancel and cancel_all ask it).
    expect(await userStub(env, orderUser).accountHolds(orderUser, [`spot_order:${orderId}`])).toMatchObject([{ open: true, owner: `pair:${PAIR}` }]);
    expect(await userStub(env, orderUser).accountOwnedHolds(orderUser, ["spot_order"])).toMatchObject([{ hold: `spot_order:${orderId}`, owner: `pair:${PAIR}` }]);
    expect(await userStub(env, orderUser).accountBalances(orderUser)).toEqual([{ account: "change", currencyId: USDT, available: 90_000_000_000n, frozen: 10_000_000_000n }]);
  });

  it("opens an OCO's leg and its stop's own part as the one hold its pair spends in objects mode, spot_cond:{id}", async () => {
    const holds = await userStub(env, ocoUser).accountOpenHolds(ocoUser);
    expect(holds).toMatchObject([{ hold: `spot_cond:${ocoId}`, currencyId: USDT, amount: 7_000_000_000n, spent: 0n, forKind: "spot_cond", forId: String(ocoId) }]);
    expect(await userStub(env, ocoUser).accountHolds(ocoUser, [`spot_cond:${ocoId}`])).toMatchObject([{ open: true, owner: `pair:${PAIR}` }]);
    expect(await userStub(env, ocoUser).accountBalances(ocoUser)).toEqual([{ account: "change", currencyId: USDT, available: 93_000_000_000n, frozen: 7_000_000_000n }]);
  });

  it("reports the one user whose D1 balance changed after their object was opened", async () => {
    const changed = FIRST + 10;
    await env.DB.prepare("UPDATE balances SET available = available + 1 WHERE user_id = ? AND currency_id = ?").bind(changed, USDT).run();
    const v = await verifyAccountsStep(env, FIRST + 5, 10);
    expect(v).toMatchObject({ checked: 10, next: FIRST + 15, done: false });
    expect(v.mismatched).toEqual([
      { user_id: changed, where: "object" },
      { user_id: changed, where: "read_model" },
    ]);
    // Its object was opened once; opening it again changes nothing and says so.
    const again = await userStub(env, changed).accountImport(changed, [{ account: "change", currencyId: USDT, available: 1_000_011n, frozen: 0n }]);
    expect(again.result).toBe("seen");
  });

  it("is driven through /api/dev/accounts only where the exchange runs locally (npm start), refusing bad input", async () => {
    const cursor = await migrationCursor(env.DB);
    expect(env.DEV_CLOCK).not.toBe("on");
    expect((await post("/dev/accounts/migrate", { limit: 10 }, env)).status).toBe(404);
    expect((await post("/dev/accounts/verify", {}, env)).status).toBe(404);
    expect(await post("/dev/accounts/migrate", { limit: 0 })).toMatchObject({ status: 400, body: { code: "invalid_param", field: "limit" } });
    expect(await post("/dev/accounts/verify", { after: -1 })).toMatchObject({ status: 400, body: { code: "invalid_param", field: "after" } });
    expect(await migrationCursor(env.DB)).toBe(cursor);
    expect(await post("/dev/accounts/migrate", {})).toMatchObject({ status: 200, body: { message: { imported: 0, seen: 0, failed: [], done: true, cursor } } });
    expect(await post("/dev/accounts/verify", { after: FIRST + 20, limit: 5 })).toMatchObject({ status: 200, body: { message: { checked: 5, mismatched: [], next: FIRST + 25, done: false } } });
  });

  it("runs ranges of users side by side, each with its own cursor", async () => {
    const low = { first: FIRST, last: FIRST + 149 };
    const high = { first: FIRST + 150, last: FIRST + 299 };
    const drive = async (range: typeof low) => {
      let seen = 0;
      for (;;) {
        const step = await migrateAccountsStep(env, 40, range);
        expect(step).toMatchObject({ imported: 0, failed: [] });
        seen += step.seen;
        if (step.done) return seen;
      }
    };
    // Every user was opened above: each range finds its 150 opened, none of the other's.
    expect(await Promise.all([drive(low), drive(high)])).toEqual([150, 150]);
    expect([await migrationCursor(env.DB, low), await migrationCursor(env.DB, high)]).toEqual([low.last, high.last]);
    const v = await verifyAccountsStep(env, high.first - 1, 500, high.last);
    expect(v).toMatchObject({ checked: 150, mismatched: [], next: high.last, done: true });
    expect(await post("/dev/accounts/migrate", { first: 10, last: 9 })).toMatchObject({ status: 400, body: { code: "invalid_param", field: "last" } });
  });

  it("opens the treasury's and the other system accounts' shards from D1's system balances, split over the shards, once", async () => {
    const { treasury, fees, deposits } = SYSTEM_USERS;
    const set = (userId: number, currencyId: number, available: number, frozen: number) =>
      env.DB.prepare("INSERT INTO balances (user_id, currency_id, account, available, frozen) VALUES (?1, ?2, 'change', ?3, ?4) ON CONFLICT DO UPDATE SET available = ?3, frozen = ?4")
        .bind(userId, currencyId, available, frozen)
        .run();
    // The treasury: 1,000,003 USDT (3 more than 8 equal parts) and 80 BTC with 9 frozen (a cover); fees 17 BTC;
    // the deposits account below zero, as it is by design (it mirrors money that came from outside).
    await set(treasury, USDT, 1_000_003, 0);
    await set(treasury, BTC, 80, 9);
    await set(fees, BTC, 17, 0);
    await set(deposits, USDT, -5_000, 0);
    const shard = (userId: number, k: number) => systemStub(env, userId, k).systemBalances(userId, k);

    const first = await openSystemAccounts(env);
    expect(first.mismatched).toEqual([]);
    expect(first.seen).toBe(0);
    expect(first.imported).toBeGreaterThanOrEqual(2 * SYSTEM_SHARDS);
    expect(first.skipped).toContainEqual({ user_id: deposits, account: "change", currency_id: USDT, available: "-5000", frozen: "0" });
    const usdt = await Promise.all(Array.from({ length: SYSTEM_SHARDS }, async (_, k) => (await shard(treasury, k)).find((b) => b.currencyId === USDT)));
    expect(usdt.map((b) => b?.available)).toEqual([125_001n, 125_001n, 125_001n, 125_000n, 125_000n, 125_000n, 125_000n, 125_000n]);
    // The frozen BTC is a hold in each shard (the cover's record is still D1's): 2 in shard 0, 1 in the others.
    expect((await shard(treasury, 0)).find((b) => b.currencyId === BTC)).toEqual({ account: "change", currencyId: BTC, available: 10n, frozen: 2n });
    expect(await systemStub(env, treasury, 0).systemHold(treasury, 0, `migrated:change:${BTC}`)).toMatchObject({ amount: 2n, open: true });
    expect((await shard(fees, 0)).find((b) => b.currencyId === BTC)?.available).toBe(3n);
    expect((await shard(fees, 7)).find((b) => b.currencyId === BTC)?.available).toBe(2n);
    // The read model has each shard apart; their sum is D1's balance.
    const sum = await env.DB.prepare("SELECT sum(available) AS a, sum(frozen) AS f FROM system_balances WHERE user_id = ? AND currency_id = ?").bind(treasury, BTC).first();
    expect(sum).toEqual({ a: 80, f: 9 });

    // Run again (a driver that stopped): every shard answers opened before, nothing moves twice.
    expect(await openSystemAccounts(env)).toMatchObject({ imported: 0, seen: first.imported, mismatched: [] });
    expect(await post("/dev/accounts/system", {})).toMatchObject({ status: 200, body: { message: { imported: 0, seen: first.imported, mismatched: [] } } });
    expect((await post("/dev/accounts/system", {}, env)).status).toBe(404);
    expect(await post("/dev/accounts/system", { limit: 5 })).toMatchObject({ status: 400, body: { code: "invalid_param" } });
    // D1 changed after the opening (outside the read-only window): the difference is reported.
    await set(treasury, USDT, 1_000_004, 0);
    expect((await openSystemAccounts(env)).mismatched).toEqual([
      { user_id: treasury, where: "object" },
      { user_id: treasury, where: "read_model" },
    ]);
  });
});
