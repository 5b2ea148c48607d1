/** Pieces shared by the console sections: status filter chips, the decision dialog, review queue lists, list footers. */
import { Fragment, useState, type ReactNode } from "react";
import { m } from "../../../i18n/index.ts";
import type { PagedList } from "../../../lib/query.ts";
import { ConfirmSheet } from "../../../components/ConfirmSheet.tsx";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { ListFooter } from "../../../components/ListFooter.tsx";
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
  /** Says what the button does ("Reject deposit", "Mark failed and refund 10 USDT"), never "OK" or "Confirm". */
  confirmText: string;
  /** A reason must be typed (rejections, chain failures). */
  reasonRequired: boolean;
  /** Ask for the chain transaction id (chain success): required, letters and digits. */
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
    if (decision.txid && !txid.trim()) {
      setError(m.op_txid_required());
      return;
    }
    if (decision.txid && !/^[A-Za-z0-9]{1,128}$/.test(txid)) {
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
    <ConfirmSheet
      title={decision.title}
      onClose={onClose}
      onConfirm={() => void go()}
      confirmText={decision.confirmText}
      busy={busy}
      testId="decision-dialog"
      confirmTestId="decision-confirm"
      danger={decision.danger}
      back
      cancelTestId="decision-back"
    >
      {decision.summary}
      {decision.txid && (
        <label className={`field ${s.decisionField}`}>
          <span className="field-label">{m.op_txid()}</span>
          <input className="input" value={txid} onChange={(e) => { setTxid(e.target.value.trim()); setError(""); }} required aria-required="true" autoCapitalize="off" spellCheck={false} data-testid="decision-txid" />
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
    </ConfirmSheet>
  );
}

/**
 * The decision dialog of a section, opened by `open`. `onDone` runs once a decision went through:
 * a queue that resets to page 1 passes its reload; without one, the mutation's invalidation
 * refreshes the pages in place.
 */
export function useDecisionDialog(onDone?: () => void) {
  const [decision, setDecision] = useState<Decision | null>(null);
  const dialog = decision && (
    <DecisionDialog
      decision={decision}
      onClose={() => setDecision(null)}
      onDone={() => {
        setDecision(null);
        onDone?.();
      }}
    />
  );
  return { open: setDecision, dialog };
}

/** One pair for every queue, so reject and approve keep the same words, order and weight on each screen an operator decides on. */
export function ApproveRejectButtons({ onReject, onApprove, rejectTestId, approveTestId, approveDisabled }: { onReject: () => void; onApprove: () => void; rejectTestId: string; approveTestId: string; approveDisabled?: boolean }) {
  return (
    <div className={acct.btnRow}>
      <button type="button" className="btn btn-outline btn-small" onClick={onReject} data-testid={rejectTestId}>{m.op_reject()}</button>
      <button type="button" className="btn btn-primary btn-small" onClick={onApprove} disabled={approveDisabled} data-testid={approveTestId}>{m.op_approve()}</button>
    </div>
  );
}

/**
 * The loading, failed, empty and paging states are the same in every review queue, so they live
 * here once; what a record shows and which actions it offers differ, so each screen draws its own
 * card (`<li>`).
 */
export function QueueList<T extends { id: number }>({ list, renderItem }: { list: PagedList<T>; renderItem: (item: T) => ReactNode }) {
  return (
    <>
      {list.loading ? (
        <SkeletonList rows={3} />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : list.items.length === 0 ? (
        <EmptyState text={m.op_queue_empty()} />
      ) : (
        <ul className={acct.recordList}>
          {list.items.map((item) => (
            <Fragment key={item.id}>{renderItem(item)}</Fragment>
          ))}
        </ul>
      )}
      <ListFooter hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} onMore={list.loadMore} count={list.items.length} />
    </>
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

export { ListFooter };

// Shared words of the console live in ../labels.ts (plain functions, unit-tested).
export { accountText, userLabel } from "../labels.ts";
