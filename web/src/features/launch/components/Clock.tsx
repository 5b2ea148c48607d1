/** The commit window's state with a live countdown (re-rendered every second). */
import { useEffect, useState } from "react";
import { m } from "../../../i18n/index.ts";
import type { LaunchProject } from "../api.ts";
import { countdown, windowState } from "../display.ts";
import s from "./launch.module.css";

export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

export function Clock({ project }: { project: LaunchProject }) {
  const now = useNow();
  const state = windowState(project, now);
  const text =
    state === "upcoming"
      ? m.launch_state_upcoming({ time: countdown(project.start_at - now) })
      : state === "open"
        ? m.launch_state_open({ time: countdown(project.end_at - now) })
        : state === "cancelled"
          ? m.launch_state_cancelled()
          : m.launch_state_closed();
  const tone = state === "open" ? "badge-ok" : state === "upcoming" ? "badge-pending" : state === "cancelled" ? "badge-bad" : "badge-none";
  return (
    <span className={`badge ${tone} num ${s.clock}`} data-testid="launch-clock" data-state={state}>
      {text}
    </span>
  );
}

/** The published vesting schedule in words. */
export function vestingText(p: { cliff_days: number; vest_days: number; vest_steps: number }): string {
  const cliff = String(p.cliff_days);
  const days = String(p.vest_days);
  if (p.vest_days === 0) return p.cliff_days === 0 ? m.launch_vesting_none() : m.launch_vesting_cliff_only({ cliff });
  return p.vest_steps > 0 ? m.launch_vesting_steps({ cliff, days, steps: String(p.vest_steps) }) : m.launch_vesting_linear({ cliff, days });
}
