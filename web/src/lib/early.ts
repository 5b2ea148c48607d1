/**
 * The first screen's data request, started by index.html's inline preloader (web/vite.config.ts
 * firstRoutePreload) together with the screen's chunk, before any of our code has loaded: on
 * /quotations the rows are the largest paint, and waiting for the entry and the route chunk
 * before asking for them was most of the time to them on a phone. The API client adopts that
 * response once, for the same path and language, within a few seconds; anything else fetches anew.
 */
export interface EarlyRequest {
  /** The API path requested ("/api/currency/quotation_new"). */
  u: string;
  /** The `lang` header it was sent with. */
  l: string;
  /** When it was started (ms since epoch). */
  t: number;
  p: Promise<Response>;
}

const MAX_AGE_MS = 5_000;

function slot(): { __early?: EarlyRequest } {
  return globalThis as { __early?: EarlyRequest };
}

/**
 * The preloaded response for a GET of `path` in `lang`, at most once; null when there is none,
 * it is for something else, or it is too old. The caller's abort signal still applies.
 */
export function takeEarly(path: string, init: RequestInit | undefined, lang: string, now = Date.now()): Promise<Response> | null {
  const early = slot().__early;
  if (!early) return null;
  if ((init?.method ?? "GET").toUpperCase() !== "GET" || early.u !== path || early.l !== lang || now - early.t > MAX_AGE_MS) return null;
  delete slot().__early;
  const signal = init?.signal;
  if (!signal) return early.p;
  return new Promise<Response>((resolve, reject) => {
    if (signal.aborted) return reject(new DOMException("aborted", "AbortError"));
    signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")), { once: true });
    early.p.then(resolve, reject);
  });
}
