/** Renders the toast queue (lib/toast.ts) at the top of the app column. */
import { useStore } from "@nanostores/react";
import { $toasts, dismissToast, type Toast } from "../lib/toast.ts";

function Content({ t }: { t: Toast }) {
  if (t.detail === undefined) return <>{t.text}</>;
  return (
    <>
      <span className="toast-title">{t.text}</span>
      <span className="toast-detail">{t.detail}</span>
    </>
  );
}

export function Toaster() {
  const toasts = useStore($toasts);
  return (
    <div className="toaster" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}${t.detail !== undefined ? " toast-rich" : ""}`} role={t.kind === "error" ? "alert" : "status"} onClick={() => dismissToast(t.id)} data-testid={t.key ? "notice-toast" : undefined}>
          {t.onTap ? (
            <button
              type="button"
              className="toast-tap"
              onClick={(e) => {
                e.stopPropagation();
                dismissToast(t.id);
                t.onTap?.();
              }}
            >
              <Content t={t} />
            </button>
          ) : (
            <Content t={t} />
          )}
          {t.action && (
            <button
              type="button"
              className="toast-action"
              data-testid="toast-action"
              onClick={(e) => {
                e.stopPropagation();
                dismissToast(t.id);
                t.action?.onTap();
              }}
            >
              {t.action.label}
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
