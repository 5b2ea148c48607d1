/**
 * Loads data for a screen: loading → data | error, a reload() for the retry button, and optional
 * polling that keeps showing the last good data while refreshing (a failed background refresh
 * keeps the old rows rather than blanking the screen; with no rows, it shows the newest error).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiFailure } from "./api.ts";

export interface RequestState<T> {
  data: T | undefined;
  error: ApiFailure | null;
  loading: boolean;
  reload: () => void;
}

export function useRequest<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: readonly unknown[],
  options: { refreshMs?: number; enabled?: boolean } = {},
): RequestState<T> {
  const { refreshMs, enabled = true } = options;
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState<boolean>(enabled);
  const [attempt, setAttempt] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const hasData = useRef(false);
  hasData.current = data !== undefined;

  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    let alive = true;
    setLoading(true);
    setError(null);
    loadRef
      .current(controller.signal)
      .then((value) => {
        if (!alive) return;
        setData(value);
        setLoading(false);
      })
      .catch((err: unknown) => {
        if (!alive) return;
        setError(err instanceof ApiFailure ? err : new ApiFailure("error", String(err)));
        setLoading(false);
      });

    let timer: ReturnType<typeof setInterval> | undefined;
    if (refreshMs) {
      timer = setInterval(() => {
        if (document.visibilityState === "hidden") return;
        loadRef
          .current(controller.signal)
          .then((value) => {
            if (alive) {
              setData(value);
              setError(null);
            }
          })
          .catch((err: unknown) => {
            // Keep the last good data (the next tick tries again). A screen that has no data shows
            // the newest reason instead, not the one from a load that is long over.
            if (alive && !hasData.current) setError(err instanceof ApiFailure ? err : new ApiFailure("error", String(err)));
          });
      }, refreshMs);
    }
    return () => {
      alive = false;
      controller.abort();
      if (timer) clearInterval(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, attempt, enabled, refreshMs]);

  const reload = useCallback(() => setAttempt((a) => a + 1), []);
  return { data, error, loading, reload };
}

/** A number of seconds counting down to zero once per second (code resend, spec §4). */
export function useCountdown(): [number, (seconds: number) => void] {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (left <= 0) return;
    const t = setTimeout(() => setLeft((s) => s - 1), 1000);
    return () => clearTimeout(t);
  }, [left]);
  return [left, setLeft];
}
