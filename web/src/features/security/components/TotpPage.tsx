/**
 * Authenticator app (TOTP): enrol by scanning the QR code (or typing the secret), confirm with
 * a first code; once on, withdrawals ask for a code too. Turning it off needs a current code.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { copyText } from "../../../lib/clipboard.ts";
import { toast } from "../../../lib/toast.ts";
import { Icon } from "../../../components/Icon.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useSecurity, totpConfirm, totpDisable, totpEnrol } from "../api.ts";
import acct from "../../../components/account.module.css";
import { CodeInput, Field } from "../../../components/Field.tsx";

export default function TotpPage() {
  const state = useSecurity();
  const [enrolment, setEnrolment] = useState<{ secret: string; uri: string; qrcode: string } | null>(null);
  const [code, setCode] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  if (state.error && !state.data) return <ErrorState message={state.error.message} onRetry={state.reload} />;
  if (!state.data) return <div className={acct.acctPage}><SkeletonBlock height={280} /></div>;
  const enabled = state.data.totp_enabled;

  const start = async () => {
    setBusy(true);
    try {
      setEnrolment(await totpEnrol());
      setCode("");
      setError("");
    } catch {
      // shown by the API client
    } finally {
      setBusy(false);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (!/^\d{6}$/.test(code)) {
      setError(m.sec_totp_code_rule());
      return;
    }
    setBusy(true);
    try {
      if (enabled) {
        await totpDisable(code);
        toast.success(m.sec_totp_disabled());
      } else {
        await totpConfirm(code);
        toast.success(m.sec_totp_enabled());
        setEnrolment(null);
      }
      setCode("");
      state.reload();
    } catch {
      // shown by the API client (wrong code)
    } finally {
      setBusy(false);
    }
  };

  const codeField = (
    <Field label={m.sec_totp_code()} error={error}>
      <CodeInput
        className="input num"
        placeholder={m.sec_totp_code_placeholder()}
        value={code}
        onChange={(v) => {
          setCode(v);
          setError("");
        }}
        aria-invalid={!!error}
        data-testid="totp-code"
      />
    </Field>
  );

  return (
    <div className={acct.acctPage} data-testid="totp-page">
      <div className={`${acct.lockPanel} ${enabled ? acct.ok : ""}`}>
        <Icon name="shield" size={28} />
        <strong data-testid="totp-state">{enabled ? m.sec_totp_on_title() : m.sec_totp_off_title()}</strong>
        <span className="muted">{enabled ? m.sec_totp_on_note() : m.sec_totp_off_note()}</span>
      </div>
      {enabled ? (
        <form className="form card" onSubmit={submit} noValidate>
          <h2 className="section-title">{m.sec_totp_disable_title()}</h2>
          {codeField}
          <button type="submit" className="btn btn-outline btn-block" disabled={busy} data-testid="totp-disable">
            {busy && <Spinner size={16} />}
            {m.sec_totp_disable_button()}
          </button>
        </form>
      ) : enrolment ? (
        <form className="form card" onSubmit={submit} noValidate data-testid="totp-enrol">
          <ol className={acct.stepsList}>
            <li>{m.sec_totp_step1()}</li>
            <li>{m.sec_totp_step2()}</li>
          </ol>
          <div className={`${acct.qrBox} ${acct.centerBlock}`}>
            <img src={enrolment.qrcode} alt={m.sec_totp_qr_alt()} width={180} height={180} data-testid="totp-qr" />
          </div>
          <div className={acct.addressBox}>
            <code className={acct.addressText} data-testid="totp-secret">{enrolment.secret}</code>
            <button type="button" className="btn btn-outline btn-small" onClick={async () => ((await copyText(enrolment.secret)) ? toast.success(m.wallet_copied()) : toast.error(m.wallet_copy_failed()))}>
              {m.wallet_copy()}
            </button>
          </div>
          <p className="form-note">{m.sec_totp_secret_note()}</p>
          {codeField}
          <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="totp-confirm">
            {busy && <Spinner size={16} />}
            {m.sec_totp_confirm_button()}
          </button>
        </form>
      ) : (
        <button type="button" className="btn btn-primary btn-block btn-large" onClick={start} disabled={busy} data-testid="totp-start">
          {busy && <Spinner size={16} />}
          {m.sec_totp_start()}
        </button>
      )}
    </div>
  );
}
