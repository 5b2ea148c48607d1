/**
 * API keys for bots (issue #29): make one with its permissions and optional IP addresses
 * (confirmed with the second factor), see its secret once with a copy button, list the keys and
 * delete one after a confirmation. A key can read and trade spot; it never withdraws.
 */
import { useState, type FormEvent } from "react";
import { m, useLocale } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { copyText } from "../../../lib/clipboard.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { formatDateTime } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { Icon } from "../../../components/Icon.tsx";
import { FundPasswordField, TotpField } from "../../../components/SecondFactors.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useApiKeys, useCenter, useCreateApiKey, useDeleteApiKey, type ApiKeyCreated, type ApiKeyScopeName, type ApiKeyView } from "../api.ts";
import acct from "../../../components/account.module.css";
import s from "./access.module.css";
import { Field } from "../../../components/Field.tsx";
import { useContactProven } from "../../../lib/contact.ts";
import { ContactGate } from "../../../components/ContactGate.tsx";

const SCOPES: ApiKeyScopeName[] = ["read", "trade"];
const scopeLabel = (scope: ApiKeyScopeName) => (scope === "read" ? m.apikey_scope_read() : m.apikey_scope_trade());

export default function ApiKeysPage() {
  useLocale();
  const list = useApiKeys();
  const deleteKey = useDeleteApiKey();
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const proven = useContactProven();

  const remove = (k: ApiKeyView) =>
    openConfirm({
      title: m.apikey_delete_title(),
      message: m.apikey_delete_body({ label: k.label }),
      confirmText: m.apikey_delete(),
      cancelText: m.cancel(),
      onConfirm: () => {
        void deleteKey(k.id)
          .then(() => toast.success(m.apikey_deleted()))
          .catch(() => undefined);
      },
    });

  return (
    <div className={acct.acctPage} data-testid="apikeys-page">
      <p className={`${acct.notice} ${acct.noticeInfo}`}>{m.apikey_intro()}</p>
      {created ? (
        <SecretCard created={created} onDone={() => setCreated(null)} />
      ) : adding ? (
        <CreateForm
          onCancel={() => setAdding(false)}
          onCreated={(k) => {
            setAdding(false);
            setCreated(k);
          }}
        />
      ) : !proven ? (
        <ContactGate text={m.contact_gate_apikeys()} />
      ) : (
        <button type="button" className="btn btn-primary btn-block" onClick={() => setAdding(true)} data-testid="apikey-add">
          {m.apikey_add()}
        </button>
      )}
      {list.error && !list.data ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : !list.data ? (
        <SkeletonList rows={2} />
      ) : list.data.list.length === 0 ? (
        <EmptyState text={m.apikey_none()} />
      ) : (
        <ul className={acct.recordList}>
          {list.data.list.map((k) => (
            <li key={k.id} className={acct.recordCard} data-testid="apikey-row">
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>
                  {k.label}
                  {k.scopes.map((sc) => (
                    <span key={sc} className="badge badge-none">{scopeLabel(sc)}</span>
                  ))}
                  {k.expired && <span className="badge badge-pending">{m.apikey_expired()}</span>}
                </span>
                <button type="button" className={`icon-btn ${acct.danger}`} onClick={() => remove(k)} aria-label={m.apikey_delete()} data-testid="apikey-delete">
                  <Icon name="close" size={18} />
                </button>
              </div>
              <code className={acct.monoBreak} data-testid="apikey-key">{k.api_key}</code>
              <dl className={s.facts}>
                <dt>{m.apikey_created()}</dt>
                <dd>{formatDateTime(k.created_at)}</dd>
                <dt>{k.ips.length ? m.apikey_ips_label() : m.apikey_expires()}</dt>
                <dd>{k.ips.length ? k.ips.join(", ") : formatDateTime(k.expires_at)}</dd>
                <dt>{m.apikey_last_used()}</dt>
                <dd>{k.last_used_at ? formatDateTime(k.last_used_at) : m.apikey_never_used()}</dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The key and its secret, shown this once with copy buttons. */
function SecretCard({ created, onDone }: { created: ApiKeyCreated; onDone: () => void }) {
  const copy = async (text: string) => ((await copyText(text)) ? toast.success(m.wallet_copied()) : toast.error(m.wallet_copy_failed()));
  return (
    <div className="card form" data-testid="apikey-created">
      <p className={`${acct.notice} ${acct.noticeWarn}`}>{m.apikey_secret_once()}</p>
      <span className="field-label">{m.apikey_key_label()}</span>
      <div className={acct.addressBox}>
        <code className={acct.addressText} data-testid="apikey-new-key">{created.api_key}</code>
        <button type="button" className="btn btn-outline btn-small" onClick={() => void copy(created.api_key)}>{m.wallet_copy()}</button>
      </div>
      <span className="field-label">{m.apikey_secret_label()}</span>
      <div className={acct.addressBox}>
        <code className={acct.addressText} data-testid="apikey-new-secret">{created.secret}</code>
        <button type="button" className="btn btn-outline btn-small" onClick={() => void copy(created.secret)} data-testid="apikey-copy-secret">{m.wallet_copy()}</button>
      </div>
      <button type="button" className="btn btn-primary btn-block" onClick={onDone} data-testid="apikey-done">{m.apikey_saved_it()}</button>
    </div>
  );
}

function CreateForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (k: ApiKeyCreated) => void }) {
  const center = useCenter();
  const createKey = useCreateApiKey();
  const [label, setLabel] = useState("");
  const [scopes, setScopes] = useState<ApiKeyScopeName[]>(["read"]);
  const [ips, setIps] = useState("");
  const [fund, setFund] = useState("");
  const [totp, setTotp] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const totpOn = center.data?.totp_enabled === true;
  const noFactor = center.data !== undefined && !totpOn && !center.data.has_fund_password;

  const toggle = (scope: ApiKeyScopeName) => setScopes((cur) => (cur.includes(scope) ? cur.filter((x) => x !== scope) : SCOPES.filter((x) => x === scope || cur.includes(x))));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const next: Record<string, string> = {};
    if (!label.trim()) next.label = m.apikey_label_required();
    if (scopes.length === 0) next.scopes = m.apikey_scopes_required();
    if (totpOn ? totp.length !== 6 : fund.length !== 6) next.factor = totpOn ? m.sec_totp_code_placeholder() : m.wallet_fund_password_placeholder();
    setErrors(next);
    if (Object.keys(next).length) return;
    const list = ips.split(/[\s,]+/).filter(Boolean);
    setBusy(true);
    try {
      const k = await createKey({ label: label.trim(), scopes, ...(list.length ? { ips: list } : {}), ...(totpOn ? { totp_code: totp } : { fund_password: fund }) });
      toast.success(m.apikey_created_toast());
      onCreated(k);
    } catch (err) {
      const field = err instanceof ApiFailure && err.code?.startsWith("apikey_ips") ? "ips" : err instanceof ApiFailure && err.code === "apikey_label" ? "label" : "form";
      setErrors({ [field]: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form card" onSubmit={submit} noValidate data-testid="apikey-form">
      <Field label={m.apikey_name()} error={errors.label}>
        <input className="input" maxLength={40} value={label} placeholder={m.apikey_name_placeholder()} onChange={(e) => setLabel(e.target.value)} aria-invalid={!!errors.label} data-testid="apikey-label" />
      </Field>
      <div className="field">
        <span className="field-label">{m.apikey_scopes()}</span>
        <div className={s.scopes}>
          {SCOPES.map((sc) => (
            <label key={sc} className="checkbox">
              <input type="checkbox" checked={scopes.includes(sc)} onChange={() => toggle(sc)} data-testid={`apikey-scope-${sc}`} />
              <span className="checkbox-box" aria-hidden="true">
                <Icon name="check" size={14} />
              </span>
              <span>
                {scopeLabel(sc)}
                <small className="muted"> · {sc === "read" ? m.apikey_scope_read_desc() : m.apikey_scope_trade_desc()}</small>
              </span>
            </label>
          ))}
        </div>
        {errors.scopes && <span className="field-error">{errors.scopes}</span>}
        <span className="form-note">{m.apikey_never_withdraws()}</span>
      </div>
      <label className="field">
        <span className="field-label">{m.apikey_ips_optional()}</span>
        <textarea className={`input ${acct.textarea}`} rows={2} value={ips} placeholder="203.0.113.7, 2001:db8::1" onChange={(e) => setIps(e.target.value)} aria-invalid={!!errors.ips} data-testid="apikey-ips" />
        <span className="form-note">{m.apikey_ips_note()}</span>
        {errors.ips && <span className="field-error">{errors.ips}</span>}
      </label>
      {noFactor ? (
        <p className={`${acct.notice} ${acct.noticeWarn}`}>{m.apikey_set_fund_first()}</p>
      ) : totpOn ? (
        <TotpField value={totp} onChange={setTotp} error={errors.factor} testId="apikey-totp" />
      ) : (
        <FundPasswordField value={fund} onChange={setFund} error={errors.factor} testId="apikey-fund" />
      )}
      {errors.form && <p className="field-error" data-testid="apikey-error">{errors.form}</p>}
      <div className={acct.btnRow}>
        <button type="button" className="btn btn-outline" onClick={onCancel}>{m.cancel()}</button>
        <button type="submit" className="btn btn-primary" disabled={busy || noFactor} data-testid="apikey-submit">
          {busy && <Spinner size={16} />}
          {m.apikey_create()}
        </button>
      </div>
    </form>
  );
}
