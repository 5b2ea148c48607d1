/**
 * The confirmation sheet of every buy flow (cover, shares, a launch commitment, a vote...) and of
 * every console dialog: a title, what is about to happen (the children), "cancel" (or "back") and
 * one button that says what it does, with a spinner while the call runs. Escape and the backdrop
 * close it unless it is busy (components/Modal.tsx).
 */
import { useState, type ReactNode } from "react";
import { m } from "../i18n/index.ts";
import { Modal } from "./Modal.tsx";
import { Spinner } from "./States.tsx";
import acct from "./account.module.css";

export function ConfirmSheet({
  title,
  onClose,
  onConfirm,
  confirmText,
  busy,
  testId,
  confirmTestId,
  confirmDisabled = false,
  danger = false,
  back = false,
  cancelStyle = "btn-ghost",
  cancelTestId,
  children,
}: {
  title: string;
  onClose: () => void;
  onConfirm: () => void;
  /** Says what the button does ("Pay 5 USDT", "Close plan"), never "OK". */
  confirmText: ReactNode;
  busy: boolean;
  testId?: string;
  confirmTestId?: string;
  confirmDisabled?: boolean;
  danger?: boolean;
  /** "Back" instead of "Cancel" on the first button. */
  back?: boolean;
  cancelStyle?: "btn-ghost" | "btn-outline";
  cancelTestId?: string;
  children: ReactNode;
}) {
  return (
    <Modal
      title={title}
      onClose={onClose}
      busy={busy}
      testId={testId}
      dismiss={{ text: back ? m.go_back() : undefined, testId: cancelTestId, outline: cancelStyle === "btn-outline" }}
      actions={
        <button type="button" className={`btn ${danger ? acct.btnDanger : "btn-primary"}`} onClick={onConfirm} disabled={busy || confirmDisabled} data-testid={confirmTestId}>
          {busy && <Spinner size={16} />}
          {confirmText}
        </button>
      }
    >
      {children}
    </Modal>
  );
}

/** An error line under a form or in a sheet (role=alert, so a screen reader says it at once). */
export function SheetError({ text, testId }: { text: string | null | undefined; testId?: string }) {
  if (!text) return null;
  return (
    <p className="field-error" role="alert" data-testid={testId}>
      {text}
    </p>
  );
}

/**
 * The state of a sheet's one call: `busy` while it runs, and an `error` line. `run` waits for the
 * call; a failure goes to `onFail` (e.g. to show the message in the sheet), else it is left to the
 * API client, which has already shown the server's message.
 */
export function useSheetAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const run = async (call: () => Promise<unknown>, onFail?: (e: unknown) => void) => {
    setBusy(true);
    try {
      await call();
    } catch (e) {
      onFail?.(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
