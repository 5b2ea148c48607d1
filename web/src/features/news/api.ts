/** News, help articles and the user agreement (spec §7). Content comes in the request's language. */
import type { NewsPage } from "../../../../schemas/content.ts";
import { call, client } from "../../lib/api.ts";
import { cachedFor, pagesById, usePagedQuery, useScreenQuery } from "../../lib/query.ts";

export type ArticlePage = NewsPage;

export const fetchNewsPage = (page: number, signal?: AbortSignal) =>
  call((o) => client.api.new.news.index.$get({ query: { page: String(page) } }, o), { notify: false, signal });

export const fetchHelpPage = (page: number, signal?: AbortSignal) =>
  call((o) => client.api.new.news.newsHelp.$get({ query: { page: String(page) } }, o), { notify: false, signal });

export const fetchArticle = (id: string, signal: AbortSignal) =>
  call((o) => client.api.new.news.show[":id"].$get({ param: { id } }, o), { notify: false, signal });

export const fetchAgreement = (signal: AbortSignal) => call((o) => client.api.new.home.agreement.$get({}, o), { notify: false, signal });

/** Published texts change rarely: a screen opened again within 5 minutes shows them without a reload. */
const CONTENT_STALE_MS = 5 * 60_000;

export type ArticleRow = ArticlePage["lists"][number];

export const useArticlePages = (kind: "news" | "help") =>
  usePagedQuery({ queryKey: ["news", kind], fetchPage: kind === "news" ? fetchNewsPage : fetchHelpPage, view: pagesById<ArticleRow> });

export const useArticle = (id: string, enabled: boolean) =>
  useScreenQuery({ queryKey: ["news", "article", id], queryFn: ({ signal }) => fetchArticle(id, signal), enabled, ...cachedFor(CONTENT_STALE_MS) });

export const useAgreement = () =>
  useScreenQuery({ queryKey: ["agreement"], queryFn: ({ signal }) => fetchAgreement(signal), ...cachedFor(CONTENT_STALE_MS) });
