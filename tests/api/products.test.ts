// Each product declared once (issue #18 §1): the declarations (schemas/products.ts), the
// `wallet_accounts` table (migrations/0021) and the products' hold sources
// (worker/domain/products.ts) agree, and a product made up here — its account added with one
// INSERT, its declaration and hold source written in this file — works through the ledger,
// transfers and the reconciler without a shared file knowing it.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { PRODUCTS, FEE_KINDS, feeKindsOf, productOfFeeKind, switchesOf, type ProductDeclaration, type Products } from "../../schemas/products.ts";
import { reconcile, type Hold, type HoldSource } from "../../worker/domain/ledger/reconcile.ts";
import { holdSourcesOf, PRODUCT_MODULES } from "../../worker/domain/products.ts";
import { transferOwn } from "../../worker/domain/wallet/transfers.ts";
import { applyMovement, balanceOf, SYSTEM, type WalletAccount } from "../../worker/lib/ledger.ts";
import { ApiError } from "../../worker/lib/errors.ts";
import { api, balance, d1Only, makeUser } from "./helpers.ts";
import { seedWalletCurrencies, u8, USDT } from "./wallet-fixtures.ts";

beforeAll(seedWalletCurrencies);

const on: Products = { seconds: true, lever: true, c2c: true, vote: true, insurance: true, earn: true, launch: true, mining: true };

describe("the declarations and the database agree", () => {
  it("has one wallet_accounts row per declared account, owned by the product that declares it", async () => {
    const { results } = await env.DB.prepare("SELECT name, product FROM wallet_accounts ORDER BY name").all<{ name: string; product: string }>();
    const declared = PRODUCTS.flatMap((p) => p.accounts.map((a) => ({ name: a.name as string, product: p.id as string }))).sort((a, b) => a.name.localeCompare(b.name));
    expect(results).toEqual(declared);
    expect(declared.map((d) => d.name)).toEqual(["change", "legal", "lever", "micro"]);
  });

  it("gives every declared product exactly one worker module, and the reconciler every product's hold sources in the order it had", () => {
    expect(PRODUCT_MODULES.map((m) => m.id)).toEqual(PRODUCTS.map((p) => p.id));
    expect(holdSourcesOf().map((s) => s.name)).toEqual(["withdrawals", "spot_orders", "spot_conditional_orders", "micro_orders", "c2c", "lever_positions", "vote_holds", "insurance_covers", "launch", "earn", "mining"]);
  });

  it("reads each switch from its PRODUCT_* variable, and anything but on/true/1 as off", () => {
    expect(switchesOf({ PRODUCT_SECONDS: "on", PRODUCT_LEVER: "TRUE", PRODUCT_C2C: "1", PRODUCT_VOTE: "on", PRODUCT_INSURANCE: "on", PRODUCT_LAUNCH: "on", PRODUCT_EARN: "on", PRODUCT_MINING: "on" })).toEqual({ seconds: true, lever: true, c2c: true, vote: true, insurance: true, earn: true, launch: true, mining: true });
    expect(switchesOf({ PRODUCT_SECONDS: "yes", PRODUCT_LEVER: "off" })).toEqual({ seconds: false, lever: false, c2c: false, vote: false, insurance: false, earn: false, launch: false, mining: false });
  });

  it("names the fee movement kinds of every product that charges a fee, each kind once", () => {
    expect(feeKindsOf("spot")).toEqual(["spot"]);
    expect(feeKindsOf("seconds")).toEqual(["micro_open", "micro_refund"]);
    expect(feeKindsOf("conversion")).toEqual(["conversion"]);
    expect(feeKindsOf("c2c")).toEqual([]);
    expect(feeKindsOf("lever")).toContain("lever_liquidation");
    expect(new Set(FEE_KINDS).size).toBe(FEE_KINDS.length);
    expect(productOfFeeKind("lever_overnight")?.id).toBe("lever");
    expect(productOfFeeKind("transfer")).toBeUndefined();
  });
});

describe("an account that no product declares", () => {
  // D1's ledger module itself (worker/lib/ledger.ts) on D1's books: in objects mode a user's money is not in them.
  it.skipIf(d1Only("D1's ledger module on D1's books"))("is refused by the ledger, and the movement changes nothing", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("10") }] });
    const before = await env.DB.prepare("SELECT count(*) AS n FROM balances").first<{ n: number }>();
    await expect(
      applyMovement(env.DB, `test:nowhere:${user.id}`, "transfer", [
        { userId: user.id, currencyId: USDT, account: "change", dAvailable: -u8("1"), dFrozen: 0n },
        { userId: user.id, currencyId: USDT, account: "nowhere" as WalletAccount, dAvailable: u8("1"), dFrozen: 0n },
      ]),
    ).rejects.toThrow();
    expect(await balanceOf(env.DB, user.id, USDT, "change")).toMatchObject({ available: u8("10") });
    expect((await env.DB.prepare("SELECT count(*) AS n FROM balances").first<{ n: number }>())!.n).toBe(before!.n);
    expect(await env.DB.prepare("SELECT 1 FROM movements WHERE key = ?").bind(`test:nowhere:${user.id}`).first()).toBeNull();
  });

  it("is refused by the transfer endpoint with a clear message", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("10") }] });
    const r = await api("/wallet/change", { token: user.token, body: { number: "1", from_field: "change", to_field: "savings", currency_id: USDT } });
    expect(r.body).toMatchObject({ type: "error", code: "invalid_param" });
    expect(await balance(user.id, USDT)).toEqual([u8("10"), 0n]);
  });
});

// Its money through D1's ledger module, transfers and reconciler on D1's books (a product on the
// account objects declares its legs and holds there instead: docs/architecture/account-objects.md).
describe.skipIf(d1Only("D1's ledger module on D1's books"))("a product made up in this test", () => {
  // Its declaration, as it would stand in schemas/products.ts …
  const savings: ProductDeclaration = {
    id: "savings",
    switch: "PRODUCT_SAVINGS",
    accounts: [{ name: "savings", label: "assets_acct_savings" }],
    transfer: { drainWhenOff: false },
    feeKinds: [],
    paths: ["savings"],
    console: [],
  };
  const catalogue = [...PRODUCTS, savings];
  const SAVINGS = "savings" as WalletAccount;
  // … its hold source, as it would stand in worker/domain/savings/product.ts …
  const savingsHolds: HoldSource = {
    name: "savings_locks",
    async load(db) {
      const { results } = await db.prepare("SELECT user_id, currency_id, CAST(SUM(units) AS TEXT) AS units FROM savings_locks GROUP BY user_id, currency_id").all<{ user_id: number; currency_id: number; units: string }>();
      return results.map((r): Hold => ({ userId: r.user_id, currencyId: r.currency_id, account: SAVINGS, units: BigInt(r.units) }));
    },
  };
  const modules = [...PRODUCT_MODULES, { id: "savings" as never, holdSources: [savingsHolds] }];

  beforeAll(async () => {
    // … and its migration: its account with one INSERT, no table rebuilt.
    await env.DB.batch([
      env.DB.prepare("INSERT INTO wallet_accounts (name, product) VALUES ('savings', 'savings')"),
      env.DB.prepare("CREATE TABLE savings_locks (user_id INTEGER NOT NULL, currency_id INTEGER NOT NULL, units INTEGER NOT NULL)"),
    ]);
  });

  it("takes money in by a transfer while it is on, and gives it back", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
    await transferOwn(env.DB, { ...on, savings: true } as Products, user.id, { currency_id: USDT, from_field: "change", to_field: SAVINGS, number: "40" }, catalogue);
    expect(await balanceOf(env.DB, user.id, USDT, "change")).toMatchObject({ available: u8("60"), frozen: 0n });
    expect(await balanceOf(env.DB, user.id, USDT, SAVINGS)).toMatchObject({ available: u8("40"), frozen: 0n });
    await transferOwn(env.DB, { ...on, savings: true } as Products, user.id, { currency_id: USDT, from_field: SAVINGS, to_field: "micro", number: "15" }, catalogue);
    expect(await balanceOf(env.DB, user.id, USDT, SAVINGS)).toMatchObject({ available: u8("25") });
    expect(await balanceOf(env.DB, user.id, USDT, "micro")).toMatchObject({ available: u8("15") });
    expect((await reconcile(env.DB, holdSourcesOf(modules))).differences).toEqual([]);
  });

  it("refuses a transfer into it or out of it while it is switched off, and moves nothing", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
    const off = { ...on, savings: false } as Products;
    await expect(transferOwn(env.DB, off, user.id, { currency_id: USDT, from_field: "change", to_field: SAVINGS, number: "1" }, catalogue)).rejects.toMatchObject({ key: "feature_off" });
    await expect(transferOwn(env.DB, off, user.id, { currency_id: USDT, from_field: SAVINGS, to_field: "change", number: "1" }, catalogue)).rejects.toBeInstanceOf(ApiError);
    expect(await balanceOf(env.DB, user.id, USDT, "change")).toMatchObject({ available: u8("100") });
  });

  it("has its frozen funds explained by its own hold source, which the reconciler counts once it is listed", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("50"), account: SAVINGS }] });
    const lock = u8("20");
    // A lock: the money frozen in the account and the row that explains it, in one batch.
    await env.DB.batch([
      env.DB.prepare("INSERT INTO movements (key, kind, created_at) VALUES (?, 'savings_lock', ?)").bind(`savings:lock:${user.id}`, Date.now()),
      env.DB.prepare("INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, created_at) VALUES (?, ?, ?, 'savings', ?, ?, 'savings_lock', ?)")
        .bind(`savings:lock:${user.id}`, user.id, USDT, (-lock).toString(), lock.toString(), Date.now()),
      env.DB.prepare("INSERT INTO savings_locks (user_id, currency_id, units) VALUES (?, ?, ?)").bind(user.id, USDT, lock.toString()),
    ]);
    expect(await balanceOf(env.DB, user.id, USDT, SAVINGS)).toMatchObject({ available: u8("30"), frozen: lock });

    const withProduct = await reconcile(env.DB, holdSourcesOf(modules));
    expect(withProduct.differences).toEqual([]);
    expect(withProduct.stats.hold_sources).toContain("savings_locks");

    // Without its module the same frozen money is unexplained: the reconciler's holds are the products'.
    const without = await reconcile(env.DB);
    expect(without.differences).toEqual([{ check: "frozen_vs_holds", user_id: user.id, currency_id: USDT, account: "savings", frozen: lock.toString(), holds: "0" }]);
  });

  it("keeps its balances in the books like any account: the fee account may be credited from it", async () => {
    const user = await makeUser({ balances: [{ currencyId: USDT, units: u8("5"), account: SAVINGS }] });
    await applyMovement(env.DB, `savings:fee:${user.id}`, "savings_fee", [
      { userId: user.id, currencyId: USDT, account: SAVINGS, dAvailable: -u8("1"), dFrozen: 0n },
      { userId: SYSTEM.fees, currencyId: USDT, account: "change", dAvailable: u8("1"), dFrozen: 0n },
    ]);
    expect(await balanceOf(env.DB, user.id, USDT, SAVINGS)).toMatchObject({ available: u8("4") });
    expect((await reconcile(env.DB, holdSourcesOf(modules))).differences).toEqual([]);
  });
});
