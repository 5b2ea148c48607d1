/**
 * The pure parts of the invite screens, unit-tested: how far one's invitees' fees are from the
 * next agent level, what the share sheet carries, and how pages of id-less rows read as one
 * list. Money stays decimal strings and bigint.
 */
import { formatUnits, parseUnits } from "../../../../schemas/decimal.ts";
import type { PageView } from "../../lib/query.ts";

const SCALE = 8;
const CENT = 10n ** BigInt(SCALE - 2);

export interface AgentProgress {
  /** share of the threshold reached, whole percent 0–100 (for the bar; 100 once reached) */
  percent: number;
  /** USDT still missing, rounded UP to the cent so that paying it reaches the level; "0.00" once reached */
  missing: string;
}

/**
 * Progress of the last 30 days' invitee fees towards the next agent level's threshold. Anything
 * that is not a decimal reads as nothing reached.
 */
export function agentProgress(fees30d: string, threshold: string): AgentProgress {
  const fees = parseUnits(fees30d, SCALE) ?? 0n;
  const goal = parseUnits(threshold, SCALE) ?? 0n;
  if (goal <= 0n || fees >= goal) return { percent: 100, missing: "0.00" };
  const percent = Number((fees * 100n) / goal);
  const gap = goal - fees;
  const cents = (gap + CENT - 1n) / CENT;
  return { percent, missing: formatUnits(cents, 2) };
}

/**
 * What the Web Share API is handed: a title, a sentence naming the code, and the link itself
 * (share targets put the url after the text, so the link is not repeated in the text).
 */
export function shareData(title: string, text: string, link: string): ShareData {
  return { title, text, url: link };
}

/** Whether this browser can open its share sheet for these data (otherwise the link is copied). */
export function canShare(nav: Pick<Navigator, "share" | "canShare"> | undefined, data: ShareData): boolean {
  if (!nav || typeof nav.share !== "function") return false;
  if (typeof nav.canShare !== "function") return true;
  try {
    return nav.canShare(data);
  } catch {
    return false;
  }
}

/**
 * Pages of rows that carry no id, read as one list: the rows in order, and the list's total. A
 * page that brings no row ends the list (the server has no more), as lib/query's pagesById does.
 */
export function pagesInOrder<T>(pages: readonly { total: number; lists: T[] }[]): PageView<T> {
  const items: T[] = [];
  let total = 0;
  pages.forEach((page, i) => {
    items.push(...page.lists);
    total = i > 0 && page.lists.length === 0 ? items.length : page.total;
  });
  return { items, total };
}
