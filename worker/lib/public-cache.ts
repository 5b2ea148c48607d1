/**
 * A short cache for the public, non-personal lists (the product catalogues a visitor browses:
 * savings products, launch projects, vote rounds, cover plans, mining plans, contract durations,
 * rebate terms, the withdrawal fee table, news and help pages, currencies and countries), kept
 * like /api/transparency: the Cache API (caches.default, per Cloudflare location), so a crowd of
 * visitors costs one read per list, location and PUBLIC_LIST_SECONDS. Where the Cache API does
 * nothing (a workers.dev address) every request reads D1, as before.
 *
 * Never anything personal: a list that adds the caller's own part when logged in (earn's open
 * principal, launch's own commitment, vote's own votes) is cached only for callers without a
 * session; with one it is read fresh. A write through the product's own routes (a subscription,
 * an operator publishing or closing) drops that product's list in this location at once
 * (`invalidates`); elsewhere, and after changes made by the crons, a list is at most
 * PUBLIC_LIST_SECONDS old.
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context.ts";

/** The cached lists, by name. */
export const PUBLIC_LISTS = {
  earn: "earn-products",
  launch: "launch-projects",
  vote: "vote-rounds",
  insurance: "insurance-plans",
  mining: "mining-plans",
  seconds: "seconds-options",
  inviteTerms: "invite-terms",
  withdrawalFees: "withdrawal-fees",
  news: "news",
  countries: "countries",
} as const;

/** How long a public list may be served from the cache. */
export const PUBLIC_LIST_SECONDS = 15;

const cacheOf = (): Cache | null => (typeof caches === "undefined" ? null : (caches as unknown as { default: Cache }).default);
const keyOf = (name: string) => `https://public-lists.internal/v2/${encodeURIComponent(name)}`;

/** One cache entry per list, holding its variants (languages, pages), so forgetting a list drops them all. */
type Entry = Record<string, { at: number; value: unknown }>;

/**
 * The list `name` (in `variant`: a language, a page), from the cache when a fresh one is there;
 * kept `seconds` (PUBLIC_LIST_SECONDS unless stated).
 */
export async function cachedPublic<T>(name: string, compute: () => Promise<T>, opts: { variant?: string; seconds?: number } = {}): Promise<T> {
  const cache = cacheOf();
  if (!cache) return compute();
  const variant = opts.variant ?? "";
  const ttlMs = (opts.seconds ?? PUBLIC_LIST_SECONDS) * 1000;
  const key = keyOf(name);
  const now = Date.now();
  const hit = await cache.match(key).catch(() => undefined);
  const entry: Entry = hit ? ((await hit.json().catch(() => ({}))) as Entry) : {};
  const fresh = entry[variant];
  if (fresh && now - fresh.at < ttlMs) return fresh.value as T;
  const value = await compute();
  // Keep the other variants that are still fresh; a lost race only costs a recomputation.
  const next: Entry = Object.fromEntries(Object.entries(entry).filter(([, v]) => now - v.at < ttlMs));
  next[variant] = { at: now, value };
  await cache
    .put(key, new Response(JSON.stringify(next), { headers: { "content-type": "application/json", "cache-control": `max-age=${Math.ceil(ttlMs / 1000)}` } }))
    .catch(() => undefined);
  return value;
}

/** Drops the cached list `name`, every variant of it, in this location. */
export async function forgetPublic(name: string): Promise<void> {
  await cacheOf()?.delete(keyOf(name)).catch(() => false);
}

/** Middleware: after a POST through these routes, the list `name` is read afresh. */
export const invalidates = (name: string) =>
  createMiddleware<AppEnv>(async (c, next) => {
    await next();
    if (c.req.method === "POST") await forgetPublic(name);
  });
