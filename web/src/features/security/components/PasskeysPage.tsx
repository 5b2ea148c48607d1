/**
 * Passkeys (issue #29): what they are, the account's passkeys with their names, adding one on this
 * device (named first; confirmed with the second factor the account already has) and removing one
 * (with the second factor). A passkey signs in without a password and confirms withdrawals and
 * security changes instead of the authenticator code.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { createPasskey, passkeysSupported } from "../../../lib/passkey.ts";
import { toast } from "../../../lib/toast.ts";
import { Icon } from "../../../components/Icon.tsx";
import { useSecondFactor } from "../../../components/SecondFactors.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useAddPasskey, useGuards, usePasskeys, useRemovePasskey } from "../api.ts";
import { guardFailure } from "./guardForm.tsx";
import acct from "../../../components/account.module.css";
import { Field } from "../../../components/Field.tsx";

export default function PasskeysPage() {
  const guards = useGuards();
  const list = usePasskeys();
  const add = useAddPasskey();
  const remove = useRemovePasskey();
  const has = { totp: !!guards.data?.totp_enabled, passkey: (guards.data?.passkeys ?? 0) > 0 };
  const addFactor = useSecondFactor(has, "passkey-add");
  const removeFactor = useSecondFactor(has, "passkey-remove");
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState("");
  const [removing, setRemoving] = useState<{ id: number; name: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const supported = passkeysSupported();

  if ((guards.error && !guards.data) || (list.error && !list.data)) {
    return <ErrorState message={(guards.error ?? list.error)!.message} onRetry={() => (guards.reload(), list.reload())} />;
  }
  if (!guards.data || !list.data) return <div className={acct.acctPage}><SkeletonList rows={3} /></div>;

  const submitAdd = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > 40) {
      setNameError(errText("passkey_name"));
      return;
    }
    setBusy(true);
    try {
      const factor = await addFactor.collect();
      if (!factor) return;
      const response = await createPasskey();
      await add({ name: trimmed, response, ...factor });
      toast.success(m.sec_passkey_added());
      setName("");
    } catch (err) {
      guardFailure(err, addFactor.setError);
    } finally {
      setBusy(false);
    }
  };

  const submitRemove = async (e: FormEvent) => {
    e.preventDefault();
    if (busy || !removing) return;
    setBusy(true);
    try {
      const factor = await removeFactor.collect();
      if (!factor) return;
      await remove(removing.id, factor);
      toast.success(m.sec_passkey_removed());
      setRemoving(null);
    } catch (err) {
      guardFailure(err, removeFactor.setError);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={acct.acctPage} data-testid="passkeys-page">
      <div className={acct.lockPanel}>
        <Icon name="key" size={28} />
        <strong>{m.sec_passkeys_title()}</strong>
        <span className="muted">{m.sec_passkeys_intro()}</span>
      </div>

      {removing ? (
        <form className="form card" onSubmit={submitRemove} noValidate data-testid="passkey-remove-form">
          <h2 className="section-title">{m.sec_passkey_confirm_remove({ name: removing.name })}</h2>
          {removeFactor.fields}
          <div className={acct.btnRow}>
            <button type="button" className="btn btn-ghost" onClick={() => setRemoving(null)} disabled={busy}>
              {m.cancel()}
            </button>
            <button type="submit" className={`btn ${acct.btnDanger}`} disabled={busy} data-testid="passkey-remove-confirm">
              {busy && <Spinner size={16} />}
              {m.sec_passkey_remove()}
            </button>
          </div>
        </form>
      ) : !supported ? (
        <p className="form-note" data-testid="passkey-unsupported">{m.sec_passkey_unsupported()}</p>
      ) : guards.data.locked_until_text ? (
        <p className="form-note" data-testid="passkey-locked">{m.sec_locked_until({ time: guards.data.locked_until_text })}</p>
      ) : (
        <form className="form card" onSubmit={submitAdd} noValidate data-testid="passkey-add-form">
          <Field label={m.sec_passkey_name_label()} error={nameError}>
            <input
              className="input"
              maxLength={40}
              autoComplete="off"
              placeholder={m.sec_passkey_name_placeholder()}
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                setNameError("");
              }}
              aria-invalid={!!nameError}
              data-testid="passkey-name"
            />
          </Field>
          {addFactor.fields}
          <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="passkey-add">
            {busy && <Spinner size={16} />}
            {m.sec_passkey_add()}
          </button>
        </form>
      )}

      {list.data.length === 0 ? (
        <EmptyState text={m.sec_passkeys_empty()} />
      ) : (
        <ul className={acct.recordList}>
          {list.data.map((p) => (
            <li key={p.id} className={acct.recordCard} data-testid="passkey-row">
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>{p.name}</span>
                <button type="button" className={`icon-btn ${acct.danger}`} onClick={() => setRemoving({ id: p.id, name: p.name })} aria-label={m.sec_passkey_remove()} data-testid="passkey-delete">
                  <Icon name="close" size={18} />
                </button>
              </div>
              <span className="muted">{m.sec_passkey_created({ time: p.created_at })}</span>
              <span className="muted">{p.last_used_at ? m.sec_passkey_last_used({ time: p.last_used_at }) : m.sec_passkey_never_used()}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
