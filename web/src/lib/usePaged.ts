/**
 * Infinite lists (spec §4 "Lists"): refresh resets to page 1, load-more asks for the next page,
 * loading stops when the loaded count reaches the total. Rows are de-duplicated by id, so a row
 * that moved between pages while the user scrolled is not shown twice.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiFailure } from "./api.ts";

export interface Page<T> {
  total: number;
  lists: T[];
}

export function usePaged<T extends { id: number | string }>(
  fetchPage: (page: number, signal?: AbortSignal) => Promise<Page<T>>,
  deps: readonly unknown[] = [],
) {
  const [items, setItems] = useState<T[]>([]);
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
    setMoreError(false);
    fetchRef
      .current(1, controller.signal)
      .then((res) => {
        if (controller.signal.aborted) return;
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
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [attempt, ...deps]);

  const hasMore = !loading && !error && items.length < total;

  const loadMore = useCallback(async () => {
    if (loadingMore || !hasMore) return;
    setLoadingMore(true);
    setMoreError(false);
    try {
      const res = await fetchRef.current(page + 1);
      const seen = new Set(items.map((i) => i.id));
      const fresh = (res.lists ?? []).filter((i) => !seen.has(i.id));
      setItems((prev) => [...prev, ...fresh]);
      setTotal(fresh.length === 0 ? items.length : (res.total ?? total));
      setPage((p) => p + 1);
    } catch {
      setMoreError(true);
    } finally {
      setLoadingMore(false);
    }
  }, [hasMore, items, loadingMore, page, total]);

  const reload = useCallback(() => setAttempt((a) => a + 1), []);
  /** Replaces one row in place (after an operator decision) without reloading the page. */
  const patch = useCallback((id: T["id"], next: Partial<T>) => {
    setItems((prev) => prev.map((row) => (row.id === id ? { ...row, ...next } : row)));
  }, []);
  return { items, total, loading, loadingMore, error, moreError, hasMore, loadMore, reload, patch };
}

/** Calls `onVisible` when the sentinel element scrolls into view (the infinite-list trigger). */
export function useSentinel(onVisible: () => void, enabled: boolean) {
  const ref = useRef<HTMLDivElement | null>(null);
  const cb = useRef(onVisible);
  cb.current = onVisible;
  useEffect(() => {
    const el = ref.current;
    if (!el || !enabled || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) cb.current();
    }, { rootMargin: "120px" });
    io.observe(el);
    return () => io.disconnect();
  }, [enabled]);
  return ref;
}
