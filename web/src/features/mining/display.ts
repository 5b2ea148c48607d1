/** Plain helpers of the mining screens (no React): the first hour a purchase counts for and the badge tone of a payout's status. */
import type { MiningPayout } from "../../../../schemas/mining.ts";

/** The first whole hour a purchase made at `now` counts for. */
export const firstHour = (now: number): number => Math.ceil(now / 3_600_000) * 3_600_000;

export function payoutTone(s: MiningPayout["status"]): "ok" | "pending" | "bad" {
  return s === "paid" ? "ok" : s === "rejected" ? "bad" : "pending";
}
