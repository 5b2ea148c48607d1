/** Login (spec §2, §5): account, password with show/hide, forgot and register links. */
import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { safeRedirect } from "../../../lib/nav.ts";
import { toast } from "../../../lib/toast.ts";
import { completeLogin, login } from "../api.ts";
import { AccountField, AuthFoot, AuthLayout, AuthSubmit, PasswordField, useFieldErrors } from "./AuthLayout.tsx";
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
  const { errors, setErrors, edit } = useFieldErrors();
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
        <AccountField label={m.label_account()} placeholder={m.account_placeholder()} value={account} onChange={edit("user_string", setAccount)} error={errors.user_string} errorId="login-account-error" />
        <PasswordField label={m.label_password()} name="password" autoComplete="current-password" placeholder={m.password_placeholder()} value={password} onChange={edit("password", setPassword)} error={errors.password} errorId="login-password-error" />
        <div className="form-row-end">
          <Link to="/forget" className="link-muted">
            {m.forgot_password()}
          </Link>
        </div>
        <AuthSubmit busy={busy} testId="login-submit">
          {m.login_button()}
        </AuthSubmit>
        <PasskeyLogin />
        <AuthFoot text={m.no_account()}>
          <Link to={`/register${params.get("code") ? `?code=${encodeURIComponent(params.get("code") ?? "")}` : ""}`}>{m.register_now()}</Link>
        </AuthFoot>
      </form>
    </AuthLayout>
  );
}
