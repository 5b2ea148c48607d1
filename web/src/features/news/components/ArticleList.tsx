/** A paged list of articles (news or help) with skeleton, empty, error and "load more" states. */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatDateTime } from "../../../lib/format.ts";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { useArticlePages } from "../api.ts";
import s from "./news.module.css";

export function ArticleList({ variant }: { variant: "news" | "help" }) {
  const list = useArticlePages(variant);

  if (list.loading) return <SkeletonList rows={6} />;
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (list.items.length === 0) return <EmptyState />;

  return (
    <div className="articles">
      <ul className={`${s.articleList} ${variant}`} data-testid="article-list">
        {list.items.map((a) => (
          <li key={a.id}>
            <Link to={`/news/detail?id=${a.id}`} className={s.articleRow}>
              {variant === "news" && a.cover ? <img className={s.articleCover} src={a.cover} alt="" loading="lazy" /> : null}
              <span className={s.articleText}>
                <span className={s.articleTitle}>{a.title}</span>
                <span className={`${s.articleTime} num`}>{formatDateTime(a.create_time)}</span>
              </span>
              {variant === "help" && <Icon name="chevron" size={16} className="muted" />}
            </Link>
          </li>
        ))}
      </ul>
      <div className={s.listFoot}>
        {list.hasMore ? (
          <button type="button" className="btn btn-ghost btn-small" onClick={() => void list.loadMore()} disabled={list.loadingMore}>
            {list.loadingMore ? <Spinner size={14} /> : null}
            {list.moreError ? m.retry() : m.load_more()}
          </button>
        ) : (
          <span className="muted">{m.no_more()}</span>
        )}
      </div>
    </div>
  );
}
