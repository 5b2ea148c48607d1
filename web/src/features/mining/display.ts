/** Plain helpers of the mining screens (no React): UTC hours and the badge tone of a payout's status. */
import type { MiningPayout } from "../../../../schemas/mining.ts";

/** "YYYY-MM-DD HH:00" (UTC) of an hour's start. */
export const utcHour = (ms: number): string => new Date(ms).toISOString().slice(0, 13).replace("T", " ") + ":00";

/** The first whole hour a purchase made at `now` counts for. */
export const firstHour = (now: number): number => Math.ceil(now / 3_600_000) * 3_600_000;

export function payoutTone(s: MiningPayout["status"]): "ok" | "pending" | "bad" {
  return s === "paid" ? "ok" : s === "rejected" ? "bad" : "pending";
}
