/** Pieces shared by the console sections: status filter chips, the decision dialog, list footers. */
import { useState, type ReactNode } from "react";
import { m } from "../../../i18n/index.ts";
import { useSentinel } from "../../../lib/useSentinel.ts";
import { Modal } from "../../../components/Modal.tsx";
import { Spinner } from "../../../components/States.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

export function StatusFilter<T extends number | undefined>({ value, options, onChange }: { value: T; options: { value: T; label: string }[]; onChange: (v: T) => void }) {
  return (
    <div className={`${acct.chips} ${s.adminFilter}`} role="radiogroup" aria-label={m.op_filter()}>
      {options.map((o) => (
        <button key={String(o.value)} type="button" role="radio" aria-checked={value === o.value} className={value === o.value ? "active" : ""} onClick={() => onChange(o.value)} data-testid={`filter-${String(o.value ?? "all")}`}>
          {o.label}
        </button>
      ))}
    </div>
  );
}

export interface Decision {
  title: string;
  confirmText: string;
  /** A reason must be typed (rejections, chain failures). */
  reasonRequired: boolean;
  /** Ask for the chain transaction id (chain success). */
  txid?: boolean;
  danger?: boolean;
  summary?: ReactNode;
  run: (reason: string, txid: string) => Promise<unknown>;
}

/** The dialog every operator action goes through: a summary, the reason (required or optional) and confirm. */
export function DecisionDialog({ decision, onClose, onDone }: { decision: Decision; onClose: () => void; onDone: () => void }) {
  const [reason, setReason] = useState("");
  const [txid, setTxid] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const go = async () => {
    if (decision.reasonRequired && !reason.trim()) {
      setError(m.op_reason_required());
      return;
    }
    if (decision.txid && txid && !/^[A-Za-z0-9]{1,128}$/.test(txid)) {
      setError(m.op_txid_invalid());
      return;
    }
    setBusy(true);
    try {
      await decision.run(reason.trim(), txid.trim());
      onDone();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={decision.title}
      onClose={onClose}
      busy={busy}
      testId="decision-dialog"
      actions={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={busy}>
            {m.cancel()}
          </button>
          <button type="button" className={`btn ${decision.danger ? acct.btnDanger : "btn-primary"}`} onClick={go} disabled={busy} data-testid="decision-confirm">
            {busy && <Spinner size={16} />}
            {decision.confirmText}
          </button>
        </>
      }
    >
      {decision.summary}
      {decision.txid && (
        <label className={`field ${s.decisionField}`}>
          <span className="field-label">{m.op_txid()} <span className="muted">({m.wallet_optional()})</span></span>
          <input className="input" value={txid} onChange={(e) => { setTxid(e.target.value.trim()); setError(""); }} autoCapitalize="off" spellCheck={false} data-testid="decision-txid" />
        </label>
      )}
      <label className={`field ${s.decisionField}`}>
        <span className="field-label">
          {m.op_reason()} {!decision.reasonRequired && <span className="muted">({m.wallet_optional()})</span>}
        </span>
        <textarea className={`input ${acct.textarea}`} rows={3} maxLength={500} value={reason} onChange={(e) => { setReason(e.target.value); setError(""); }} aria-invalid={!!error} data-testid="decision-reason" />
      </label>
      {error && <p className="field-error">{error}</p>}
      <p className="form-note">{m.op_audit_note()}</p>
    </Modal>
  );
}

export function ListFooter({ hasMore, loadingMore, moreError, onMore, count }: { hasMore: boolean; loadingMore: boolean; moreError: boolean; onMore: () => void; count: number }) {
  const ref = useSentinel(onMore, hasMore && !moreError);
  if (count === 0) return null;
  return (
    <div className={acct.listFooter} ref={ref}>
      {loadingMore ? (
        <Spinner size={18} />
      ) : moreError ? (
        <button type="button" className="text-btn" onClick={onMore}>{m.load_failed()} · {m.retry()}</button>
      ) : hasMore ? (
        <button type="button" className="text-btn" onClick={onMore}>{m.load_more()}</button>
      ) : (
        <span className="muted">{m.no_more()}</span>
      )}
    </div>
  );
}

export function Kv({ label, children, mono = false, testId }: { label: string; children: ReactNode; mono?: boolean; testId?: string }) {
  return (
    <div className={acct.kvRow}>
      <dt>{label}</dt>
      <dd className={mono ? acct.monoBreak : "num"} data-testid={testId}>{children}</dd>
    </div>
  );
}

// Shared words of the console live in ../labels.ts (plain functions, unit-tested).
export { accountText, userLabel } from "../labels.ts";
