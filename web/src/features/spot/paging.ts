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
