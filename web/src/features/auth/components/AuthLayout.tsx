/**
 * The auth form set shared by login, register and password recovery: the brand block and card,
 * a labelled field with its error line, the account and password fields, the submit button, and
 * the per-field error state (a field's message goes once the user edits it).
 */
import { useState, type ReactNode } from "react";
import { LogoMark } from "../../../components/Icon.tsx";
import { PasswordInput } from "../../../components/PasswordInput.tsx";
import { Spinner } from "../../../components/States.tsx";
import { withoutError, type FieldErrors } from "../fieldState.ts";
import s from "./auth.module.css";

export function AuthLayout({ heading, sub, children }: { heading: string; sub?: string; children: ReactNode }) {
  return (
    <div className={s.auth}>
      <div className={s.authHero}>
        <LogoMark size={44} />
        <h2 className={s.authHeading}>{heading}</h2>
        {sub && <p className={s.authSub}>{sub}</p>}
      </div>
      {children}
    </div>
  );
}

export function FieldError({ id, text }: { id: string; text: string | undefined }) {
  if (!text) return null;
  return (
    <p className="field-error" id={id} role="alert">
      {text}
    </p>
  );
}

/** A labelled field and its error line (`errorId` ties the message to the control). */
export function AuthField({ label, errorId, error, children }: { label: string; errorId: string; error: string | undefined; children: ReactNode }) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      {children}
      <FieldError id={errorId} text={error} />
    </label>
  );
}

/**
 * The form's field errors and the change handler that clears a field's message as it is edited:
 * `edit("password", setPassword)` for an input's onChange.
 */
export function useFieldErrors() {
  const [errors, setErrors] = useState<FieldErrors>({});
  const clear = (field: string) => setErrors((er) => withoutError(er, field));
  const edit = (field: string, set: (v: string) => void) => (e: { target: { value: string } }) => {
    set(e.target.value);
    clear(field);
  };
  return { errors, setErrors, clear, edit };
}

/** The account: an e-mail (recovery) or an e-mail or phone number (login, register). */
export function AccountField({ label, placeholder, value, onChange, error, errorId, email = false }: { label: string; placeholder: string; value: string; onChange: (e: { target: { value: string } }) => void; error: string | undefined; errorId: string; email?: boolean }) {
  return (
    <AuthField label={label} errorId={errorId} error={error}>
      <input
        className="input"
        name="account"
        type={email ? "email" : "text"}
        inputMode="email"
        autoComplete="username"
        autoCapitalize="off"
        spellCheck={false}
        placeholder={placeholder}
        value={value}
        onChange={onChange}
        aria-invalid={!!error}
        aria-describedby={errorId}
      />
    </AuthField>
  );
}

/** A password with show/hide. */
export function PasswordField({ label, name, autoComplete, placeholder, value, onChange, error, errorId }: { label: string; name: string; autoComplete: "current-password" | "new-password"; placeholder: string; value: string; onChange: (e: { target: { value: string } }) => void; error: string | undefined; errorId: string }) {
  return (
    <AuthField label={label} errorId={errorId} error={error}>
      <PasswordInput name={name} autoComplete={autoComplete} placeholder={placeholder} value={value} onChange={onChange} aria-invalid={!!error} aria-describedby={errorId} />
    </AuthField>
  );
}

/** The form's one large button, with a spinner while it sends. */
export function AuthSubmit({ busy, disabled = false, testId, children }: { busy: boolean; disabled?: boolean; testId: string; children: ReactNode }) {
  return (
    <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy || disabled} data-testid={testId}>
      {busy && <Spinner size={16} />}
      {children}
    </button>
  );
}

/** The line under a form that leads to the other one ("No account? Register now"). */
export function AuthFoot({ text, children }: { text: string; children: ReactNode }) {
  return (
    <p className="form-foot">
      {text} {children}
    </p>
  );
}
