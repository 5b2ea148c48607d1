/** News, help articles and the user agreement (spec §7). Content comes in the request's language. */
import type { NewsPage } from "../../../../schemas/content.ts";
import { call, client } from "../../lib/api.ts";

export type ArticlePage = NewsPage;

export const fetchNewsPage = (page: number, signal?: AbortSignal) =>
  call((o) => client.api.new.news.index.$get({ query: { page: String(page) } }, o), { notify: false, signal });

export const fetchHelpPage = (page: number, signal?: AbortSignal) =>
  call((o) => client.api.new.news.newsHelp.$get({ query: { page: String(page) } }, o), { notify: false, signal });

export const fetchArticle = (id: string, signal: AbortSignal) =>
  call((o) => client.api.new.news.show[":id"].$get({ param: { id } }, o), { notify: false, signal });

export const fetchAgreement = (signal: AbortSignal) => call((o) => client.api.new.home.agreement.$get({}, o), { notify: false, signal });
