/**
 * Which product areas this deployment has switched on (DESIGN §1 product switches), from
 * GET /api/cfg/kefu, loaded once per page load and shared. Until the answer arrives every
 * optional product counts as off, so nothing switched off is ever offered, even briefly.
 */
import { atom } from "nanostores";
import { useStore } from "@nanostores/react";
import { useEffect } from "react";
import { m } from "../i18n/index.ts";
import { accountLabelKey, accountOn, ACCOUNT_NAMES, productOfPath, transferSources, transferTargets, type AccountName, type Products } from "../../../schemas/products.ts";
import { call, client } from "./api.ts";

export type { AccountName, Products };
export { ACCOUNT_NAMES, productOfPath };

const $products = atom<Products | null>(null);
/** The last load failed (every optional product counts as off until one succeeds). */
const $productsFailed = atom(false);
let loading: Promise<void> | null = null;

function load() {
  loading ??= call((o) => client.api.cfg.kefu.$get({}, o), { notify: false })
    .then((r) => {
      $productsFailed.set(false);
      $products.set(r.products);
    })
    .catch(() => {
      loading = null; // try again on the next screen that asks
      $productsFailed.set(true);
    });
  return loading;
}

/** The switches, or null while they load. */
export function useProducts(): Products | null {
  const products = useStore($products);
  useEffect(() => {
    if (!products) void load();
  }, [products]);
  return products;
}

/**
 * Whether the switches are settled: loaded, or their load failed (all optional products off). A
 * screen that shows product entries above other controls draws those controls once this holds,
 * so they do not move under a finger when the entries arrive.
 */
export function useProductsSettled(): boolean {
  const products = useProducts();
  const failed = useStore($productsFailed);
  return products !== null || failed;
}

/** Of `all`, the wallet accounts whose products are on (schemas/products.ts): spot ("change") always; micro = seconds; legal = C2C; lever = leveraged contracts. */
export function accountsOn<A extends AccountName>(all: readonly A[], products: Products | null): A[] {
  return all.filter((a) => accountOn(a, products));
}

/** The asset centre's tabs: every account of a product that is on, in the products' order. */
export const accountTabs = (products: Products | null): AccountName[] => accountsOn(ACCOUNT_NAMES, products);

/** The transfer screen's choices: what may send (a drained product's account too) and what may receive. */
export const transferChoices = (products: Products | null) => ({ sources: transferSources(products), targets: transferTargets(products) });

/** An account's name as the asset centre shows it, in the current language. */
export const accountLabel = (account: AccountName): string => m[accountLabelKey(account)]();

/** Whether a screen may be offered: always for core screens; for a product's screens only once it is known to be on. */
export function pathOn(path: string, products: Products | null): boolean {
  const product = productOfPath(path);
  return product === null || products?.[product] === true;
}
