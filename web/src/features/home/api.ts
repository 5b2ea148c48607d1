/** The home screen's one call (spec §7 GET /api/new/home/index). */
import type { Banner, HomeIndex, NoticeItem } from "../../../../schemas/content.ts";
import { call, client } from "../../lib/api.ts";

export type { Banner, HomeIndex as HomeData };
export type Notice = NoticeItem;

export const fetchHome = (signal: AbortSignal) =>
  call((o) => client.api.new.home.index.$get({}, o), { notify: false, signal });
