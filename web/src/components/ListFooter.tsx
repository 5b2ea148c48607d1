/**
 * The foot of a paged record list: asks for the next page as it scrolls into view, a spinner
 * while it loads, "failed · retry" after a failed page, "load more" while more remain, and "no
 * more" once every row is in (nothing under an empty list).
 */
import type { ReactNode } from "react";
import { m } from "../i18n/index.ts";
import { useSentinel } from "../lib/useSentinel.ts";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "./States.tsx";
import acct from "./account.module.css";

/** What a paged list hook answers (wallet records, the invite team and rebates, console lists). */
export interface PagedItems<T> {
  items: T[];
  loading: boolean;
  error: { message: string } | null;
  reload: () => void;
  hasMore: boolean;
  loadingMore: boolean;
  moreError: boolean;
  loadMore: () => void;
}

/**
 * A paged list of record cards with its states: skeleton rows while the first page loads, the
 * error with a retry, the empty text, then the cards (`children` draws one `li`) and the foot.
 */
export function PagedList<T>({ list, emptyText, rows = 4, children }: { list: PagedItems<T>; emptyText: string; rows?: number; children: (item: T) => ReactNode }) {
  if (list.loading) return <SkeletonList rows={rows} />;
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (list.items.length === 0) return <EmptyState text={emptyText} />;
  return (
    <>
      <ul className={acct.recordList}>{list.items.map(children)}</ul>
      <ListFooter hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} onMore={list.loadMore} count={list.items.length} />
    </>
  );
}

export function ListFooter({ hasMore, loadingMore, moreError, onMore, count }: { hasMore: boolean; loadingMore: boolean; moreError: boolean; onMore: () => void; count: number }) {
  const ref = useSentinel(onMore, hasMore && !moreError);
  if (count === 0) return null;
  return (
    <div className={acct.listFooter} ref={ref}>
      {loadingMore ? (
        <Spinner size={18} />
      ) : moreError ? (
        <button type="button" className="text-btn" onClick={onMore}>{m.load_failed()} · {m.retry()}</button>
      ) : hasMore ? (
        <button type="button" className="text-btn" onClick={onMore}>{m.load_more()}</button>
      ) : (
        <span className="muted">{m.no_more()}</span>
      )}
    </div>
  );
}
