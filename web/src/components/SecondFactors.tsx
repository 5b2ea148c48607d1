/**
 * The fields that authorise money leaving for good (a withdrawal, releasing C2C escrow): the
 * 6-digit fund password and, when the account has an authenticator, its 6-digit code. Each keeps
 * digits only and at most six of them.
 */
import { m, useLocale } from "../i18n/index.ts";
import { PasswordInput } from "./PasswordInput.tsx";

const sixDigits = (v: string) => v.replace(/\D/g, "").slice(0, 6);

interface FieldProps {
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  disabled?: boolean;
  testId: string;
}

export function FundPasswordField({ value, onChange, error, disabled = false, testId }: FieldProps) {
  useLocale();
  return (
    <label className="field">
      <span className="field-label">{m.wallet_fund_password()}</span>
      <PasswordInput
        inputMode="numeric"
        maxLength={6}
        autoComplete="off"
        placeholder={m.wallet_fund_password_placeholder()}
        value={value}
        onChange={(e) => onChange(sixDigits(e.target.value))}
        aria-invalid={!!error}
        disabled={disabled}
        data-testid={testId}
      />
      {error && <span className="field-error">{error}</span>}
    </label>
  );
}

export function TotpField({ value, onChange, error, testId }: Omit<FieldProps, "disabled">) {
  useLocale();
  return (
    <label className="field">
      <span className="field-label">{m.sec_totp_code()}</span>
      <input
        className="input"
        inputMode="numeric"
        maxLength={6}
        autoComplete="one-time-code"
        placeholder={m.sec_totp_code_placeholder()}
        value={value}
        onChange={(e) => onChange(sixDigits(e.target.value))}
        aria-invalid={!!error}
        data-testid={testId}
      />
      {error && <span className="field-error">{error}</span>}
    </label>
  );
}
