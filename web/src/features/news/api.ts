/** News, help articles and the user agreement (spec §7). Content comes in the request's language. */
import { api } from "../../lib/api.ts";

export interface ArticleSummary {
  id: number;
  title: string;
  create_time: string | number;
  cover?: string | null;
}

export interface Article extends ArticleSummary {
  content: string;
}

export interface ArticlePage {
  total: number;
  lists: ArticleSummary[];
}

export const fetchNewsPage = (page: number, signal?: AbortSignal) =>
  api.get<ArticlePage>("/api/new/news/index", { query: { page }, notify: false, ...(signal ? { signal } : {}) });

export const fetchHelpPage = (page: number, signal?: AbortSignal) =>
  api.get<ArticlePage>("/api/new/news/newsHelp", { query: { page }, notify: false, ...(signal ? { signal } : {}) });

export const fetchArticle = (id: string, signal: AbortSignal) =>
  api.get<{ vo: Article }>(`/api/new/news/show/${encodeURIComponent(id)}`, { notify: false, signal });

export const fetchAgreement = (signal: AbortSignal) =>
  api.get<{ title: string; content: string }>("/api/new/home/agreement", { notify: false, signal });
