/** Calls `onVisible` when the sentinel element scrolls into view (the infinite-list trigger). */
import { useEffect, useRef } from "react";

export function useSentinel(onVisible: () => void, enabled: boolean) {
  const ref = useRef<HTMLDivElement | null>(null);
  const cb = useRef(onVisible);
  cb.current = onVisible;
  useEffect(() => {
    const el = ref.current;
    if (!el || !enabled || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) cb.current();
    }, { rootMargin: "120px" });
    io.observe(el);
    return () => io.disconnect();
  }, [enabled]);
  return ref;
}
