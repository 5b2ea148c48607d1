/**
 * Spot history paging (web/src/features/spot/paging.ts): trades made while the list is open push
 * older rows onto later pages; the next page then skips what is already shown, so no trade is
 * listed twice and none is skipped.
 */
import { describe, expect, it } from "vitest";
import { unseenRows } from "../../web/src/features/spot/paging.ts";

/** The server's page of a newest-first list of `total` rows numbered total-1 … 0. */
function serverPage(total: number, page: number, size: number): number[] {
  const all = Array.from({ length: total }, (_, i) => total - 1 - i);
  return all.slice((page - 1) * size, page * size);
}

describe("unseenRows", () => {
  it("takes the whole next page when nothing was added", () => {
    const rows = serverPage(40, 2, 15);
    expect(unseenRows(rows, { page: 2, pageSize: 15, firstTotal: 40, total: 40, loaded: 15 })).toEqual(rows);
  });

  it("skips rows pushed down by new trades, then continues without gaps", () => {
    const first = serverPage(40, 1, 15); // rows 39..25
    const second = serverPage(43, 2, 15); // three new trades: rows 27..13 of the old numbering
    const fresh2 = unseenRows(second, { page: 2, pageSize: 15, firstTotal: 40, total: 43, loaded: 15 });
    expect(fresh2[0]).toBe(24);
    const third = serverPage(43, 3, 15);
    const fresh3 = unseenRows(third, { page: 3, pageSize: 15, firstTotal: 40, total: 43, loaded: 15 + fresh2.length });
    const shown = [...first, ...fresh2, ...fresh3];
    expect(shown).toEqual(Array.from({ length: shown.length }, (_, i) => 39 - i));
    expect(new Set(shown).size).toBe(shown.length);
  });

  it("returns nothing when a whole page was already shown", () => {
    const rows = serverPage(60, 2, 15);
    expect(unseenRows(rows, { page: 2, pageSize: 15, firstTotal: 40, total: 60, loaded: 15 })).toEqual([]);
  });
});
