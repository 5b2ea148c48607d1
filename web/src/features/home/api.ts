/** The home screen's one call (spec §7 GET /api/new/home/index). */
import { api } from "../../lib/api.ts";
import { getAppLocale } from "../../i18n/index.ts";
import type { QuotationRow } from "../../lib/market.ts";

export interface Banner {
  id: number;
  cover: string;
}

export interface Notice {
  id: number;
  title: string;
  create_time: string | number;
}

export interface HomeData {
  banner_list: Banner[];
  notice_list: Notice[];
  quotation_new: { quotation: QuotationRow[] }[];
  kefu?: string | null;
  user?: { review_status?: number; name?: string | null } | null;
}

export const fetchHome = (signal: AbortSignal) =>
  api.get<HomeData>("/api/new/home/index", { query: { lang: getAppLocale() }, notify: false, signal });
