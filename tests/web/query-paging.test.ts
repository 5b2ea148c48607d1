/**
 * Server-state rules (web/src/lib/query.ts, web/src/features/spot/paging.ts): which failures are
 * retried, and how the spec's infinite lists (§4: pages start at 1, loading stops when the loaded
 * count equals the total) read their loaded pages and pick the next one.
 */
import { describe, expect, it } from "vitest";
import { ApiFailure } from "../../web/src/lib/api.ts";
import { nextPage, pagesById, retryDelay, shouldRetry } from "../../web/src/lib/query.ts";
import { shiftingPagesView } from "../../web/src/features/spot/paging.ts";

const rows = (...ids: number[]) => ids.map((id) => ({ id }));

describe("shouldRetry", () => {
  it("retries a network failure or a timeout twice, then gives up", () => {
    for (const kind of ["network", "timeout"] as const) {
      const err = new ApiFailure(kind, "no answer");
      expect([0, 1, 2].map((n) => shouldRetry(n, err))).toEqual([true, true, false]);
    }
  });

  it("never retries an answer from the server: a 4xx, a business error, or 997/998/999", () => {
    for (const kind of ["error", "997", "998", "999", "bad_response"] as const) {
      expect(shouldRetry(0, new ApiFailure(kind, "refused", "x", 403))).toBe(false);
    }
  });

  it("does not retry a request the screen aborted, nor a bug thrown as a plain error", () => {
    expect(shouldRetry(0, new ApiFailure("network", "aborted"))).toBe(false);
    expect(shouldRetry(0, new TypeError("x is undefined"))).toBe(false);
  });

  it("waits a little longer before each retry, at most 4 s", () => {
    expect(retryDelay(0)).toBe(500);
    expect(retryDelay(1)).toBe(1000);
    expect(retryDelay(10)).toBe(4000);
  });
});

describe("pagesById and nextPage", () => {
  it("asks for page 2 after page 1 while fewer rows than the total are loaded", () => {
    const view = pagesById([{ total: 5, lists: rows(5, 4, 3) }]);
    expect(view).toEqual({ items: rows(5, 4, 3), total: 5 });
    expect(nextPage(view, 1)).toBe(2);
  });

  it("stops once the loaded count equals the total", () => {
    const view = pagesById([
      { total: 5, lists: rows(5, 4, 3) },
      { total: 5, lists: rows(2, 1) },
    ]);
    expect(view.items.map((r) => r.id)).toEqual([5, 4, 3, 2, 1]);
    expect(nextPage(view, 2)).toBeUndefined();
  });

  it("stops at once for an empty list", () => {
    const view = pagesById([{ total: 0, lists: [] }]);
    expect(view).toEqual({ items: [], total: 0 });
    expect(nextPage(view, 1)).toBeUndefined();
  });

  it("shows a row that moved to the next page once", () => {
    const view = pagesById([
      { total: 6, lists: rows(6, 5, 4) },
      { total: 6, lists: rows(4, 3, 2) },
    ]);
    expect(view.items.map((r) => r.id)).toEqual([6, 5, 4, 3, 2]);
    expect(nextPage(view, 2)).toBe(3);
  });

  it("ends the list when a later page brings nothing new, whatever total the server reports", () => {
    const view = pagesById([
      { total: 9, lists: rows(3, 2, 1) },
      { total: 9, lists: rows(2, 1) },
    ]);
    expect(view).toEqual({ items: rows(3, 2, 1), total: 3 });
    expect(nextPage(view, 2)).toBeUndefined();
  });
});

describe("shiftingPagesView (spot history, rows without an id)", () => {
  /** The server's page of a newest-first list of `total` rows numbered total-1 … 0. */
  const serverPage = (total: number, page: number, size: number) => ({
    total,
    lists: Array.from({ length: total }, (_, i) => total - 1 - i).slice((page - 1) * size, page * size),
  });

  it("is complete at the total page 1 reported", () => {
    const view = shiftingPagesView([serverPage(4, 1, 3), serverPage(4, 2, 3)], 3);
    expect(view).toEqual({ items: [3, 2, 1, 0], total: 4 });
    expect(nextPage(view, 2)).toBeUndefined();
  });

  it("skips the rows that trades made meanwhile pushed onto the next page, without gaps", () => {
    const view = shiftingPagesView([serverPage(10, 1, 3), serverPage(12, 2, 3)], 3);
    expect(view.items).toEqual([9, 8, 7, 6]);
    expect(nextPage(view, 2)).toBe(3);
  });

  it("ends the list at a short page", () => {
    const view = shiftingPagesView([serverPage(10, 1, 3), { total: 10, lists: [6] }], 3);
    expect(view).toEqual({ items: [9, 8, 7, 6], total: 4 });
    expect(nextPage(view, 2)).toBeUndefined();
  });

  it("has nothing before page 1 arrives", () => {
    expect(shiftingPagesView([], 3)).toEqual({ items: [], total: 0 });
  });
});
