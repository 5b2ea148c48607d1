/** Sanitised article HTML (lib/html.ts). */
import { useMemo } from "react";
import { sanitizeHtml } from "../../../lib/html.ts";

export function ArticleBody({ html }: { html: string }) {
  const safe = useMemo(() => sanitizeHtml(html), [html]);
  return <div className="article-body" dangerouslySetInnerHTML={{ __html: safe }} />;
}
