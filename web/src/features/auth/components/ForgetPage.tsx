/**
 * Password recovery (spec §2, §4, §5). Step one: e-mail, send a 6-digit code (60 s resend
 * countdown), enter it; "continue" stays disabled until the account and code are filled and a
 * code was sent, and leads on only when the server accepts the code. Step two: new password
 * twice; after the reset the user is sent to /login after 2 s.
 */
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { emailSchema, forgetSchema, codeSchema } from "../../../../../schemas/auth.ts";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { toast } from "../../../lib/toast.ts";
import { useCountdown } from "../../../lib/useCountdown.ts";
import { Spinner } from "../../../components/States.tsx";
import { checkEmailCode, resetPassword, sendForgetCode } from "../api.ts";
import { fieldErrors } from "../validation.ts";
import { AccountField, AuthField, AuthLayout, AuthSubmit, PasswordField, useFieldErrors } from "./AuthLayout.tsx";
import s from "./auth.module.css";
import { CodeInput } from "../../../components/Field.tsx";

const RESEND_SECONDS = 60;

export default function ForgetPage() {
  const navigate = useNavigate();
  const [step, setStep] = useState<1 | 2>(1);
  const [account, setAccount] = useState("");
  const [code, setCode] = useState("");
  const [codeSent, setCodeSent] = useState(false);
  const [password, setPassword] = useState("");
  const [rePassword, setRePassword] = useState("");
  const { errors, setErrors, clear, edit } = useFieldErrors();
  const [sending, setSending] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [left, startCountdown] = useCountdown();
  const redirectTimer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => () => clearTimeout(redirectTimer.current), []);

  const sendCode = async () => {
    if (sending || left > 0) return;
    const parsed = emailSchema.safeParse(account);
    if (!parsed.success) {
      setErrors({ account: errText(parsed.error.issues[0]?.message ?? "email_required") });
      return;
    }
    setErrors({});
    setSending(true);
    try {
      await sendForgetCode(parsed.data);
      setCodeSent(true);
      startCountdown(RESEND_SECONDS);
      toast.success(m.code_sent());
    } catch {
      // message shown by the API client
    } finally {
      setSending(false);
    }
  };

  const canContinue = account.trim() !== "" && code.trim() !== "" && codeSent;

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    if (!canContinue || busy) return;
    const email = emailSchema.safeParse(account);
    const c = codeSchema.safeParse(code);
    if (!email.success || !c.success) {
      setErrors({
        ...(email.success ? {} : { account: errText(email.error.issues[0]?.message ?? "email_required") }),
        ...(c.success ? {} : { code: errText(c.error.issues[0]?.message ?? "code_wrong") }),
      });
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await checkEmailCode(email.data, c.data);
      setStep(2);
    } catch {
      // wrong or expired code: the server's message is on screen
    } finally {
      setBusy(false);
    }
  };

  const reset = async (e: FormEvent) => {
    e.preventDefault();
    if (busy || done) return;
    const parsed = forgetSchema.safeParse({ account, password, repassword: rePassword, code });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await resetPassword(parsed.data);
      setDone(true);
      toast.success(m.reset_success());
      redirectTimer.current = setTimeout(() => navigate("/login", { replace: true }), 2000);
    } catch {
      // shown by the API client
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthLayout heading={m.forget_heading()} sub={step === 1 ? m.forget_sub_step1() : m.forget_sub_step2()}>
      <ol className={s.steps} aria-label={m.forget_heading()}>
        <li className={step === 1 ? "active" : s.done}>
          <span className={s.stepDot}>1</span>
          {m.step_verify()}
        </li>
        <li className={step === 2 ? "active" : ""}>
          <span className={s.stepDot}>2</span>
          {m.step_reset()}
        </li>
      </ol>

      {step === 1 ? (
        <form className="form" onSubmit={verify} noValidate>
          <AccountField label={m.label_email()} placeholder={m.email_placeholder()} value={account} onChange={edit("account", setAccount)} error={errors.account} errorId="forget-account-error" email />
          <AuthField label={m.label_code()} errorId="forget-code-error" error={errors.code}>
            <div className="input-wrap">
              <CodeInput
                name="code"
                type="text"
                placeholder={m.code_placeholder()}
                value={code}
                onChange={(v) => {
                  setCode(v);
                  clear("code");
                }}
                aria-invalid={!!errors.code}
                aria-describedby="forget-code-error"
              />
              <button type="button" className="input-addon text-btn" onClick={sendCode} disabled={sending || left > 0} data-testid="send-code">
                {sending ? <Spinner size={14} /> : left > 0 ? m.resend_in({ seconds: left }) : codeSent ? m.resend_code() : m.send_code()}
              </button>
            </div>
          </AuthField>
          <p className="form-note" data-testid="forget-proven-note">{m.forget_proven_note()}</p>
          <AuthSubmit busy={busy} disabled={!canContinue} testId="forget-continue">
            {m.continue_button()}
          </AuthSubmit>
        </form>
      ) : (
        <form className="form" onSubmit={reset} noValidate>
          <p className="form-note">
            {m.resetting_for()} <strong>{account.trim()}</strong>
          </p>
          <PasswordField label={m.label_new_password()} name="password" autoComplete="new-password" placeholder={m.new_password_placeholder()} value={password} onChange={edit("password", setPassword)} error={errors.password} errorId="forget-password-error" />
          <PasswordField label={m.label_repassword()} name="repassword" autoComplete="new-password" placeholder={m.repassword_placeholder()} value={rePassword} onChange={edit("repassword", setRePassword)} error={errors.repassword ?? errors.code ?? errors.account} errorId="forget-repassword-error" />
          <AuthSubmit busy={busy} disabled={done || password === "" || rePassword === ""} testId="forget-reset">
            {m.reset_button()}
          </AuthSubmit>
        </form>
      )}
    </AuthLayout>
  );
}
