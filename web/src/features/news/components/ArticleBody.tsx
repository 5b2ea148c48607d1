/** Sanitised article HTML (lib/html.ts). */
import { useMemo } from "react";
import { sanitizeHtml } from "../../../lib/html.ts";
import s from "./news.module.css";

export function ArticleBody({ html }: { html: string }) {
  const safe = useMemo(() => sanitizeHtml(html), [html]);
  return <div className={s.articleBody} dangerouslySetInnerHTML={{ __html: safe }} />;
}
