/** Small timers of the C2C screens. */
import { useEffect, useState } from "react";
import { useSearchParams } from "react-router";

/** The current time in ms, updated every `everyMs` while `active`. */
export function useNow(everyMs = 1000, active = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs, active]);
  return now;
}

/** The `?id=` of an order screen, or 0 when missing or not a positive integer. */
export function useIdParam(): number {
  const [params] = useSearchParams();
  const raw = params.get("id") ?? "";
  return /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
}
