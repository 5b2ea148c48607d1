/** Refresh rules of the spot screens' lists (pure: no browser APIs, unit-tested in tests/web). */

/** How often the pair list (the drawer's prices and changes) is asked again while the screen is visible (spec §9: quotations every 10 s). */
export const PAIRS_REFRESH_MS = 10_000;

/**
 * The pair list stays live while the exchange screen is on screen: asked again every
 * PAIRS_REFRESH_MS while the page is visible, and at once when it becomes visible or focused
 * again; never on the interval in a hidden tab (as the C2C market list).
 */
export const pairsRefresh = {
  refetchOnWindowFocus: "always",
  refetchInterval: PAIRS_REFRESH_MS,
  refetchIntervalInBackground: false,
} as const;
