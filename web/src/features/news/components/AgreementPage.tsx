/** The user agreement in the current language. */
import { EmptyState, ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { useAgreement } from "../api.ts";
import { ArticleBody } from "./ArticleBody.tsx";
import s from "./news.module.css";

export default function AgreementPage() {
  const { data, error, loading, reload } = useAgreement();
  if (loading) {
    return (
      <div className="article page-pad">
        <SkeletonBlock height={28} />
        <SkeletonBlock height={300} />
      </div>
    );
  }
  if (error) return <ErrorState message={error.message} onRetry={reload} />;
  if (!data || !data.content) return <EmptyState />;
  return (
    <article className="article page-pad" data-testid="agreement">
      {data.title && <h2 className={s.articleHeading}>{data.title}</h2>}
      <ArticleBody html={data.content} />
    </article>
  );
}
