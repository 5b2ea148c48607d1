/** Plain helpers of the cover screens (no React): UTC days and the status badge's tone. */
import type { InsuranceStatus } from "../../../../schemas/insurance.ts";

/** The UTC calendar day of a moment, "YYYY-MM-DD" (T+1 and the end date are UTC days). */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** 00:00 UTC of the day after `now`: when a cover bought now takes effect. */
export const nextUtcDay = (now: number): number => Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000;

export function statusTone(s: InsuranceStatus): "ok" | "pending" | "bad" | "none" {
  switch (s) {
    case "claimable":
      return "bad";
    case "pending":
    case "processing":
      return "pending";
    case "active":
    case "paid":
      return "ok";
    default:
      return "none";
  }
}
