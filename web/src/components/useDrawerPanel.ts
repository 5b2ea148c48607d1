/**
 * Focus and Escape for a side drawer's panel (the app menu and the pair list): the panel takes
 * focus when it opens, so the keyboard and screen readers start inside the dialog; Escape closes it.
 */
import { useEffect, useRef } from "react";

export function useDrawerPanel<T extends HTMLElement = HTMLElement>(open: boolean, onClose: () => void) {
  const panel = useRef<T>(null);
  useEffect(() => {
    if (!open) return;
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open, onClose]);
  return panel;
}
