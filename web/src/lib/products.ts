/**
 * Which product areas this deployment has switched on (DESIGN §1 product switches), from
 * GET /api/cfg/kefu, loaded once per page load and shared. Until the answer arrives every
 * optional product counts as off, so nothing switched off is ever offered, even briefly.
 */
import { atom } from "nanostores";
import { useStore } from "@nanostores/react";
import { useEffect } from "react";
import { call, client } from "./api.ts";

export interface Products {
  seconds: boolean;
  lever: boolean;
  c2c: boolean;
}

const $products = atom<Products | null>(null);
let loading: Promise<void> | null = null;

function load() {
  loading ??= call((o) => client.api.cfg.kefu.$get({}, o), { notify: false })
    .then((r) => $products.set(r.products))
    .catch(() => {
      loading = null; // try again on the next screen that asks
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

/** Wallet accounts of products that are on: spot ("change") always; micro = seconds; legal = C2C; lever = leveraged contracts. */
export function accountsOn<A extends "change" | "micro" | "legal" | "lever">(all: readonly A[], products: Products | null): A[] {
  return all.filter((a) => a === "change" || (a === "micro" ? products?.seconds === true : a === "lever" ? products?.lever === true : products?.c2c === true));
}

/**
 * The product a screen belongs to, from its path: /trade… is seconds contracts, /legal… is C2C,
 * /lever… is leveraged contracts; null for the screens every deployment has. One table, so a
 * link, a tab and a route of a switched-off product disappear together.
 */
export function productOfPath(path: string): keyof Products | null {
  const first = path.split(/[?#]/)[0]!.split("/")[1] ?? "";
  return first === "trade" ? "seconds" : first === "legal" ? "c2c" : first === "lever" ? "lever" : null;
}

/** Whether a screen may be offered: always for core screens; for a product's screens only once it is known to be on. */
export function pathOn(path: string, products: Products | null): boolean {
  const product = productOfPath(path);
  return product === null || products?.[product] === true;
}
