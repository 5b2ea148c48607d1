/** Pure helpers of the launch screens (tests/web/launch.test.ts): window state, countdown, vesting words. */
import type { LaunchProject } from "../../../../schemas/launch.ts";

export type WindowState = "upcoming" | "open" | "closed" | "cancelled";

/** Where a project's commit window stands at `now`, as the user sees it. */
export function windowState(p: Pick<LaunchProject, "status" | "start_at" | "end_at">, now: number): WindowState {
  if (p.status === "cancelling" || p.status === "cancelled") return "cancelled";
  if (p.status !== "open" || now >= p.end_at) return "closed";
  return now < p.start_at ? "upcoming" : "open";
}

/** A duration as "2d 03:04:05" (days only when there are any); never negative. */
export function countdown(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86_400);
  const hms = [Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, "0")).join(":");
  return d > 0 ? `${d}d ${hms}` : hms;
}
