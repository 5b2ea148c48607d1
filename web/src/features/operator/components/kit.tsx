/**
 * The console kit: the pieces every console section is drawn from, so a section states only what
 * it shows and sends. A section head (subtitle and its one action), a list that waits, fails or is
 * empty in the same way everywhere, a record card, and a form dialog with its fields (text, select,
 * checkbox, the audited reason) and one error line.
 */
import type { ReactNode } from "react";
import { m } from "../../../i18n/index.ts";
import { toast } from "../../../lib/toast.ts";
import { useSentinel } from "../../../lib/useSentinel.ts";
import { ConfirmSheet, SheetError, useSheetAction } from "../../../components/ConfirmSheet.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";
import { Field } from "../../../components/Field.tsx";

/** A subtitle with the section's one action to the right ("Add", "Edit", "Settle a past day"). */
export function SectionHead({ title, action, onAction, actionTestId, actionDisabled = false }: { title: string; action: string; onAction: () => void; actionTestId: string; actionDisabled?: boolean }) {
  return (
    <div className={s.secHead}>
      <h3 className={s.adminSubtitle}>{title}</h3>
      <button type="button" className="btn btn-outline btn-small" onClick={onAction} disabled={actionDisabled} data-testid={actionTestId}>
        {action}
      </button>
    </div>
  );
}

/** What a screen query gives a list: the answer once there is one, the failure, and a retry. */
interface Loadable<T> {
  data: T | undefined;
  error: { message: string } | null;
  reload: () => void;
}

/**
 * A loaded list's states: skeleton rows until the first answer, the failure with a retry while
 * there is nothing to show, the empty state, then the list itself (`children`).
 */
export function Loaded<T>({ q, rows, empty, emptyText, children }: { q: Loadable<T>; rows: number; empty: (data: T) => boolean; emptyText?: string; children: (data: T) => ReactNode }) {
  if (q.error && !q.data) return <ErrorState message={q.error.message} onRetry={q.reload} />;
  if (q.data === undefined) return <SkeletonList rows={rows} />;
  if (empty(q.data)) return <EmptyState text={emptyText} />;
  return <>{children(q.data)}</>;
}

/** A loaded list of records (`<RecordCard>`s), with the same states. */
export function RecordList<T>({ q, rows, emptyText, children }: { q: Loadable<T[]>; rows: number; emptyText?: string; children: (item: T) => ReactNode }) {
  return (
    <Loaded q={q} rows={rows} empty={(d) => d.length === 0} emptyText={emptyText}>
      {(list) => <ul className={acct.recordList}>{list.map(children)}</ul>}
    </Loaded>
  );
}

/** What a paged list gives (lib/query.ts usePagedQuery). */
interface Paged<T> {
  items: T[];
  loading: boolean;
  loadingMore: boolean;
  hasMore: boolean;
  moreError: boolean;
  error: { message: string } | null;
  reload: () => void;
  loadMore: () => void;
}

/** A paged record list (the runs of a daily job): the same states, and more pages as it scrolls. */
export function PagedRecords<T>({ list, emptyText, children }: { list: Paged<T>; emptyText: string; children: (item: T) => ReactNode }) {
  const sentinel = useSentinel(list.loadMore, list.hasMore && !list.moreError);
  if (list.loading) return <SkeletonList rows={3} />;
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (list.items.length === 0) return <EmptyState text={emptyText} />;
  return (
    <>
      <ul className={acct.recordList}>{list.items.map(children)}</ul>
      <div className={acct.listFooter} ref={sentinel}>
        {list.loadingMore ? (
          <Spinner size={18} />
        ) : list.hasMore ? (
          <button type="button" className="text-btn" onClick={list.loadMore}>
            {list.moreError ? m.retry() : m.load_more()}
          </button>
        ) : null}
      </div>
    </>
  );
}

/** On (green) or off (grey). */
export function OnOff({ on, onText, offText }: { on: boolean; onText: string; offText: string }) {
  return <span className={`badge ${on ? "badge-ok" : "badge-none"}`}>{on ? onText : offText}</span>;
}

/**
 * One record of a console list: its title and state, a notice under them (`alert`), its facts
 * (`<Kv>` rows), then its actions. `numTitle` sets the title in figures (a day, a run number).
 */
export function RecordCard({ title, badge, testId, alert, actions, numTitle = false, children }: { title: ReactNode; badge: ReactNode; testId: string; alert?: ReactNode; actions?: ReactNode; numTitle?: boolean; children: ReactNode }) {
  return (
    <li className={acct.recordCard} data-testid={testId}>
      <div className={acct.recordHead}>
        <span className={numTitle ? `${acct.recordTitle} num` : acct.recordTitle}>{title}</span>
        {badge}
      </div>
      {alert}
      <dl className={acct.kv}>{children}</dl>
      {actions}
    </li>
  );
}

/** A record's name with its number after it, muted ("Antminer S19 #3"). */
export function NameId({ name, id }: { name: string; id: number }) {
  return (
    <>
      {name} <span className="muted">#{id}</span>
    </>
  );
}

/** A row of buttons under a record. */
export function RecordActions({ children }: { children: ReactNode }) {
  return <div className={acct.btnRow}>{children}</div>;
}

/**
 * A console form in a dialog: the fields, the error line, an optional note under it, "cancel" and
 * the save button (which, like the Enter key in a field, sends the form). `plain` draws the fields
 * without a form element, where Enter should not send.
 */
export function FormDialog({
  title,
  testId,
  onClose,
  onSave,
  saveText,
  saveTestId,
  busy,
  error,
  errorTestId,
  note,
  plain = false,
  spaced = false,
  children,
}: {
  title: string;
  testId: string;
  onClose: () => void;
  onSave: () => void;
  saveText: string;
  saveTestId: string;
  busy: boolean;
  error: string;
  errorTestId?: string;
  note?: ReactNode;
  plain?: boolean;
  /** The wider gaps of a long form. */
  spaced?: boolean;
  children: ReactNode;
}) {
  const cls = spaced ? "form" : `form ${s.secForm}`;
  const body = (
    <>
      {children}
      <SheetError text={error} testId={errorTestId} />
      {note}
    </>
  );
  return (
    <ConfirmSheet title={title} onClose={onClose} onConfirm={onSave} confirmText={saveText} busy={busy} testId={testId} confirmTestId={saveTestId}>
      {plain ? (
        <div className={cls}>{body}</div>
      ) : (
        <form
          className={cls}
          onSubmit={(e) => {
            e.preventDefault();
            onSave();
          }}
          noValidate
        >
          {body}
        </form>
      )}
    </ConfirmSheet>
  );
}

/** The labelled field of every form (components/Field.tsx); console forms take it from here. */
export { Field };

/** A labelled text input; `onChange` gets the typed text. */
export function TextField({ label, value, onChange, testId, mode, hint, disabled, type, max }: { label: string; value: string; onChange: (v: string) => void; testId?: string; mode?: "text" | "decimal" | "numeric"; hint?: string; disabled?: boolean; type?: "date"; max?: string }) {
  return (
    <Field label={label} hint={hint}>
      <input className="input" type={type} max={max} inputMode={mode} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)} data-testid={testId} />
    </Field>
  );
}

/** The reason every console change carries (the server audits it). */
export function ReasonField({ value, onChange, testId }: { value: string; onChange: (v: string) => void; testId: string }) {
  return <TextField label={m.op_reason()} value={value} onChange={onChange} testId={testId} />;
}

/** A checkbox with its label. */
export function CheckField({ label, checked, onChange, testId }: { label: string; checked: boolean; onChange: (v: boolean) => void; testId: string }) {
  return (
    <label className="checkbox">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />
      <span className="checkbox-box" aria-hidden="true">
        <Icon name="check" size={14} />
      </span>
      <span>{label}</span>
    </label>
  );
}

/** The currency picker of console forms (the list, or USDT while it loads). */
export function CurrencySelect({ value, onChange, currencies, testId }: { value: number; onChange: (id: number) => void; currencies: { currency: number; currency_name: string }[] | undefined; testId: string }) {
  return (
    <Field label={m.wallet_currency()}>
      <div className="select-wrap">
        <select className="input" value={value} onChange={(e) => onChange(Number(e.target.value))} data-testid={testId}>
          {(currencies ?? [{ currency: 3, currency_name: "USDT" }]).map((c) => (
            <option key={c.currency} value={c.currency}>
              {c.currency_name}
            </option>
          ))}
        </select>
        <Icon name="chevronDown" size={18} className="select-caret" />
      </div>
    </Field>
  );
}

/**
 * A form dialog's send: `problem` (a form check's answer) shows as the error line and sends
 * nothing; else the call runs, and once it went through the dialog says `done` (when given) and closes. A
 * failed call's message was shown by the API client.
 */
export function useFormSave(onClose: () => void, done?: () => string) {
  const action = useSheetAction();
  const save = (problem: string | null, call: () => Promise<unknown>) => {
    if (problem) return action.setError(problem);
    void action.run(async () => {
      await call();
      if (done) toast.success(done());
      onClose();
    });
  };
  return { ...action, save };
}
