// Spec §7 host failover (web/src/lib/hosts.ts): home, login, register and the account check retry
// a failed host up to 3 times, 1 s, 2 s, 4 s apart, on the least-failed configured host. The clock
// is injected: `sleep` records the delays and returns at once, so nothing here waits.
import { describe, expect, it } from "vitest";
import { HostPool, apiUrl, parseHosts, withFailover } from "../../web/src/lib/hosts.ts";
import { takeEarly, type EarlyRequest } from "../../web/src/lib/early.ts";

const A = "https://api.example.com";
const B = "https://api.example.net";
const C = "https://api.example.org";

/** A fake fetch: per host, the answers it gives in turn ("down" = network error). */
function fakeHosts(plan: Record<string, (number | "down")[]>) {
  const calls: string[] = [];
  const attempt = async (host: string) => {
    calls.push(host);
    const next = plan[host]?.shift() ?? 200;
    if (next === "down") throw new TypeError("Failed to fetch");
    return { status: next };
  };
  return { calls, attempt };
}

function clock() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

const failed = (o: { ok: true; value: { status: number } } | { ok: false; error: unknown }) => (o.ok ? o.value.status >= 500 : true);

describe("configured API hosts", () => {
  it("uses the page's own origin when the build lists none", () => {
    expect(parseHosts(undefined)).toEqual([""]);
    expect(parseHosts(" ")).toEqual([""]);
    expect(apiUrl("/api/user/login", "")).toBe("/api/user/login");
  });

  it("reads a comma-separated list of origins, ignoring junk and repeats", () => {
    expect(parseHosts(`${A}/, ${B},not a host,${A}`)).toEqual([A, B]);
    expect(apiUrl("/api/user/login", B)).toBe(`${B}/api/user/login`);
  });
});

describe("retrying a failed host", () => {
  it("retries up to 3 times with a delay doubling from 1 s, then gives up with the last failure", async () => {
    const { calls, attempt } = fakeHosts({ "": ["down", "down", "down", "down", 200] });
    const c = clock();
    await expect(withFailover(attempt, { pool: new HostPool([""]), failed, sleep: c.sleep })).rejects.toThrow("Failed to fetch");
    expect(calls).toHaveLength(4);
    expect(c.delays).toEqual([1000, 2000, 4000]);
  });

  it("stops at the first success, and a 4xx answer is not the host's fault", async () => {
    const first = fakeHosts({ "": [503, 200] });
    const c1 = clock();
    expect(await withFailover(first.attempt, { pool: new HostPool([""]), failed, sleep: c1.sleep })).toEqual({ status: 200 });
    expect(c1.delays).toEqual([1000]);

    const second = fakeHosts({ "": [400] });
    const c2 = clock();
    expect(await withFailover(second.attempt, { pool: new HostPool([""]), failed, sleep: c2.sleep })).toEqual({ status: 400 });
    expect(second.calls).toHaveLength(1);
    expect(c2.delays).toEqual([]);
  });

  it("answers with the last 5xx when every retry fails with one", async () => {
    const { attempt } = fakeHosts({ "": [500, 502, 503, 504] });
    expect(await withFailover(attempt, { pool: new HostPool([""]), failed, sleep: clock().sleep })).toEqual({ status: 504 });
  });
});

describe("moving to the least-failed host", () => {
  it("moves off a blocked host and stays on the one that works", async () => {
    const pool = new HostPool([A, B, C]);
    const { calls, attempt } = fakeHosts({ [A]: ["down"], [B]: [200, 200] });
    await withFailover(attempt, { pool, failed, sleep: clock().sleep });
    expect(calls).toEqual([A, B]);
    expect(pool.current).toBe(B);
    // the next call starts on the host that worked
    await withFailover(attempt, { pool, failed, sleep: clock().sleep });
    expect(calls).toEqual([A, B, B]);
  });

  it("prefers the host that failed least, not simply the next one", () => {
    const pool = new HostPool([A, B, C]);
    pool.fail(A); // A:1 → B
    pool.fail(B); // B:1 → C (A and B have 1 each)
    pool.fail(C); // C:1 → A (all 1: the next after C)
    pool.fail(A); // A:2 → B
    expect(pool.current).toBe(B);
    pool.fail(B); // A:2 B:2 C:1 → C
    expect(pool.current).toBe(C);
    expect(pool.failureCounts()).toEqual([2, 2, 1]);
  });

  it("tells the sockets when the host changes, and only then", () => {
    const pool = new HostPool([A, B]);
    const seen: string[] = [];
    pool.onChange((h) => seen.push(h));
    pool.fail(A);
    pool.fail(A); // A:2, B:0 — still B
    expect(seen).toEqual([B]);
    const single = new HostPool([A]);
    single.onChange((h) => seen.push(h));
    single.fail(A);
    expect(single.current).toBe(A);
    expect(seen).toEqual([B]);
  });
});

describe("the first screen's preloaded request", () => {
  const put = (e: Partial<EarlyRequest>) => {
    (globalThis as { __early?: EarlyRequest }).__early = { u: "/api/currency/quotation_new", l: "en", t: 1000, p: Promise.resolve(new Response("{}")), ...e };
  };

  it("is adopted once for the same path and language", async () => {
    put({});
    const got = takeEarly("/api/currency/quotation_new", { method: "GET" }, "en", 2000);
    expect(got).not.toBeNull();
    expect(await (await got!).text()).toBe("{}");
    expect(takeEarly("/api/currency/quotation_new", undefined, "en", 2000)).toBeNull();
  });

  it("is not used for another path, another language or when it is old", () => {
    put({});
    expect(takeEarly("/api/new/home/index", undefined, "en", 2000)).toBeNull();
    expect(takeEarly("/api/currency/quotation_new", undefined, "zh", 2000)).toBeNull();
    expect(takeEarly("/api/currency/quotation_new", undefined, "en", 60_000)).toBeNull();
    expect(takeEarly("/api/currency/quotation_new", { method: "POST" }, "en", 2000)).toBeNull();
  });

  it("still honours the caller's abort", async () => {
    put({ p: new Promise<Response>(() => undefined) });
    const ctrl = new AbortController();
    const got = takeEarly("/api/currency/quotation_new", { signal: ctrl.signal }, "en", 2000);
    ctrl.abort();
    await expect(got).rejects.toThrow("aborted");
  });
});
