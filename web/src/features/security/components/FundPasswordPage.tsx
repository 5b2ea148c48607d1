/**
 * Fund password (spec §5: exactly 6 digits): set it the first time with the login password;
 * change it later with the current fund password or the login password.
 */
import { useState, type ChangeEvent, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { toast } from "../../../lib/toast.ts";
import { PasswordInput } from "../../../components/PasswordInput.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useSecurity, setFundPassword } from "../api.ts";
import acct from "../../../components/account.module.css";

const SIX = /^\d{6}$/;

export default function FundPasswordPage() {
  const navigate = useNavigate();
  const state = useSecurity();
  const [fund, setFund] = useState("");
  const [again, setAgain] = useState("");
  const [proof, setProof] = useState("");
  const [via, setVia] = useState<"fund" | "login">("fund");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  if (state.error && !state.data) return <ErrorState message={state.error.message} onRetry={state.reload} />;
  if (!state.data) return <div className={acct.acctPage}><SkeletonBlock height={280} /></div>;
  const changing = state.data.has_fund_password;
  const useFund = changing && via === "fund";

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const next: Record<string, string> = {};
    if (!SIX.test(fund)) next.fund = errText("fund_password_rule");
    if (again !== fund) next.again = errText("password_mismatch");
    if (useFund ? !SIX.test(proof) : proof.length < 6) next.proof = useFund ? errText("fund_password_rule") : errText("password_short");
    setErrors(next);
    if (Object.keys(next).length) return;
    setBusy(true);
    try {
      await setFundPassword({ fund_password: fund, re_fund_password: again, ...(useFund ? { old_fund_password: proof } : { login_password: proof }) });
      toast.success(changing ? m.sec_fund_changed() : m.sec_fund_set_done());
      navigate(-1);
    } catch {
      // shown by the API client (wrong current password …)
    } finally {
      setBusy(false);
    }
  };

  const digits = (set: (v: string) => void, key: string) => (e: ChangeEvent<HTMLInputElement>) => {
    set(e.target.value.replace(/\D/g, "").slice(0, 6));
    setErrors((er) => ({ ...er, [key]: "" }));
  };

  return (
    <div className={acct.acctPage} data-testid="fund-password-page">
      <p className={`${acct.notice} ${acct.noticeInfo}`}>{changing ? m.sec_fund_change_intro() : m.sec_fund_set_intro()}</p>
      <form className="form" onSubmit={submit} noValidate>
        {changing && (
          <div className={`${acct.chips} ${acct.chips2}`} role="radiogroup" aria-label={m.sec_verify_with()}>
            <button type="button" role="radio" aria-checked={via === "fund"} className={via === "fund" ? "active" : ""} onClick={() => { setVia("fund"); setProof(""); }}>
              {m.sec_verify_fund()}
            </button>
            <button type="button" role="radio" aria-checked={via === "login"} className={via === "login" ? "active" : ""} onClick={() => { setVia("login"); setProof(""); }}>
              {m.sec_verify_login()}
            </button>
          </div>
        )}
        <label className="field">
          <span className="field-label">{useFund ? m.sec_current_fund() : m.sec_login_password()}</span>
          <PasswordInput
            inputMode={useFund ? "numeric" : undefined}
            autoComplete={useFund ? "off" : "current-password"}
            value={proof}
            placeholder={useFund ? m.wallet_fund_password_placeholder() : m.password_placeholder()}
            onChange={useFund ? digits(setProof, "proof") : (e) => { setProof(e.target.value); setErrors((er) => ({ ...er, proof: "" })); }}
            aria-invalid={!!errors.proof}
            data-testid="fund-proof"
          />
          {errors.proof && <span className="field-error">{errors.proof}</span>}
        </label>
        <label className="field">
          <span className="field-label">{m.sec_new_fund()}</span>
          <PasswordInput inputMode="numeric" autoComplete="off" maxLength={6} value={fund} placeholder={m.wallet_fund_password_placeholder()} onChange={digits(setFund, "fund")} aria-invalid={!!errors.fund} data-testid="fund-new" />
          {errors.fund && <span className="field-error">{errors.fund}</span>}
        </label>
        <label className="field">
          <span className="field-label">{m.sec_repeat_fund()}</span>
          <PasswordInput inputMode="numeric" autoComplete="off" maxLength={6} value={again} placeholder={m.sec_repeat_fund_placeholder()} onChange={digits(setAgain, "again")} aria-invalid={!!errors.again} data-testid="fund-again" />
          {errors.again && <span className="field-error">{errors.again}</span>}
        </label>
        <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="fund-submit">
          {busy && <Spinner size={16} />}
          {changing ? m.sec_fund_change_button() : m.sec_fund_set_button()}
        </button>
      </form>
    </div>
  );
}
