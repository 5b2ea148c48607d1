/**
 * What a browser test file runs against, in one line at its top:
 *
 *     import { browser, server, useExchange } from "./exchange.ts";
 *     useExchange();
 *
 * `server` is a Worker of the file's own, on a fresh copy of the seeded D1 (no other file uses it,
 * before or at the same time), handed over by vitest's own process (tests/e2e/pool.ts), which
 * starts Workers ahead of the files that will need them; `browser` is the file's Chromium.
 * `useServer(vars)` inside a describe gives that block a private Worker started with extra
 * settings (e.g. a short C2C payment window) in place of the file's.
 */
import { request } from "node:http";
import { afterAll, beforeAll, inject } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser } from "./browser.ts";
import type { Lease } from "./pool.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The address of tests/e2e/pool.ts's service. */
    e2ePool: string;
  }
}

export interface TestServer {
  baseUrl: string;
  /** Its --persist-to folder (the local D1 is a SQLite file under it; tests/e2e/helpers.ts). */
  persistDir: string;
}

/** The current block's Worker (assigned before its tests run). */
export let server: TestServer;
/** The file's Chromium (each test opens its own contexts in it). */
export let browser: Browser;

/** One call to the pool's service. No timeout of its own: a lease waits for a Worker to start, and the hook's bound ends a hang. */
function poolCall<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, inject("e2ePool")), { method, headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        if (res.statusCode === 200) resolve(JSON.parse(text) as T);
        else reject(new Error(`browser test pool ${path}: ${res.statusCode} ${text}`));
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** For the enclosing block (the file, or a describe): a fresh Worker of its own, with `vars` as extra plain-text settings. */
export function useServer(vars: Record<string, string> = {}): void {
  let lease: Lease | undefined;
  let outer: TestServer | undefined;
  beforeAll(async () => {
    outer = server;
    lease = await poolCall<Lease>("POST", "/lease", { vars });
    server = { baseUrl: lease.baseUrl, persistDir: lease.persistDir };
  });
  afterAll(async () => {
    if (lease) await poolCall("POST", "/release", { id: lease.id });
    lease = undefined;
    if (outer) server = outer;
  });
}

/**
 * The Chromium of this test process: the browser files run in a few long-lived processes
 * (`isolate: false` in vitest.config.ts), and each launches Chromium once rather than once per file
 * (about 0.7 s of CPU a launch). A file never sees another's pages: its contexts are closed when it
 * ends (useExchange), and each test opens its own.
 */
let launched: Promise<Browser> | undefined;
function processBrowser(): Promise<Browser> {
  launched ??= launchBrowser().then((b) => {
    // A browser that crashed or was closed is launched again for the next file.
    b.on("disconnected", () => (launched = undefined));
    return b;
  });
  return launched;
}

/** For the whole file: its own Worker (see useServer), and this process's Chromium. Call at the top level. */
export function useExchange(vars: Record<string, string> = {}): void {
  beforeAll(async () => {
    browser = await processBrowser();
  });
  // The file's pages go with it: a page left open would keep polling a Worker that is gone.
  afterAll(async () => {
    await Promise.all(browser?.contexts().map((c) => c.close().catch(() => undefined)) ?? []);
  });
  useServer(vars);
}
