/** Login (spec §2, §5): account, password with show/hide, forgot and register links. */
import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { safeRedirect } from "../../../lib/nav.ts";
import { toast } from "../../../lib/toast.ts";
import { PasswordInput } from "../../../components/PasswordInput.tsx";
import { Spinner } from "../../../components/States.tsx";
import { completeLogin, login } from "../api.ts";
import { withoutError, type FieldErrors } from "../fieldState.ts";
import { AuthLayout, FieldError } from "./AuthLayout.tsx";
import { PasskeyLogin } from "../PasskeyLogin.tsx";
import "./auth.module.css";

/** The form check, fetched once the user starts typing (see loginCheck.ts). */
const loadCheck = () => import("../loginCheck.ts");

export default function LoginPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const redirect = safeRedirect(params.get("redirect"));
  const [account, setAccount] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    try {
      const checked = (await loadCheck()).checkLogin(account, password);
      if (!checked.ok) {
        setErrors(checked.errors);
        return;
      }
      setErrors({});
      const session = await login(checked.account, checked.password, checked.mode ?? 1);
      await completeLogin(session, checked.account);
      toast.success(m.login_success());
      navigate(redirect, { replace: true });
    } catch {
      // the API client already showed the server's message
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthLayout heading={m.login_heading()} sub={m.login_sub()}>
      <form className="form" onSubmit={submit} onFocus={() => void loadCheck()} noValidate>
        <label className="field">
          <span className="field-label">{m.label_account()}</span>
          <input
            className="input"
            name="account"
            type="text"
            inputMode="email"
            autoComplete="username"
            autoCapitalize="off"
            spellCheck={false}
            placeholder={m.account_placeholder()}
            value={account}
            onChange={(e) => {
              setAccount(e.target.value);
              setErrors((er) => withoutError(er, "user_string"));
            }}
            aria-invalid={!!errors.user_string}
            aria-describedby="login-account-error"
          />
          <FieldError id="login-account-error" text={errors.user_string} />
        </label>
        <label className="field">
          <span className="field-label">{m.label_password()}</span>
          <PasswordInput
            name="password"
            autoComplete="current-password"
            placeholder={m.password_placeholder()}
            value={password}
            onChange={(e) => {
              setPassword(e.target.value);
              setErrors((er) => withoutError(er, "password"));
            }}
            aria-invalid={!!errors.password}
            aria-describedby="login-password-error"
          />
          <FieldError id="login-password-error" text={errors.password} />
        </label>
        <div className="form-row-end">
          <Link to="/forget" className="link-muted">
            {m.forgot_password()}
          </Link>
        </div>
        <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="login-submit">
          {busy && <Spinner size={16} />}
          {m.login_button()}
        </button>
        <PasskeyLogin />
        <p className="form-foot">
          {m.no_account()}{" "}
          <Link to={`/register${params.get("code") ? `?code=${encodeURIComponent(params.get("code") ?? "")}` : ""}`}>{m.register_now()}</Link>
        </p>
      </form>
    </AuthLayout>
  );
}
