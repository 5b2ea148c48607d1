/** News list (spec §2): paged, newest first. */
import { fetchNewsPage } from "../api.ts";
import { ArticleList } from "./ArticleList.tsx";
import "./news.module.css";

export default function NewsListPage() {
  return <ArticleList fetchPage={fetchNewsPage} variant="news" />;
}
