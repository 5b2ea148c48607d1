/** The home screen's one call (spec §7 GET /api/new/home/index). */
import type { Banner, HomeIndex, NoticeItem } from "../../../../schemas/content.ts";
import { call, client } from "../../lib/api.ts";
import { cachedFor, useScreenQuery } from "../../lib/query.ts";

export type { Banner, HomeIndex as HomeData };
export type Notice = NoticeItem;

export const fetchHome = (signal: AbortSignal) =>
  call((o) => client.api.new.home.index.$get({}, o), { notify: false, signal, failover: true });

/** Spec §9: the home list refreshes every 10 s while the screen is open. */
export const HOME_REFRESH_MS = 10_000;

/** The home answer, polled every 10 s (kept on screen when a refresh fails). */
export const useHome = () =>
  useScreenQuery({ queryKey: ["home"], queryFn: ({ signal }) => fetchHome(signal), refetchInterval: HOME_REFRESH_MS, ...cachedFor(HOME_REFRESH_MS) });
