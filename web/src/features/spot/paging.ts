/**
 * Paging a newest-first list that grows at the front while it is open (spec §4 lists). Rows have
 * no id, so overlap is worked out from the totals: when page 1 was loaded the list had
 * `firstTotal` rows; now it has `total`, so every row moved down by the difference.
 */

/** The rows of page `page` (1-based) not already shown, given `loaded` rows shown so far. */
export function unseenRows<T>(rows: T[], opts: { page: number; pageSize: number; firstTotal: number; total: number; loaded: number }): T[] {
  const shifted = Math.max(0, opts.total - opts.firstTotal);
  const firstWanted = shifted + opts.loaded;
  const pageStart = (opts.page - 1) * opts.pageSize;
  return rows.slice(Math.max(0, firstWanted - pageStart));
}

/**
 * The loaded pages of such a list as one list of rows, and the count at which it is complete: the
 * total when page 1 was loaded, or what is shown once a page comes back short (the server has no
 * more rows than these).
 */
export function shiftingPagesView<T>(pages: readonly { total: number; lists: T[] }[], pageSize: number): { items: T[]; total: number } {
  const first = pages[0];
  if (!first) return { items: [], total: 0 };
  const firstTotal = first.total ?? 0;
  const items = [...(first.lists ?? [])];
  let total = firstTotal;
  pages.slice(1).forEach((page, i) => {
    const rows = page.lists ?? [];
    items.push(...unseenRows(rows, { page: i + 2, pageSize, firstTotal, total: page.total ?? firstTotal, loaded: items.length }));
    if (rows.length < pageSize) total = items.length;
  });
  return { items, total };
}
