/**
 * The footer tabs (spec §2): home, quotations, exchange, trade, assets, with their icon and
 * whether the screen needs a login. Plain data, read by the tab bar (TabBar.tsx), the route table
 * (routes.tsx: these routes are the tab screens) and the build, which draws index.html's start-up
 * shell from it (web/shell.ts), so the shell's tab bar is the one the app paints first.
 */
import type { IconName } from "../components/iconPaths.ts";

export interface Tab {
  to: string;
  icon: IconName;
  auth: boolean;
}

export const TABS = [
  { to: "/", icon: "home", auth: false },
  { to: "/quotations", icon: "markets", auth: false },
  { to: "/exchange", icon: "exchange", auth: false },
  { to: "/trade", icon: "trade", auth: false },
  { to: "/assets", icon: "wallet", auth: true },
] as const satisfies readonly Tab[];

export type TabPath = (typeof TABS)[number]["to"];

/** A tab screen's route flags: it is a tab, and needs a login when its tab says so. */
export function tabRoute(path: TabPath): { auth: boolean; tab: true } {
  const tab = TABS.find((t) => t.to === path);
  return { auth: tab?.auth ?? false, tab: true };
}
