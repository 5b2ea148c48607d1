/**
 * The spot screen's market list (the pair drawer on /exchange) stays live (issue #16 §3): with the
 * app's query defaults (no refetch on focus), the pair list is asked again every 10 s while the
 * page is visible and at once when it becomes visible again, and never on the interval while hidden.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { PAIRS_REFRESH_MS, pairsRefresh } from "../../web/src/features/spot/refresh.ts";

/** vi.waitFor waits for state; its default gives up after 1 s, which a loaded machine can take. */
const WAIT = { timeout: 30_000, interval: 20 };

// TanStack Query treats a realm without `window` as a server and never polls there; this test
// stands in for the browser (the focus manager is driven by hand below).
vi.hoisted(() => {
  (globalThis as { window?: unknown }).window ??= {};
});
const { focusManager, QueryClient, QueryObserver } = await import("@tanstack/react-query");

afterEach(() => {
  vi.useRealTimers();
  focusManager.setFocused(undefined);
});

function observe() {
  const client = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false, staleTime: 0, gcTime: 0, retry: false } } });
  client.mount(); // the app's provider does this: it follows the focus manager
  let calls = 0;
  const observer = new QueryObserver(client, {
    queryKey: ["spot", "pairs"],
    queryFn: async () => {
      calls += 1;
      return [{ id: 1, now_price: String(64_000 + calls) }];
    },
    ...pairsRefresh,
  });
  const stop = observer.subscribe(() => {});
  return {
    calls: () => calls,
    price: () => observer.getCurrentResult().data?.[0]?.now_price,
    settled: () => observer.getCurrentResult().fetchStatus === "idle",
    stop: () => {
      stop();
      client.unmount();
    },
  };
}

describe("the spot pair list", () => {
  it("refreshes every 10 seconds while the page is visible, so the drawer shows new prices", async () => {
    expect(PAIRS_REFRESH_MS).toBe(10_000);
    vi.useFakeTimers();
    focusManager.setFocused(true);
    const q = observe();
    await vi.waitFor(() => expect(q.price()).toBe("64001"), WAIT);
    await vi.advanceTimersByTimeAsync(PAIRS_REFRESH_MS);
    expect(q.calls()).toBe(2);
    await vi.waitFor(() => expect(q.price()).toBe("64002"), WAIT);
    await vi.advanceTimersByTimeAsync(PAIRS_REFRESH_MS);
    expect(q.calls()).toBe(3);
    q.stop();
  });

  it("stops asking while the page is hidden and asks at once when it is visible again", async () => {
    vi.useFakeTimers();
    focusManager.setFocused(true);
    const q = observe();
    await vi.waitFor(() => expect(q.calls() === 1 && q.settled()).toBe(true), WAIT);
    focusManager.setFocused(false);
    await vi.advanceTimersByTimeAsync(PAIRS_REFRESH_MS * 3);
    expect(q.calls()).toBe(1);
    focusManager.setFocused(true);
    await vi.waitFor(() => expect(q.calls()).toBe(2), WAIT);
    q.stop();
  });
});
