/**
 * The foot of a paged record list: asks for the next page as it scrolls into view, a spinner
 * while it loads, "failed · retry" after a failed page, "load more" while more remain, and "no
 * more" once every row is in (nothing under an empty list).
 */
import { m } from "../i18n/index.ts";
import { useSentinel } from "../lib/useSentinel.ts";
import { Spinner } from "./States.tsx";
import acct from "./account.module.css";

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
