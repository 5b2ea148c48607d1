/**
 * Reads in objects mode (issue #28, worker/domain/wallet/object-reads.ts): with `ACCOUNTS =
 * "objects"` a user's money is what their account object holds, so the wallet screens, the holds
 * list and what the user can withdraw answer the object exactly; the statement lists the object's
 * movements (from D1's read model) with their kinds, the user's own latest one included before any
 * background drain; the reconciler reports an object or a read model that disagrees, and nothing
 * when they agree; the liabilities proof and the operator's user screen read the read model.
 *
 * Money is put into the objects directly through their calls (the products are wired elsewhere).
 * Requests go through the Worker's own entry point with `ACCOUNTS = "objects"` in its environment
 * (a test-only environment, as a deployment with the switch on has); the same requests with the
 * test Worker's own environment (`ACCOUNTS = "d1"`) answer D1, unchanged.
 */
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../worker/index.ts";
import type { AccountLeg } from "../../durable/account/types.ts";
import { userStub } from "../../worker/lib/notify.ts";
import { movementStatements } from "../../worker/lib/ledger.ts";
import { reconcile, reconcileAndRecord } from "../../worker/domain/ledger/reconcile.ts";
import { holdSourcesOf } from "../../worker/domain/products.ts";
import { accountReads } from "../../worker/domain/wallet/object-reads.ts";
import { compareObject, reconcileObjects } from "../../worker/domain/ledger/reconcile-objects.ts";
import { runSnapshot, startSnapshot } from "../../worker/domain/transparency/snapshot.ts";
import { userDetail, userLedger } from "../../worker/domain/operator/users.ts";
import { migrateAccountsStep, verifyAccountsStep } from "../../worker/domain/ledger/account-objects.ts";
import { api, d1Only, drainPair, makeUser, seedSpotPair, type TestUser } from "./helpers.ts";
import { buy, PAIR, trader } from "./spot-fixtures.ts";
import { BTC, makeOperator, seedWalletCurrencies, u8, USDT } from "./wallet-fixtures.ts";

const OBJECTS: Env = { ...env, ACCOUNTS: "objects" };

/**
 * Skipped in objects mode: each test sets the test Worker's own D1 answers beside an environment
 * with the switch on, and opens the objects from D1 itself (the fixtures open them there already).
 */
const SIDE_BY_SIDE = d1Only("D1 and ACCOUNTS=objects side by side in one Worker");

/** A signed decimal string at scale 8 as minimal units. */
const signed = (s: string): bigint => (s.startsWith("-") ? -u8(s.slice(1)) : u8(s));

/** A request to the Worker with the switch on. */
async function objectsApi(path: string, user: TestUser, body?: unknown): Promise<{ status: number; body: any }> {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { lang: "en", authorization: user.token, "cf-connecting-ip": `198.18.28.${Math.floor(Math.random() * 255)}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await worker.fetch(
    new Request(`http://exchange.test/api${path}`, { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) }),
    OBJECTS,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: await res.json() };
}

/** Opens the user's object as the migration does (500.5 USDT; 0.3 BTC of which 0.05 held) and switches its background drain off. */
async function openObject(userId: number) {
  const stub = userStub(env, userId);
  await stub.accountImport(userId, [
    { account: "change", currencyId: USDT, available: u8("500.5"), frozen: 0n },
    { account: "change", currencyId: BTC, available: u8("0.25"), frozen: u8("0.05") },
  ]);
  // No alarm: what reaches D1 is what a read (or the test) drains.
  await runInDurableObject(stub, async (_instance, state) => {
    await state.storage.deleteAlarm();
  });
  return stub;
}

/** A user with 1,000 USDT in D1 (what the switch off shows) and an account object opened with other amounts. */
async function userWithObject() {
  const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("1000") }] });
  return { user, stub: await openObject(user.id) };
}

/** Two holds (a spot order, a withdrawal), a fill of the order, a transfer to the contract account. */
async function moveMoney(id: number, stub: ReturnType<typeof userStub>) {
  expect((await stub.accountReserve(id, { forKind: "spot_order", forId: "701", account: "change", currencyId: USDT, amount: u8("120") })).result).toBe("reserved");
  expect((await stub.accountReserve(id, { forKind: "withdrawal", forId: "88", account: "change", currencyId: USDT, amount: u8("30") })).result).toBe("reserved");
  const fill: AccountLeg = {
    key: `trade:${PAIR}:9001:buyer`,
    ops: [
      { t: "spend", hold: "spot_order:701", amount: u8("100") },
      { t: "credit", account: "change", currencyId: BTC, amount: u8("0.001") },
    ],
  };
  expect((await stub.accountApply(id, [fill]))[0]!.result).toBe("applied");
  expect(await stub.accountTransfer(id, { key: "transfer:e2e-1", from: "change", to: "lever", currencyId: USDT, amount: u8("50.5") })).toBe("moved");
}

async function drainAll(stub: ReturnType<typeof userStub>) {
  for (let i = 0; i < 100; i++) if (!(await stub.accountDrain()).more) return;
  throw new Error("drain never ended");
}

beforeAll(async () => {
  await seedWalletCurrencies();
});

describe.skipIf(SIDE_BY_SIDE)("exact reads from the account object", () => {
  it("shows the object's balances on the wallet screens, its holds on the holds screen and its available funds as withdrawable; the switch off shows D1", async () => {
    const { user, stub } = await userWithObject();
    await moveMoney(user.id, stub);
    // The object now: USDT change 500.5 - 120 - 30 - 50.5 = 300 available, 20 + 30 frozen; lever 50.5; BTC 0.251 / 0.05.
    const list = await objectsApi("/wallet/list", user, {});
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const change = list.body.message.change_wallet.balance;
    expect(change.find((r: any) => r.currency === USDT)).toMatchObject({ change_balance: "300.00000000", lock_change_balance: "50.00000000" });
    expect(change.find((r: any) => r.currency === BTC)).toMatchObject({ change_balance: "0.25100000", lock_change_balance: "0.05000000" });
    expect(list.body.message.lever_wallet.balance.find((r: any) => r.currency === USDT)).toMatchObject({ lever_balance: "50.50000000", lock_lever_balance: "0.00000000" });

    const spot = await objectsApi("/user/user_wallet", user);
    expect(spot.body.message.find((r: any) => r.currency === USDT)).toMatchObject({ change_balance: "300.00000000", lock_change_balance: "50.00000000" });

    const info = await objectsApi("/wallet/get_info", user, { currency: USDT });
    expect(info.body.message).toMatchObject({ change_balance: "300.00000000", lock_change_balance: "50.00000000" });

    const holds = await objectsApi("/wallet/holds", user);
    expect(holds.status, JSON.stringify(holds.body)).toBe(200);
    const groups = holds.body.message.groups;
    expect(groups.find((g: any) => g.currency_id === USDT && g.account === "change")).toEqual({
      currency_id: USDT,
      currency: "USDT",
      account: "change",
      frozen: "50.00000000",
      holds: [
        { purpose: "spot_order", amount: "20.00000000", ref: { type: "spot_order", id: 701 }, label: "" },
        { purpose: "withdrawal", amount: "30.00000000", ref: { type: "withdrawal", id: 88 }, label: "" },
      ],
    });
    // The opening's frozen BTC, which no record explained, stays listed as such.
    expect(groups.find((g: any) => g.currency_id === BTC)).toMatchObject({ frozen: "0.05000000", holds: [{ purpose: "unexplained", amount: "0.05000000", ref: { type: "other", id: null } }] });

    // The switch off: the same screens read D1 (1,000 USDT, nothing frozen), as before.
    const d1 = await api("/wallet/list", { token: user.token, body: {} });
    expect(d1.body.message.change_wallet.balance.find((r: any) => r.currency === USDT)).toMatchObject({ change_balance: "1000.00000000", lock_change_balance: "0.00000000" });
    expect((await api("/wallet/get_info", { token: user.token, body: { currency: USDT } })).body.message.change_balance).toBe("1000.00000000");
    expect((await api("/wallet/holds", { token: user.token })).body.message.groups).toEqual([]);
  });
});

describe.skipIf(SIDE_BY_SIDE)("the statement from the read model", () => {
  it("lists every movement of the object with its kind and record, the user's latest included before any background drain, then the ledger before the cut-over", async () => {
    // Migrated as a running exchange's user is: D1's balances (a deposit of each coin, some BTC
    // held) are what the object is opened with.
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("500.5") }, { currencyId: BTC, units: u8("0.3") }] });
    await env.DB.batch(movementStatements(env.DB, `test-hold:${user.id}`, "test_hold", [{ userId: user.id, currencyId: BTC, account: "change", dAvailable: -u8("0.05"), dFrozen: u8("0.05") }]));
    const stub = await openObject(user.id);
    await moveMoney(user.id, stub);
    // Nothing of it is in D1 yet (no alarm): the statement's own drain must bring it.
    expect((await env.DB.prepare("SELECT count(*) AS n FROM account_movements WHERE user_id = ?").bind(user.id).first<{ n: number }>())!.n).toBe(0);
    const lines: any[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const r = await objectsApi(`/wallet/statement?limit=2${cursor ? `&cursor=${cursor}` : ""}`, user);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      lines.push(...r.body.message.lines);
      cursor = r.body.message.next;
      if (cursor === null) break;
    }
    const coin = (id: number) => (id === USDT ? "USDT" : "BTC");
    expect(lines.map((l) => [l.kind, coin(l.currency_id), l.account, l.amount, l.held, l.balance_after, l.held_after, l.ref])).toEqual([
      ["transfer", "USDT", "lever", "50.50000000", "0.00000000", "50.50000000", "0.00000000", { type: "transfer", id: null }],
      ["transfer", "USDT", "change", "-50.50000000", "0.00000000", "350.00000000", "50.00000000", { type: "transfer", id: null }],
      ["spot", "BTC", "change", "0.00100000", "0.00000000", "0.30100000", "0.05000000", { type: "spot_pair", id: PAIR }],
      ["spot", "USDT", "change", "-100.00000000", "-100.00000000", "400.50000000", "50.00000000", { type: "spot_pair", id: PAIR }],
      ["withdrawal_freeze", "USDT", "change", "0.00000000", "30.00000000", "500.50000000", "150.00000000", { type: "withdrawal", id: 88 }],
      ["spot_freeze", "USDT", "change", "0.00000000", "120.00000000", "500.50000000", "120.00000000", { type: "spot_order", id: 701 }],
      // The migration's opening is not a line: below it, D1's ledger up to the cut-over.
      ["test_hold", "BTC", "change", "0.00000000", "0.05000000", "0.30000000", "0.05000000", { type: "other", id: null }],
      ["deposit", "BTC", "change", "0.30000000", "0.00000000", "0.30000000", "0.00000000", { type: "other", id: null }],
      ["deposit", "USDT", "change", "500.50000000", "0.00000000", "500.50000000", "0.00000000", { type: "other", id: null }],
    ]);
    // Every line's amount adds up to the object's balance of its coin and account.
    for (const b of await stub.accountBalances(user.id)) {
      const sum = lines.filter((l) => l.currency_id === b.currencyId && l.account === b.account).reduce((t, l) => t + signed(l.amount), 0n);
      expect(sum, `${b.account} ${b.currencyId}`).toBe(b.available + b.frozen);
    }

    // One coin only: the same lines of it, across both parts.
    const btc = (await objectsApi(`/wallet/statement?currency_id=${BTC}&limit=100`, user)).body.message;
    expect(btc.lines.map((l: any) => [l.kind, l.balance_after])).toEqual([
      ["spot", "0.30100000"],
      ["test_hold", "0.30000000"],
      ["deposit", "0.30000000"],
    ]);
    expect(btc.next).toBeNull();

    // A movement right after: the next read has it at the top, with no wait for any drain.
    expect((await stub.accountApply(user.id, [{ key: "order:701:cancel", ops: [{ t: "release", hold: "spot_order:701", amount: "rest" }] }]))[0]!.result).toBe("applied");
    const top = (await objectsApi("/wallet/statement?limit=1", user)).body.message.lines[0];
    expect(top).toMatchObject({ kind: "spot_release", amount: "0.00000000", held: "-20.00000000", balance_after: "350.00000000", held_after: "30.00000000", ref: { type: "spot_order", id: 701 } });

    // The switch off: the statement is D1's ledger alone, as before.
    const d1 = (await api("/wallet/statement", { token: user.token })).body.message.lines;
    expect(d1.map((l: any) => [l.kind, coin(l.currency_id), l.amount])).toEqual([
      ["test_hold", "BTC", "0.00000000"],
      ["deposit", "BTC", "0.30000000"],
      ["deposit", "USDT", "500.50000000"],
    ]);
  });
});

describe.skipIf(SIDE_BY_SIDE)("operator screens and the liabilities proof read the read model", () => {
  it("counts each user's object as drained into account_balances", async () => {
    const { user, stub } = await userWithObject();
    await moveMoney(user.id, stub);
    await drainAll(stub);
    const op = await makeOperator();
    const detail = await userDetail(env.DB, op.id, user.id, true);
    expect(detail.balances.filter((b) => b.currency_id === USDT).map((b) => [b.account, b.available, b.frozen])).toEqual([
      ["change", "300.00000000", "50.00000000"],
      ["lever", "50.50000000", "0.00000000"],
    ]);
    expect((await userDetail(env.DB, op.id, user.id)).balances.map((b) => [b.account, b.available])).toEqual([["change", "1000.00000000"]]);
    // The user's rows: the object's movements (its keys as they are, the opening included), then D1's ledger.
    const rows = (await userLedger(env.DB, user.id, { page: 1, limit: 50 }, true)).lists;
    expect(rows.map((r) => [r.movement_key, r.kind, r.d_available, r.d_frozen])).toEqual([
      ["transfer:e2e-1#to", "transfer", "50.50000000", "0.00000000"],
      ["transfer:e2e-1", "transfer", "-50.50000000", "0.00000000"],
      [`trade:${PAIR}:9001:buyer#1`, "spot", "0.00100000", "0.00000000"],
      [`trade:${PAIR}:9001:buyer#0`, "spot", "0.00000000", "-100.00000000"],
      ["withdrawal:88:reserve", "withdrawal_freeze", "-30.00000000", "30.00000000"],
      ["spot_order:701:reserve", "spot_freeze", "-120.00000000", "120.00000000"],
      ["migrated:change:1:reserve", "account_opening", "-0.05000000", "0.05000000"],
      ["migrate:opening#1", "account_opening", "0.30000000", "0.00000000"],
      ["migrate:opening#0", "account_opening", "500.50000000", "0.00000000"],
      [expect.stringMatching(/^test-credit:/), "deposit", "1000.00000000", "0.00000000"],
    ]);
    expect((await userLedger(env.DB, user.id, { page: 1, limit: 50 })).lists.map((r) => r.kind)).toEqual(["deposit"]);

    const id = await startSnapshot(env.DB, { trigger: "operator", now: Date.now() });
    const snapshot = await runSnapshot(OBJECTS, id!, { statements: 900, ms: 60_000 });
    // Published: the read model's balances equal its movements' sums, nobody negative.
    expect(snapshot).toMatchObject({ phase: "done", status: "published" });
    const mineThere = await env.DB.prepare("SELECT currency_id, CAST(amount AS TEXT) AS a FROM liab_balances WHERE snapshot_id = ? AND user_id = ? ORDER BY currency_id").bind(id, user.id).all<{ currency_id: number; a: string }>();
    // Liabilities are available + frozen of every account: 300 + 50 + 50.5 USDT, 0.301 BTC.
    expect(mineThere.results.map((r) => [r.currency_id, BigInt(r.a)])).toEqual([
      [BTC, u8("0.301")],
      [USDT, u8("400.5")],
    ]);
  });
});

describe.skipIf(SIDE_BY_SIDE)("the reconciler in objects mode", () => {
  it("finds nothing when object, read model and movements agree, and reports a planted difference in each", async () => {
    const { user, stub } = await userWithObject();
    await moveMoney(user.id, stub);
    await drainAll(stub);
    expect(await compareObject(env, user.id)).toEqual([]);

    // A movement the object never made, written into the read model (the trigger keeps its sum).
    await env.DB.prepare("INSERT INTO account_movements (user_id, seq, ref, account, currency_id, d_available, d_frozen, created_at) VALUES (?, 100000, 'planted', 'change', ?, 7, 0, 0)")
      .bind(user.id, USDT)
      .run();
    expect(await compareObject(env, user.id)).toEqual([
      { check: "object_vs_read_model", user_id: user.id, currency_id: USDT, account: "change", object: `${u8("300")}/${u8("50")}`, read_model: `${u8("300") + 7n}/${u8("50")}` },
    ]);

    // A read-model balance edited behind its movements' back.
    const other = await userWithObject();
    await drainAll(other.stub);
    await env.DB.prepare("UPDATE account_balances SET frozen = frozen + 3 WHERE user_id = ? AND currency_id = ? AND account = 'change'").bind(other.user.id, BTC).run();
    const run = await reconcileObjects(env, 1000);
    expect(run.busy).toEqual([]);
    const mine = run.differences.filter((d) => d.user_id === user.id || d.user_id === other.user.id);
    expect(mine).toContainEqual({ check: "read_model_vs_movements", user_id: other.user.id, currency_id: BTC, account: "change", balance: `${u8("0.25")}/${u8("0.05") + 3n}`, movements: `${u8("0.25")}/${u8("0.05")}` });
    expect(mine).toContainEqual(expect.objectContaining({ check: "object_vs_read_model", user_id: other.user.id, currency_id: BTC }));
    expect(mine).toContainEqual(expect.objectContaining({ check: "object_vs_read_model", user_id: user.id, currency_id: USDT }));

    // The recorded report (the cron's and the operator's) carries them, and is not ok.
    const report = await reconcileAndRecord(env.DB, "operator", OBJECTS);
    expect(report.ok).toBe(false);
    expect(report.differences).toContainEqual(expect.objectContaining({ check: "read_model_vs_movements", user_id: other.user.id }));
  });

  it("checks frozen funds against their records with the object itself: a hold the read model has not received is no difference, a hold without its record is", async () => {
    const user = await makeUser();
    const stub = await openObject(user.id);
    await drainAll(stub);
    const w = await env.DB.prepare("INSERT INTO withdrawals (user_id, currency_id, address, amount, fee, freeze_key, created_at) VALUES (?, ?, 'T-address', ?, ?, ?, ?) RETURNING id")
      .bind(user.id, USDT, Number(u8("9")), Number(u8("1")), `withdrawal-freeze:reads28:${user.id}`, Date.now())
      .first<{ id: number }>();
    expect((await stub.accountReserve(user.id, { forKind: "withdrawal", forId: String(w!.id), account: "change", currencyId: USDT, amount: u8("10") })).result).toBe("reserved");
    // The read model still says nothing is frozen in USDT (no drain since): the object decides.
    const reads = accountReads(OBJECTS)!;
    const mine = async () => (await reconcile(env.DB, holdSourcesOf(), reads)).differences.filter((d) => d.check === "frozen_vs_holds" && d.user_id === user.id && d.currency_id === USDT);
    expect(await mine()).toEqual([]);

    // Frozen money no record explains (an order the pair never recorded) is reported.
    expect((await stub.accountReserve(user.id, { forKind: "spot_order", forId: "999999", account: "change", currencyId: USDT, amount: u8("5") })).result).toBe("reserved");
    // (found once drained, as the object's alarm drains within a second of the write)
    await drainAll(stub);
    expect(await mine()).toEqual([{ check: "frozen_vs_holds", user_id: user.id, currency_id: USDT, account: "change", frozen: String(u8("15")), holds: String(u8("10")) }]);
  });
});

describe.skipIf(SIDE_BY_SIDE)("a migrated user", () => {
  it("sees the same wallet, holds, withdrawable balance and statement with the switch on as before the cut-over", async () => {
    await seedSpotPair();
    const u = await trader("1000", "0.5");
    const placed = await buy(u.token, { price: "50", num: "2" });
    expect(placed.body.type, JSON.stringify(placed.body)).toBe("ok");
    await drainPair(PAIR);
    const range = { first: u.id, last: u.id };
    expect(await migrateAccountsStep(env, 10, range)).toMatchObject({ imported: 1, mismatched: [], failed: [] });
    expect((await verifyAccountsStep(env, u.id - 1, 10, u.id)).mismatched).toEqual([]);

    const reads: [string, unknown?][] = [["/wallet/list", {}], ["/user/user_wallet"], ["/wallet/get_info", { currency: USDT }], ["/wallet/holds"], ["/wallet/statement?limit=100"]];
    for (const [path, body] of reads) {
      const before = await api(path, { token: u.token, body });
      const after = await objectsApi(path, u, body);
      expect(after.body, path).toEqual(before.body);
    }
    // (the statement compared is not empty: the two deposits and the order's freeze)
    expect((await objectsApi("/wallet/statement", u)).body.message.lines.map((l: any) => l.kind)).toEqual(["spot_freeze", "deposit", "deposit"]);
    // The order's frozen USDT is its own hold in the object, shown with its pair.
    const holds = (await objectsApi("/wallet/holds", u)).body.message.groups;
    expect(holds).toEqual([
      expect.objectContaining({ currency_id: USDT, holds: [expect.objectContaining({ purpose: "spot_order", ref: { type: "spot_order", id: Number(placed.body.message.order_id) }, label: "BTC/USDT" })] }),
    ]);
  });
});
