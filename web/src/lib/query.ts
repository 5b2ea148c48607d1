/**
 * Server state through TanStack Query: the rules every query follows and the two shapes screens
 * read it in. Features build their queries and mutations on these in `features/<area>/api.ts`;
 * the QueryClient itself is made in `app/queryClient.ts`.
 *
 * - `useScreenQuery`: one answer per screen as `{ data, error, loading, reload }`. A failed
 *   background refresh keeps the last good data; a screen with no data shows the newest error
 *   (not a skeleton between two failures), and `reload` (the Retry button) shows the skeleton.
 * - `usePagedQuery`: the spec's infinite lists (§4: refresh resets to page 1, load-more asks for
 *   the next page, loading stops when the loaded count equals the total) on `useInfiniteQuery`.
 *
 * - `useCallMutation`: a call that changes server state, with the signature of the call; when it
 *   settles the queries it changes are invalidated (those on screen are fetched again).
 *
 * The pure parts (retry rule, page views, next page) are exported for the unit tests.
 */
import { useCallback, useMemo, useRef } from "react";
import {
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type InfiniteData,
  type QueryKey,
  type UseQueryOptions,
} from "@tanstack/react-query";
import { ApiFailure } from "./api.ts";

/** Roots of query keys that more than one feature reads or changes (features never import each other). */
export const sharedKeys = {
  /** Every balance the user has (wallets, spot, transfer accounts): anything that moves money invalidates it. */
  balances: ["balances"] as const,
  /** The user centre (review status, bank card, totals). */
  center: ["center"] as const,
  /** Fund password / authenticator / login state of the account. */
  /** The address book (security screens) and the withdrawal screen's saved addresses. */
  addresses: ["addresses"] as const,
};

/**
 * Cache options for published content that is the same for everyone and may be shown again while
 * it is refetched: fresh for `staleMs`, kept 5 minutes after its screen closes. Anything per user
 * keeps the client's default (dropped when its screen closes, app/queryClient.tsx).
 */
export function cachedFor(staleMs: number) {
  return { staleTime: staleMs, gcTime: Math.max(staleMs, 5 * 60_000) };
}

/** At most this many automatic retries, and only of failures that never reached the server. */
const MAX_RETRIES = 2;

/**
 * Retries a query only when the request failed on the way (network error or timeout): an answer
 * from the server (a 4xx, a business error, 997/998/999) is final and retrying would repeat it.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (!(error instanceof ApiFailure)) return false;
  if (error.kind !== "network" && error.kind !== "timeout") return false;
  if (error.message === "aborted") return false; // the screen went away; nothing to retry
  return failureCount < MAX_RETRIES;
}

/** 0.5 s, then 1 s: short, because the screen shows a skeleton meanwhile. */
export function retryDelay(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 4000);
}

export interface ScreenQuery<T> {
  data: T | undefined;
  error: ApiFailure | null;
  loading: boolean;
  reload: () => void;
}

/**
 * A screen's query. TanStack drops a data-less query back to "pending" whenever it fetches again
 * (a poll after a failure); the screen keeps showing the failure it already shows until the new
 * answer is in, so the error state does not flicker to a skeleton every interval.
 */
export function useScreenQuery<T, K extends QueryKey = QueryKey>(options: UseQueryOptions<T, ApiFailure, T, K>): ScreenQuery<T> {
  const q = useQuery(options);
  const shown = useRef<ApiFailure | null>(null);
  if (q.data !== undefined) shown.current = null;
  else if (q.error) shown.current = q.error;
  const { refetch } = q;
  const reload = useCallback(() => {
    shown.current = null; // a retry by hand shows the skeleton again, as a fresh load does
    void refetch();
  }, [refetch]);
  const error = q.data === undefined ? (q.error ?? shown.current) : null;
  return { data: q.data, error, loading: q.isLoading && error === null, reload };
}

/**
 * A mutation used like the call it wraps (`const place = usePlaceOrder(); await place(side, body)`):
 * it rejects with the call's ApiFailure (the §8 toasts and dialogs already shown by `call`), and
 * when it settles (success or failure) marks every query under `invalidates` stale without waiting
 * for the refetch.
 */
export function useCallMutation<A extends unknown[], R>(action: (...args: A) => Promise<R>, invalidates: readonly QueryKey[]): (...args: A) => Promise<R> {
  const client = useQueryClient();
  const { mutateAsync } = useMutation<R, ApiFailure, A>({
    mutationFn: (args) => action(...args),
    // Read again after a failure too: a call that timed out or lost its answer may still have
    // changed the server's state, and a screen must not keep showing the old one.
    onSettled: () => {
      for (const queryKey of invalidates) void client.invalidateQueries({ queryKey });
    },
  });
  return useCallback((...args: A) => mutateAsync(args), [mutateAsync]);
}

/** What the loaded pages show: the rows, and how many rows the list has in all. */
export interface PageView<T> {
  items: T[];
  total: number;
}

/**
 * Pages of rows with an id, de-duplicated (a row that moved to a later page while the user
 * scrolled is shown once). A page that brings nothing new ends the list: the server has no more.
 */
export function pagesById<T extends { id: number | string }>(pages: readonly { total: number; lists: T[] }[]): PageView<T> {
  const items: T[] = [];
  const seen = new Set<T["id"]>();
  let total = 0;
  pages.forEach((page, i) => {
    const fresh = (page.lists ?? []).filter((row) => !seen.has(row.id));
    for (const row of fresh) seen.add(row.id);
    items.push(...fresh);
    total = i > 0 && fresh.length === 0 ? items.length : (page.total ?? total);
  });
  return { items, total };
}

/** The page to ask for after `lastPage` (pages start at 1), or undefined once every row is loaded. */
export function nextPage(view: PageView<unknown>, lastPage: number): number | undefined {
  return view.items.length < view.total ? lastPage + 1 : undefined;
}

export interface PagedList<T> extends PageView<T> {
  loading: boolean;
  loadingMore: boolean;
  error: ApiFailure | null;
  moreError: boolean;
  hasMore: boolean;
  loadMore: () => void;
  reload: () => void;
}

export interface PagedOptions<T, P> {
  queryKey: QueryKey;
  fetchPage: (page: number, signal: AbortSignal) => Promise<P>;
  /** How the loaded pages read as one list. */
  view: (pages: readonly P[]) => PageView<T>;
  /** Asked again while on screen (a list other people change, such as C2C's market): on focus or visibility, and on an interval while visible. */
  refresh?: {
    refetchOnWindowFocus: boolean | "always";
    refetchInterval: number | false;
    refetchIntervalInBackground: boolean;
  };
}

/**
 * An infinite list. Like every per-user query its cache is dropped when the screen closes
 * (gcTime 0, also for a list of published articles): opening the list again starts from page 1,
 * as a refresh does, rather than refetching every page scrolled before.
 * `reload` resets it to page 1; a mutation that invalidates it refetches the pages in place.
 */
export function usePagedQuery<T, P>({ queryKey, fetchPage, view, refresh }: PagedOptions<T, P>): PagedList<T> {
  const client = useQueryClient();
  const q = useInfiniteQuery<P, ApiFailure, InfiniteData<P, number>, QueryKey, number>({
    queryKey,
    queryFn: ({ pageParam, signal }) => fetchPage(pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (_last, pages, lastPageParam) => nextPage(view(pages), lastPageParam),
    gcTime: 0,
    ...refresh,
  });
  const pages = q.data?.pages;
  const shown = useMemo(() => (pages ? view(pages) : { items: [], total: 0 }), [pages, view]);
  const error = q.data === undefined ? q.error : null;
  const loading = q.isLoading;
  const hasMore = !loading && error === null && q.hasNextPage;
  const { fetchNextPage, isFetchingNextPage } = q;
  const loadMore = useCallback(() => {
    if (!hasMore || isFetchingNextPage) return;
    void fetchNextPage({ cancelRefetch: false });
  }, [fetchNextPage, hasMore, isFetchingNextPage]);
  const keyHash = JSON.stringify(queryKey);
  const reload = useCallback(() => {
    void client.resetQueries({ queryKey: JSON.parse(keyHash) as QueryKey, exact: true });
  }, [client, keyHash]);
  return {
    items: shown.items,
    total: shown.total,
    loading,
    loadingMore: isFetchingNextPage,
    error,
    moreError: q.isFetchNextPageError,
    hasMore,
    loadMore,
    reload,
  };
}
