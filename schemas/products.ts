/**
 * The products, each declared once (issue #18 §1; STYLE's growth map: a new product is a
 * declaration here + a domain folder + a feature folder). Pure data shared by the web app and the
 * worker: the ledger's account names, the transfer screen and endpoint, the asset centre's tabs,
 * the switches (`PRODUCT_*` in wrangler.toml), the screens hidden with a product, the console's
 * pages and the fee movement kinds all read this list instead of spelling the products out.
 *
 * What stays with the product itself: its hold sources (worker/domain/<area>/product.ts, listed
 * in worker/domain/products.ts for the reconciler) and its account's row in `wallet_accounts`
 * (one INSERT in the product's own migration: the balances tables check accounts against it).
 */

export interface AccountDeclaration {
  /** The ledger's account name (balances.account, the spec's `from_field`/`to_field`, `{name}_wallet` in /api/wallet/list). */
  name: string;
  /** Message key (web/messages) of the account's name as the asset centre shows it. */
  label: string;
}

export interface ProductDeclaration {
  /** The product's id; a switched product's id is its key in GET /api/cfg/kefu `products`. */
  id: string;
  /** The wrangler.toml variable that switches it on ("on", "true" or "1"); null: always on. */
  switch: string | null;
  /** Wallet accounts it owns (none: it works on another product's account, as conversion does on spot's). */
  accounts: readonly AccountDeclaration[];
  /**
   * Transfers between one's own accounts: its accounts take money in while it is on and give it
   * out while it is on; with `drainWhenOff` they still give it out when it is switched off (open
   * positions can still be closed then, and their money must not be trapped by the switch).
   */
  transfer: { drainWhenOff: boolean };
  /**
   * Ledger movement kinds whose rows on the fee account (SYSTEM.fees, user 0) are fees users paid
   * to this product: a credit is a fee charged, a debit is a fee given back (a refused or revoked
   * open refunds its fee), so the fee of a kind is the sum of its fee-account rows.
   */
  feeKinds: readonly string[];
  /** First path segments of its screens (`/trade…`): hidden, with their links and tabs, when it is off. */
  paths: readonly string[];
  /**
   * Its pages in the operator console, label = message key: shown while it is on, or always with
   * `offToo` (settings an operator prepares before switching the product on).
   */
  console: readonly { path: string; label: string; offToo?: boolean }[];
}

export const PRODUCTS = [
  {
    id: "spot",
    switch: null,
    accounts: [{ name: "change", label: "assets_acct_change" }],
    transfer: { drainWhenOff: false },
    // One movement per pair batch carries the fills, their fees and the freezes/releases, netted per
    // account: its fee-account rows are the batch's total; each user's fee is in spot_trades
    // (buyer_fee, seller_fee).
    feeKinds: ["spot"],
    paths: [],
    console: [],
  },
  {
    id: "seconds",
    switch: "PRODUCT_SECONDS",
    accounts: [{ name: "micro", label: "assets_acct_micro" }],
    transfer: { drainWhenOff: false },
    feeKinds: ["micro_open", "micro_refund"],
    paths: ["trade"],
    console: [{ path: "/admin/seconds", label: "op_nav_seconds", offToo: true }],
  },
  {
    id: "c2c",
    switch: "PRODUCT_C2C",
    accounts: [{ name: "legal", label: "assets_acct_legal" }],
    transfer: { drainWhenOff: false },
    // C2C charges no fee.
    feeKinds: [],
    paths: ["legal"],
    console: [
      { path: "/admin/c2c-merchants", label: "op_nav_c2c_merchants" },
      { path: "/admin/c2c-adverts", label: "op_nav_c2c_adverts" },
      { path: "/admin/c2c-appeals", label: "op_nav_c2c_appeals" },
    ],
  },
  {
    id: "lever",
    switch: "PRODUCT_LEVER",
    accounts: [{ name: "lever", label: "assets_acct_lever" }],
    transfer: { drainWhenOff: true },
    // Open, each night, the close (one kind per close reason) and the refund of a refused or revoked open.
    feeKinds: ["lever_open", "lever_overnight", "lever_close", "lever_profit", "lever_loss", "lever_liquidation", "lever_cap", "lever_refund", "lever_revoke"],
    paths: ["lever"],
    console: [],
  },
  {
    id: "conversion",
    switch: null,
    accounts: [],
    transfer: { drainWhenOff: false },
    feeKinds: ["conversion"],
    paths: [],
    console: [],
  },
  {
    // Listing votes (issue #19 §3): no account of its own; the minimum balance a voter holds for a
    // round is frozen in their own spot account (worker/domain/vote/product.ts). No fee: no paid votes.
    id: "vote",
    switch: "PRODUCT_VOTE",
    accounts: [],
    transfer: { drainWhenOff: false },
    feeKinds: [],
    paths: ["vote"],
    console: [{ path: "/admin/vote", label: "op_nav_vote" }],
  },
  {
    // Contract-asset cover (issue #19 §4): no account of its own; the premium is paid from `change`
    // to the treasury (not a fee), the cover is reserved in the treasury and paid into `micro`.
    id: "insurance",
    switch: "PRODUCT_INSURANCE",
    accounts: [],
    transfer: { drainWhenOff: false },
    feeKinds: [],
    paths: ["insurance"],
    console: [{ path: "/admin/insurance", label: "op_nav_insurance", offToo: true }],
  },
  {
    // Launch subscriptions (issue #19 §2): no account of its own; commitments and locked tokens are
    // frozen in the user's spot account, the supply for sale in the treasury's. It charges no fee.
    id: "launch",
    switch: "PRODUCT_LAUNCH",
    accounts: [],
    transfer: { drainWhenOff: false },
    feeKinds: [],
    paths: ["launch"],
    console: [{ path: "/admin/launch", label: "op_nav_launch" }],
  },
  {
    // Savings (issue #19 §1): no account of its own; principal frozen in the user's spot account,
    // the interest budget frozen in the treasury's (worker/domain/earn/product.ts). No fee.
    id: "earn",
    switch: "PRODUCT_EARN",
    accounts: [],
    transfer: { drainWhenOff: false },
    feeKinds: [],
    paths: ["earn"],
    console: [{ path: "/admin/earn", label: "op_nav_earn", offToo: true }],
  },
  {
    // Mining plans (issue #20 §1): no account of its own; shares are paid from `change` to the
    // treasury, approved pool payouts are held in the treasury (worker/domain/mining/product.ts)
    // and paid into `change`. Its stated fee stays with the house (released in the treasury), not
    // on the fee account.
    id: "mining",
    switch: "PRODUCT_MINING",
    accounts: [],
    transfer: { drainWhenOff: false },
    feeKinds: [],
    paths: ["mining"],
    console: [{ path: "/admin/mining", label: "op_nav_mining", offToo: true }],
  },
] as const satisfies readonly ProductDeclaration[];

export type Product = (typeof PRODUCTS)[number];
export type ProductId = Product["id"];
/** A wallet account of some product: "change" | "micro" | "legal" | "lever". */
export type AccountName = Product["accounts"][number]["name"];
/** Products with a switch; their ids are the keys of `Products`. */
export type SwitchedProduct = Extract<Product, { switch: string }>;
export type SwitchedProductId = SwitchedProduct["id"];
export type SwitchName = SwitchedProduct["switch"];
/** Which switched products are on in this deployment (GET /api/cfg/kefu `products`). */
export type Products = Record<SwitchedProductId, boolean>;
/** The message key of an account's name. */
export type AccountLabelKey = Product["accounts"][number]["label"];

/** A list of declarations: PRODUCTS, or in a test PRODUCTS plus a made-up product (tests/api/products.test.ts). */
export type Catalogue = readonly ProductDeclaration[];

/** Every wallet account, in the products' order (the asset centre's tab order). */
export const ACCOUNT_NAMES = PRODUCTS.flatMap((p) => p.accounts.map((a) => a.name)) as readonly AccountName[] as readonly [AccountName, ...AccountName[]];

/** The switched products' ids, in order. */
export const SWITCHED_PRODUCTS = PRODUCTS.flatMap((p) => (p.switch === null ? [] : [p.id])) as SwitchedProductId[];

export function productById(id: ProductId): Product {
  return PRODUCTS.find((p) => p.id === id)!;
}

/** The product that owns an account, or undefined for a name that is no account. */
export function productOfAccount(account: string, catalogue: Catalogue = PRODUCTS): ProductDeclaration | undefined {
  return catalogue.find((p) => p.accounts.some((a) => a.name === account));
}

/** Whether a name is a wallet account. */
export function isAccountName(v: string | null | undefined): v is AccountName {
  return v != null && productOfAccount(v) !== undefined;
}

/** The message key of an account's name. */
export function accountLabelKey(account: AccountName): AccountLabelKey {
  for (const p of PRODUCTS) for (const a of p.accounts) if (a.name === account) return a.label;
  throw new Error(`unknown account ${account}`);
}

/** The movement kinds whose fee-account rows are fees of this product (empty when it charges none). */
export function feeKindsOf(id: ProductId): readonly string[] {
  return productById(id).feeKinds;
}

/** Every fee movement kind of every product (the rebates job reads the fee account's rows of these). */
export const FEE_KINDS: readonly string[] = PRODUCTS.flatMap((p) => p.feeKinds);

/** The product a movement kind charges a fee for, or undefined when the kind is no fee source. */
export function productOfFeeKind(kind: string): Product | undefined {
  return PRODUCTS.find((p) => (p.feeKinds as readonly string[]).includes(kind));
}

/**
 * Whether a product is on: an unswitched product always is; a switched one once `products` says
 * so (null: not known yet, so off: nothing switched off is ever offered, even briefly).
 */
export function productOn(p: ProductDeclaration, products: Products | null): boolean {
  return p.switch === null || (products as Record<string, boolean> | null)?.[p.id] === true;
}

/** Whether an account's product is on. */
export function accountOn(account: string, products: Products | null, catalogue: Catalogue = PRODUCTS): boolean {
  const p = productOfAccount(account, catalogue);
  return p !== undefined && productOn(p, products);
}

const accountsOf = (catalogue: Catalogue) => catalogue.flatMap((p) => p.accounts.map((a) => a.name)) as AccountName[];

/** Accounts that may receive an own transfer: those of products that are on. */
export function transferTargets(products: Products | null, catalogue: Catalogue = PRODUCTS): AccountName[] {
  return accountsOf(catalogue).filter((a) => accountOn(a, products, catalogue));
}

/** Accounts that may send an own transfer: those of products that are on, and those drained when off. */
export function transferSources(products: Products | null, catalogue: Catalogue = PRODUCTS): AccountName[] {
  return accountsOf(catalogue).filter((a) => accountOn(a, products, catalogue) || (products !== null && productOfAccount(a, catalogue)!.transfer.drainWhenOff));
}

/** The switched product a screen path belongs to (`/trade…` → seconds), or null for the screens every deployment has. */
export function productOfPath(path: string): SwitchedProductId | null {
  const first = path.split(/[?#]/)[0]!.split("/")[1] ?? "";
  for (const p of PRODUCTS) if (p.switch !== null && (p.paths as readonly string[]).includes(first)) return p.id;
  return null;
}

type ConsolePage = { path: string; label: Product["console"][number]["label"]; offToo?: boolean };
const consolePages = PRODUCTS.flatMap((p) => p.console.map((c) => ({ page: c as ConsolePage, product: p as Product })));

/** The products' console pages (`/admin/…`) to show: those of products that are on, and those shown off too. */
export function consolePagesOn(products: Products | null): ConsolePage[] {
  return consolePages.filter(({ page, product }) => page.offToo === true || productOn(product, products)).map(({ page }) => page);
}

/**
 * Whether a path is a product's console page, and if so whether it may be shown now: "page"
 * (show it), "off" (its product is off), "loading" (the switches are not known yet), or null
 * for the console's own pages.
 */
export function consolePageState(path: string, products: Products | null): "page" | "off" | "loading" | null {
  const found = consolePages.find((c) => c.page.path === path);
  if (!found) return null;
  if (found.page.offToo === true || productOn(found.product, products)) return "page";
  return products === null ? "loading" : "off";
}

/** The switch values of a deployment's environment (wrangler.toml [vars]): anything but on/true/1 is off, so a typo never switches a regulated product on. */
export function switchesOf(env: Partial<Record<SwitchName, string>>): Products {
  const isOn = (v: string | undefined) => v !== undefined && ["on", "true", "1"].includes(v.trim().toLowerCase());
  return Object.fromEntries(PRODUCTS.flatMap((p) => (p.switch === null ? [] : [[p.id, isOn(env[p.switch])]]))) as Products;
}
