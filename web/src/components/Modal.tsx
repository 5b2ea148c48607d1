/**
 * A dialog with arbitrary content (a withdrawal summary, a reason to type) for screens whose
 * confirmation needs more than the one-line global confirm (lib/dialog.ts). Escape and the
 * backdrop close it unless it is busy. `dismiss` draws the first button, the one that backs out
 * ("Cancel" unless told otherwise; disabled while busy), before the dialog's own `actions`.
 */
import { useEffect, useRef, type ReactNode } from "react";
import { m } from "../i18n/index.ts";
import s from "./Modal.module.css";

export type Dismiss = true | { text?: string; testId?: string; outline?: boolean; onClick?: () => void };

export function Modal({
  title,
  children,
  onClose,
  actions,
  dismiss,
  busy = false,
  testId,
}: {
  title: string;
  children: ReactNode;
  onClose: () => void;
  actions: ReactNode;
  dismiss?: Dismiss;
  busy?: boolean;
  testId?: string;
}) {
  const d = dismiss === true ? {} : dismiss;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !busy) onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [busy, onClose]);
  return (
    <div className="modal-backdrop" onClick={() => !busy && onClose()}>
      <div
        className={`dialog ${s.dialogWide}`}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        tabIndex={-1}
        ref={ref}
        onClick={(e) => e.stopPropagation()}
        data-testid={testId}
      >
        <h2 className="dialog-title">{title}</h2>
        <div className={s.dialogContent}>{children}</div>
        <div className="dialog-actions">
          {d && (
            <button type="button" className={`btn ${d.outline ? "btn-outline" : "btn-ghost"}`} onClick={d.onClick ?? onClose} disabled={busy} data-testid={d.testId}>
              {d.text ?? m.cancel()}
            </button>
          )}
          {actions}
        </div>
      </div>
    </div>
  );
}
