/**
 * The anti-phishing code (issue #29): what it is for, the code in use, and setting a new one
 * (4-20 letters or digits, confirmed with the second factor). Every e-mail and SMS the exchange
 * sends starts with it, so a message without it is not from the exchange.
 */
import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { toast } from "../../../lib/toast.ts";
import { Icon } from "../../../components/Icon.tsx";
import { useSecondFactor } from "../../../components/SecondFactors.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useGuards, useSetAntiPhishing } from "../api.ts";
import { guardFailure, NeedsFactor } from "./guardForm.tsx";
import acct from "../../../components/account.module.css";
import { ExactInput, Field } from "../../../components/Field.tsx";

const CODE_RE = /^[A-Za-z0-9]{4,20}$/;

export default function AntiPhishingPage() {
  const guards = useGuards();
  const save = useSetAntiPhishing();
  const has = { totp: !!guards.data?.totp_enabled, passkey: (guards.data?.passkeys ?? 0) > 0 };
  const factor = useSecondFactor(has, "anti");
  const [code, setCode] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  if (guards.error && !guards.data) return <ErrorState message={guards.error.message} onRetry={guards.reload} />;
  if (!guards.data) return <div className={acct.acctPage}><SkeletonBlock height={280} /></div>;
  const g = guards.data;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (!CODE_RE.test(code.trim())) {
      setError(errText("anti_phishing_format"));
      return;
    }
    setBusy(true);
    try {
      const f = await factor.collect();
      if (!f) return;
      await save(code.trim(), f);
      toast.success(m.sec_anti_saved());
      setCode("");
    } catch (err) {
      guardFailure(err, factor.setError);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={acct.acctPage} data-testid="anti-phishing-page">
      <div className={`${acct.lockPanel} ${g.anti_phishing_code ? acct.ok : ""}`}>
        <Icon name="shield" size={28} />
        <strong>{m.sec_anti_current()}</strong>
        <code className={acct.mono} data-testid="anti-current">{g.anti_phishing_code ?? m.sec_anti_none()}</code>
      </div>
      <section className="card">
        <h2 className="section-title">{m.sec_anti_what()}</h2>
        <p className="muted">{m.sec_anti_explain()}</p>
      </section>
      {g.locked_until_text ? (
        <p className="form-note" data-testid="anti-locked">{m.sec_locked_until({ time: g.locked_until_text })}</p>
      ) : !has.totp && !has.passkey ? (
        <NeedsFactor />
      ) : (
        <form className="form card" onSubmit={submit} noValidate>
          <Field label={m.sec_anti_label()} error={error}>
            <ExactInput
              maxLength={20}
              placeholder={m.sec_anti_placeholder()}
              value={code}
              onChange={(e) => {
                setCode(e.target.value.replace(/[^A-Za-z0-9]/g, ""));
                setError("");
              }}
              aria-invalid={!!error}
              data-testid="anti-code"
            />
          </Field>
          {factor.fields}
          <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="anti-save">
            {busy && <Spinner size={16} />}
            {m.sec_anti_save()}
          </button>
        </form>
      )}
      <Link to="/security" className={`text-btn ${acct.centerBtn}`}>
        {m.sec_title()}
      </Link>
    </div>
  );
}
