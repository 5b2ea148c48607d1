/**
 * The C2C market list stays honest (issue #10): with the app's query defaults (no refetch on
 * focus), the market's options still ask again when the page becomes visible again and on an
 * interval while it is visible, and never on the interval while hidden.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { MARKET_REFRESH_MS, marketRefresh } from "../../web/src/features/c2c/refresh.ts";

/** vi.waitFor waits for state; its default gives up after 1 s, which a loaded machine can take. */
const WAIT = { timeout: 30_000, interval: 20 };

// TanStack Query treats a realm without `window` as a server and never polls there; this test
// stands in for the browser (the focus manager is driven by hand below).
vi.hoisted(() => {
  (globalThis as { window?: unknown }).window ??= {};
});
const { focusManager, InfiniteQueryObserver, QueryClient } = await import("@tanstack/react-query");

afterEach(() => {
  vi.useRealTimers();
  focusManager.setFocused(undefined);
});

function observe() {
  const client = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false, staleTime: 0, gcTime: 0, retry: false } } });
  client.mount(); // the app's provider does this: it follows the focus manager
  let calls = 0;
  const observer = new InfiniteQueryObserver(client, {
    queryKey: ["c2c", "adverts", "sell", 1],
    queryFn: async () => {
      calls += 1;
      return { total: 0, lists: [] };
    },
    initialPageParam: 1,
    getNextPageParam: () => undefined,
    ...marketRefresh,
  });
  const stop = observer.subscribe(() => {});
  return {
    calls: () => calls,
    settled: () => observer.getCurrentResult().fetchStatus === "idle",
    stop: () => {
      stop();
      client.unmount();
    },
  };
}

describe("market refresh", () => {
  it("asks again when the page becomes visible or focused again", async () => {
    focusManager.setFocused(true);
    const q = observe();
    await vi.waitFor(() => expect(q.calls() === 1 && q.settled()).toBe(true), WAIT);
    focusManager.setFocused(false);
    focusManager.setFocused(true);
    await vi.waitFor(() => expect(q.calls()).toBe(2), WAIT);
    q.stop();
  });

  it("asks again on the interval while visible, not while hidden", async () => {
    vi.useFakeTimers();
    focusManager.setFocused(true);
    const q = observe();
    await vi.waitFor(() => expect(q.calls()).toBe(1), WAIT);
    await vi.advanceTimersByTimeAsync(MARKET_REFRESH_MS);
    expect(q.calls()).toBe(2);
    focusManager.setFocused(false);
    await vi.advanceTimersByTimeAsync(MARKET_REFRESH_MS * 3);
    expect(q.calls()).toBe(2);
    q.stop();
  });
});
