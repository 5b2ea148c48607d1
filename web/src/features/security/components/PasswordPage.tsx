/**
 * Change password (spec §2, §5: 8-64 characters with letters and digits). A change ends
 * every session, this one included, so the app forgets the login and asks to sign in again.
 */
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { zodFieldErrors, dropError, type FieldErrors } from "../../../lib/forms.ts";
import { clearLogin } from "../../../lib/session.ts";
import { toast } from "../../../lib/toast.ts";
import { updatePasswordSchema } from "../../../../../schemas/auth.ts";
import { PasswordInput } from "../../../components/PasswordInput.tsx";
import { Spinner } from "../../../components/States.tsx";
import { changePassword } from "../api.ts";
import acct from "../../../components/account.module.css";

export default function PasswordPage() {
  const navigate = useNavigate();
  const [oldpwd, setOld] = useState("");
  const [newpwd, setNew] = useState("");
  const [repwd, setRe] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);

  const leaving = useRef(false);
  useEffect(() => () => {
    if (leaving.current) clearLogin();
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const parsed = updatePasswordSchema.safeParse({ oldpwd, newpwd, repwd });
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await changePassword(parsed.data);
      // Leave this screen first and end the session as it unmounts: ending it here would let the
      // auth guard send the user to /login?redirect=/password (router navigations are transitions,
      // the session store is not), and logging in again would land on this screen, not home.
      leaving.current = true;
      navigate(`/login?redirect=${encodeURIComponent("/")}`, { replace: true });
      toast.success(m.sec_password_changed());
    } catch {
      // the API client showed the server's message (e.g. the current password is wrong)
    } finally {
      setBusy(false);
    }
  };

  const field = (name: "oldpwd" | "newpwd" | "repwd", label: string, value: string, set: (v: string) => void, placeholder: string, auto: string) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <PasswordInput
        autoComplete={auto}
        placeholder={placeholder}
        value={value}
        maxLength={name === "oldpwd" ? 128 : 16}
        onChange={(e) => {
          set(e.target.value);
          setErrors((er) => dropError(er, name));
        }}
        aria-invalid={!!errors[name]}
        data-testid={`pwd-${name}`}
      />
      {errors[name] && <span className="field-error">{errors[name]}</span>}
    </label>
  );

  return (
    <div className={acct.acctPage} data-testid="password-page">
      <form className="form" onSubmit={submit} noValidate>
        {field("oldpwd", m.sec_current_password(), oldpwd, setOld, m.sec_current_password_placeholder(), "current-password")}
        {field("newpwd", m.sec_new_password(), newpwd, setNew, m.new_password_placeholder(), "new-password")}
        {field("repwd", m.label_repassword(), repwd, setRe, m.repassword_placeholder(), "new-password")}
        <p className="form-note">{m.sec_password_rule_note()}</p>
        <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="pwd-submit">
          {busy && <Spinner size={16} />}
          {m.sec_password_submit()}
        </button>
      </form>
    </div>
  );
}
