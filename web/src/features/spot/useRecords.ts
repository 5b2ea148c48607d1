/**
 * The user's spot trades, newest first, page by page (spec §4 lists: refresh resets to page 1,
 * load-more asks for the next page, loading stops when the loaded count equals the total).
 *
 * Records have no id and new trades are inserted at the front while the list is open, which
 * shifts every later page. The total the server reports tells by how much: rows already shown
 * are skipped, so a trade made meanwhile never appears twice (it shows up on refresh).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { SpotRecord } from "../../../../schemas/spot.ts";
import { ApiFailure } from "../../lib/api.ts";
import { PAGE_SIZE, fetchRecords } from "./api.ts";
import { unseenRows } from "./paging.ts";

export function useRecords() {
  const [items, setItems] = useState<SpotRecord[]>([]);
  /** The total when page 1 was loaded: the list is complete once that many rows are in. */
  const [baseTotal, setBaseTotal] = useState(0);
  const [page, setPage] = useState(0);
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [moreError, setMoreError] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const busy = useRef(false);

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    setMoreError(false);
    fetchRecords(1, controller.signal)
      .then((res) => {
        setItems(res.lists ?? []);
        setBaseTotal(res.total ?? 0);
        setPage(1);
        setLoading(false);
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        setError(err instanceof ApiFailure ? err : new ApiFailure("error", String(err)));
        setLoading(false);
      });
    return () => controller.abort();
  }, [attempt]);

  const hasMore = !loading && error === null && items.length < baseTotal;

  const loadMore = useCallback(async () => {
    if (busy.current || !hasMore) return;
    busy.current = true;
    setLoadingMore(true);
    setMoreError(false);
    try {
      const next = page + 1;
      const res = await fetchRecords(next);
      const rows = res.lists ?? [];
      const fresh = unseenRows(rows, { page: next, pageSize: PAGE_SIZE, firstTotal: baseTotal, total: res.total ?? baseTotal, loaded: items.length });
      setItems((prev) => [...prev, ...fresh]);
      // A short or empty page means the server has no more rows than these.
      if (rows.length < PAGE_SIZE) setBaseTotal(items.length + fresh.length);
      setPage(next);
    } catch {
      setMoreError(true);
    } finally {
      busy.current = false;
      setLoadingMore(false);
    }
  }, [baseTotal, hasMore, items.length, page]);

  const reload = useCallback(() => setAttempt((a) => a + 1), []);
  return { items, total: baseTotal, loading, loadingMore, error, moreError, hasMore, loadMore, reload };
}
