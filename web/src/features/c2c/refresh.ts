/**
 * How the market list (/legal/index) stays honest while it is on screen: other users take adverts
 * all the time, so the remaining amounts and limits shown go stale. The list is asked again when
 * the page becomes visible or focused again (TanStack's focus manager follows visibilitychange),
 * and every MARKET_REFRESH_MS while it is visible; never in a hidden tab.
 */
export const MARKET_REFRESH_MS = 15_000;

export const marketRefresh = {
  refetchOnWindowFocus: "always",
  refetchInterval: MARKET_REFRESH_MS,
  refetchIntervalInBackground: false,
} as const;
