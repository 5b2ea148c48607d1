/** One article (news, notice or help): title, time, cover, HTML body. */
import { useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatDateTime } from "../../../lib/format.ts";
import { EmptyState, ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { useArticle } from "../api.ts";
import { ArticleBody } from "./ArticleBody.tsx";
import s from "./news.module.css";

export default function NewsDetailPage() {
  const [params] = useSearchParams();
  const id = params.get("id") ?? "";
  const valid = /^\d+$/.test(id);
  const { data, error, loading, reload } = useArticle(id, valid);

  if (!valid) return <EmptyState text={m.article_missing()} />;
  if (loading) {
    return (
      <div className="article page-pad">
        <SkeletonBlock height={28} />
        <SkeletonBlock height={16} />
        <SkeletonBlock height={220} />
      </div>
    );
  }
  if (error) {
    return error.code === "not_found" ? <EmptyState text={m.article_missing()} /> : <ErrorState message={error.message} onRetry={reload} />;
  }
  const vo = data?.vo;
  if (!vo) return <EmptyState text={m.article_missing()} />;

  return (
    <article className="article page-pad" data-testid="article">
      <h2 className={s.articleHeading}>{vo.title}</h2>
      <p className={`${s.articleMeta} num`}>{formatDateTime(vo.create_time)}</p>
      {vo.cover ? <img className={s.articleHero} src={vo.cover} alt="" /> : null}
      <ArticleBody html={vo.content ?? ""} />
    </article>
  );
}
