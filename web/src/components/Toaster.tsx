/** Renders the toast queue (lib/toast.ts) at the top of the app column. */
import { useStore } from "@nanostores/react";
import { $toasts, dismissToast } from "../lib/toast.ts";

export function Toaster() {
  const toasts = useStore($toasts);
  return (
    <div className="toaster" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} role={t.kind === "error" ? "alert" : "status"} onClick={() => dismissToast(t.id)}>
          {t.text}
        </div>
      ))}
    </div>
  );
}
