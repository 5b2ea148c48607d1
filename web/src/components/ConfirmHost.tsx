/** The single confirm dialog (lib/dialog.ts), e.g. "Reminder → go to identity verification". */
import { useStore } from "@nanostores/react";
import { useEffect, useRef } from "react";
import { $confirm, closeConfirm } from "../lib/dialog.ts";

export function ConfirmHost() {
  const req = useStore($confirm);
  const confirmRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!req) return;
    confirmRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        req.onCancel?.();
        closeConfirm();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [req]);

  if (!req) return null;
  return (
    <div className="modal-backdrop" onClick={() => { req.onCancel?.(); closeConfirm(); }}>
      <div className="dialog" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" onClick={(e) => e.stopPropagation()}>
        <h2 id="confirm-title" className="dialog-title">{req.title}</h2>
        <p className="dialog-body">{req.message}</p>
        <div className="dialog-actions">
          <button type="button" className="btn btn-ghost" onClick={() => { req.onCancel?.(); closeConfirm(); }}>
            {req.cancelText}
          </button>
          <button type="button" ref={confirmRef} className="btn btn-primary" onClick={() => { closeConfirm(); req.onConfirm(); }}>
            {req.confirmText}
          </button>
        </div>
      </div>
    </div>
  );
}
