/**
 * The fields that authorise money leaving for good (a withdrawal, releasing C2C escrow): the
 * 6-digit fund password and, when the account has an authenticator, its 6-digit code. Each keeps
 * digits only and at most six of them. `useSecondFactor` is the second factor of a withdrawal or a
 * security change: the authenticator code, or one of the account's passkeys instead.
 */
import { useState, type ReactNode } from "react";
import { m, useLocale } from "../i18n/index.ts";
import { errText } from "../i18n/errors.ts";
import { confirmWithPasskey, type AuthenticationResponseJSON } from "../lib/passkey.ts";
import { PasswordInput } from "./PasswordInput.tsx";
import { CodeInput, Field } from "./Field.tsx";

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
    <Field label={m.wallet_fund_password()} error={error}>
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
    </Field>
  );
}

export function TotpField({ value, onChange, error, testId }: Omit<FieldProps, "disabled">) {
  useLocale();
  return (
    <Field label={m.sec_totp_code()} error={error}>
      <CodeInput
        placeholder={m.sec_totp_code_placeholder()}
        value={value}
        onChange={onChange}
        aria-invalid={!!error}
        data-testid={testId}
      />
    </Field>
  );
}

export type SecondFactorAnswer = { totp_code?: string; passkey?: AuthenticationResponseJSON };

/**
 * The second factor the account has (`totp`, `passkey`): its fields, and `collect()`, which answers
 * what to send (running the passkey ceremony when a passkey was chosen) or null after marking a
 * missing code. With both, the code is asked and "use a passkey instead" switches; with passkeys
 * only, the passkey is used.
 */
export function useSecondFactor(has: { totp: boolean; passkey: boolean }, testId: string): {
  fields: ReactNode;
  collect: () => Promise<SecondFactorAnswer | null>;
  setError: (message: string) => void;
} {
  useLocale();
  const [code, setCode] = useState("");
  const [choosePasskey, setChoosePasskey] = useState(false);
  const [error, setError] = useState("");
  const passkey = has.passkey && (!has.totp || choosePasskey);
  const fields = (
    <>
      {has.totp && !passkey && (
        <TotpField
          value={code}
          onChange={(v) => {
            setCode(v);
            setError("");
          }}
          error={error}
          testId={`${testId}-totp`}
        />
      )}
      {passkey && (
        <p className="form-note" data-testid={`${testId}-passkey-note`}>
          {m.sec_passkey_will_confirm()}
          {error && <span className="field-error">{error}</span>}
        </p>
      )}
      {has.totp && has.passkey && (
        <button type="button" className="text-btn" onClick={() => setChoosePasskey((v) => !v)} data-testid={`${testId}-switch`}>
          {passkey ? m.sec_passkey_use_code() : m.sec_passkey_use()}
        </button>
      )}
    </>
  );
  const collect = async (): Promise<SecondFactorAnswer | null> => {
    if (passkey) return { passkey: await confirmWithPasskey() };
    if (has.totp) {
      if (!/^\d{6}$/.test(code)) {
        setError(errText("totp_required"));
        return null;
      }
      return { totp_code: code };
    }
    return {};
  };
  return { fields, collect, setError };
}
