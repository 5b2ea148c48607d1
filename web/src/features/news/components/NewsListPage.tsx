/** News list (spec §2): paged, newest first. */
import { ArticleList } from "./ArticleList.tsx";
import "./news.module.css";

export default function NewsListPage() {
  return <ArticleList variant="news" />;
}
