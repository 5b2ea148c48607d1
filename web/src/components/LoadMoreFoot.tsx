/**
 * The foot of an infinite list (spec §4 lists): asks for the next page when it comes within
 * 200 px of the viewport, shows a spinner while loading, a retry after a failed page, a button
 * while more remain, and "no more" once every row is in.
 */
import { useEffect, useRef } from "react";
import { m } from "../i18n/index.ts";
import { Spinner } from "./States.tsx";
import s from "./LoadMoreFoot.module.css";

export function LoadMoreFoot({ count, hasMore, loadingMore, moreError, loadMore }: { count: number; hasMore: boolean; loadingMore: boolean; moreError: boolean; loadMore: () => Promise<void> | void }) {
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasMore || moreError) return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void loadMore();
    }, { rootMargin: "200px 0px" });
    io.observe(el);
    return () => io.disconnect();
  }, [hasMore, loadMore, moreError, count]);
  return (
    <div ref={sentinel} className={`${s.foot} muted`}>
      {loadingMore ? (
        <Spinner size={18} />
      ) : moreError || hasMore ? (
        <button type="button" className="text-btn" onClick={() => void loadMore()}>
          {moreError ? m.retry() : m.load_more()}
        </button>
      ) : count > 0 ? (
        m.no_more()
      ) : null}
    </div>
  );
}
