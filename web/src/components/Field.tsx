/**
 * The form pieces the account screens share (wallet, security, KYC, API keys; the console kit's
 * fields too): a labelled field with its error line, a money amount with its unit, and a text
 * typed exactly as given.
 */
import type { InputHTMLAttributes, ReactNode } from "react";
import { m } from "../i18n/index.ts";
import { sanitizeAmountInput } from "../lib/amount.ts";
import acct from "./account.module.css";

/**
 * A labelled field around any control: the label (with `extra` at the row's other end, e.g. the
 * balance available), the control, then the field's error and a hint under it.
 */
export function Field({ label, extra, error, errorTestId, hint, children }: { label: ReactNode; extra?: ReactNode; error?: string | null; errorTestId?: string; hint?: string; children: ReactNode }) {
  return (
    <label className="field">
      {extra ? (
        <span className={`field-label ${acct.fieldLabelRow}`}>
          <span>{label}</span>
          {extra}
        </span>
      ) : (
        <span className="field-label">{label}</span>
      )}
      {children}
      {error && (
        <span className="field-error" data-testid={errorTestId}>
          {error}
        </span>
      )}
      {hint && <span className="form-note">{hint}</span>}
    </label>
  );
}

/**
 * A money amount: the decimal keyboard, at most `scale` decimals (what the currency allows), the
 * unit at the end and, with `onAll`, an "All" button beside it.
 */
export function AmountInput({
  value,
  onChange,
  scale,
  unit,
  onAll,
  allTestId,
  placeholder,
  invalid,
  testId,
}: {
  value: string;
  onChange: (amount: string) => void;
  scale: number;
  unit: string;
  onAll?: () => void;
  allTestId?: string;
  placeholder?: string;
  invalid: boolean;
  testId: string;
}) {
  return (
    <div className="input-wrap">
      <input
        className="input"
        inputMode="decimal"
        autoComplete="off"
        placeholder={placeholder ?? m.wallet_amount_placeholder()}
        value={value}
        onChange={(e) => onChange(sanitizeAmountInput(e.target.value, scale))}
        aria-invalid={invalid}
        data-testid={testId}
      />
      {onAll ? (
        <span className={`input-addon ${acct.inputAddonRow}`}>
          <span className={acct.inputUnit}>{unit}</span>
          <button type="button" className="text-btn" onClick={onAll} data-testid={allTestId}>
            {m.wallet_all()}
          </button>
        </span>
      ) : (
        <span className={`input-addon ${acct.inputUnit}`}>{unit}</span>
      )}
    </div>
  );
}

/** Text kept exactly as typed (an address, a hash, an invite code): no autofill, capitals or spell check. */
export function ExactInput({ capitals = false, className = "input", ...rest }: InputHTMLAttributes<HTMLInputElement> & { capitals?: boolean }) {
  return <input className={className} autoComplete="off" autoCapitalize={capitals ? "characters" : "off"} spellCheck={false} {...rest} />;
}

/** A one-time code (an e-mailed code, an authenticator's): digits only, at most `length` of them, the code keyboard and autofill. */
export function CodeInput({ value, onChange, length = 6, className = "input", ...rest }: Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange"> & { value: string; onChange: (digits: string) => void; length?: number }) {
  return <input className={className} inputMode="numeric" autoComplete="one-time-code" maxLength={length} value={value} onChange={(e) => onChange(e.target.value.replace(/\D/g, "").slice(0, length))} {...rest} />;
}
