/** Paged lists (spec §4): first load is page 1; "load more" asks for the next page until all `total` rows are in. */
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiFailure } from "../../lib/api.ts";
import type { ArticlePage, ArticleSummary } from "./api.ts";

export function usePagedList(fetchPage: (page: number, signal?: AbortSignal) => Promise<ArticlePage>) {
  const [items, setItems] = useState<ArticleSummary[]>([]);
  const [total, setTotal] = useState(0);
  const [page, setPage] = useState(0);
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [moreError, setMoreError] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    fetchRef
      .current(1, controller.signal)
      .then((res) => {
        setItems(res.lists ?? []);
        setTotal(res.total ?? 0);
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

  const hasMore = items.length < total;

  const loadMore = useCallback(async () => {
    if (loadingMore || !hasMore) return;
    setLoadingMore(true);
    setMoreError(false);
    try {
      const res = await fetchRef.current(page + 1);
      const seen = new Set(items.map((i) => i.id));
      const fresh = (res.lists ?? []).filter((i) => !seen.has(i.id));
      setItems((prev) => [...prev, ...fresh]);
      setTotal(fresh.length === 0 ? items.length : res.total ?? total);
      setPage((p) => p + 1);
    } catch {
      setMoreError(true);
    } finally {
      setLoadingMore(false);
    }
  }, [hasMore, items, loadingMore, page, total]);

  const reload = useCallback(() => setAttempt((a) => a + 1), []);
  return { items, total, loading, loadingMore, error, moreError, hasMore, loadMore, reload };
}
