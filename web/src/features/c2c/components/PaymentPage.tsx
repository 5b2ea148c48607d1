/**
 * /legal/payment, payment settings (spec §5 "payment settings need real name and at least one
 * method"): the receiving methods buyers pay the user to. The bank card is the one of /bank; here
 * the user adds Alipay, WeChat (each with its payment-code picture) or another service, edits or
 * deletes them. The holder
 * is always the verified real name (the server fills it in), and there is a configured maximum.
 */
import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { safeRedirect } from "../../../lib/nav.ts";
import { m } from "../../../i18n/index.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { toast } from "../../../lib/toast.ts";
import type { UploadInfo } from "../../../lib/upload.ts";
import { AuthImage } from "../../../components/AuthImage.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { PhotoPicker } from "../../../components/PhotoPicker.tsx";
import { ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useDeletePayMethod, usePayMethods, useSavePayMethod, type PayMethod, type PayMethodInput } from "../api.ts";
import { C2cGate, C2cNav, kindClass, payKindText } from "./common.tsx";
import s from "./c2c.module.css";

export default function PaymentPage() {
  return (
    <C2cGate>
      <Payment />
    </C2cGate>
  );
}

function Payment() {
  const methods = usePayMethods();
  const navigate = useNavigate();
  // Sent here from an order (?back=): once an account is added, back to that order, amount kept.
  const [params] = useSearchParams();
  const back = params.get("back") ? safeRedirect(params.get("back")) : null;
  const saved = () => {
    setAdding(false);
    setEditing(null);
    if (back) navigate(back, { replace: true });
  };
  const remove = useDeletePayMethod();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<PayMethod | null>(null);
  const list = methods.data?.lists ?? [];
  const own = list.filter((p) => p.kind !== "bank");
  const bank = list.find((p) => p.kind === "bank");
  const full = methods.data ? own.length >= methods.data.max : true;

  const askDelete = (p: PayMethod) =>
    openConfirm({
      title: m.c2c_pm_delete_title(),
      message: m.c2c_pm_delete_body({ kind: payKindText(p.kind), account: p.account }),
      confirmText: m.c2c_pm_delete(),
      cancelText: m.cancel(),
      onConfirm: () => {
        remove(p.id)
          .then(() => toast.success(m.c2c_pm_deleted()))
          .catch(() => undefined);
      },
    });

  return (
    <div className={s.page} data-testid="c2c-payment">
      {!back && <C2cNav here="payment" />}
      {back && (
        <div className={`${s.notice} ${s.noticeInfo}`} data-testid="pm-back-note">
          <p>{m.c2c_back_note()}</p>
          <Link to={back} replace className="btn btn-small btn-outline" data-testid="pm-back">{m.c2c_back_to_order()}</Link>
        </div>
      )}
      <p className="form-note">{m.c2c_pm_intro()}</p>
      {methods.error && !methods.data ? (
        <ErrorState message={methods.error.message} onRetry={methods.reload} />
      ) : !methods.data ? (
        <SkeletonList rows={3} />
      ) : (
        <>
          <Link to={back ? `/bank?back=${encodeURIComponent(back)}` : "/bank"} className={s.pmRow} data-testid="pm-bank">
            <span className={`${s.payKind} ${kindClass("bank")}`}>{payKindText("bank")}</span>
            <span className={s.pmText}>
              {bank ? (
                <>
                  <strong className="num">{bank.account}</strong>
                  <small className="muted">{bank.holder_name}{bank.bank_name ? ` · ${bank.bank_name}` : ""}</small>
                  {bank.name_mismatch && <small className={`badge badge-bad ${s.pmFlag}`} data-testid="pm-bank-mismatch">{m.c2c_pm_not_for_c2c()}</small>}
                </>
              ) : (
                <span className="muted">{m.c2c_pm_bank_none()}</span>
              )}
            </span>
            <Icon name="chevron" size={16} className={s.chev} />
          </Link>
          {bank?.name_mismatch && <p className="field-error" role="status" data-testid="pm-bank-mismatch-note">{m.c2c_pm_bank_name_mismatch()}</p>}
          <ul className={s.pmList}>
            {own.map((p) => (
              <li key={p.id} className={s.pmRow} data-testid="pm-item" data-kind={p.kind}>
                <span className={`${s.payKind} ${kindClass(p.kind)}`}>{p.kind === "other" && p.label ? p.label : payKindText(p.kind)}</span>
                <span className={s.pmText}>
                  <strong className="num">{p.account}</strong>
                  <small className="muted">{p.holder_name}</small>
                </span>
                {p.qr_code && <AuthImage src={p.qr_code} alt={m.c2c_pay_code()} className={s.pmQr} />}
                <button type="button" className="text-btn" onClick={() => { setAdding(false); setEditing(p); }} aria-label={`${m.c2c_pm_edit()} ${payKindText(p.kind)}`} data-testid="pm-edit">
                  {m.c2c_pm_edit()}
                </button>
                <button type="button" className="icon-btn" aria-label={`${m.c2c_pm_delete()} ${payKindText(p.kind)}`} onClick={() => askDelete(p)} data-testid="pm-delete">
                  <Icon name="close" size={18} />
                </button>
              </li>
            ))}
          </ul>
          <p className="form-note muted" data-testid="pm-count">{m.c2c_pm_count({ count: own.length, max: methods.data.max })}</p>
          {editing ? (
            <AddMethod key={editing.id} initial={editing} onDone={() => setEditing(null)} onSaved={saved} />
          ) : adding ? (
            <AddMethod onDone={() => setAdding(false)} onSaved={saved} />
          ) : (
            <button type="button" className="btn btn-primary btn-block" disabled={full} onClick={() => setAdding(true)} data-testid="pm-add">
              {full ? m.c2c_pm_full() : m.c2c_pm_add()}
            </button>
          )}
        </>
      )}
    </div>
  );
}

/** Adds a method, or replaces `initial` (its payment code is kept unless a new one is chosen). */
function AddMethod({ initial, onDone, onSaved }: { initial?: PayMethod; onDone: () => void; onSaved: () => void }) {
  const save = useSavePayMethod();
  const [kind, setKind] = useState<PayMethodInput["kind"]>(initial && initial.kind !== "bank" ? initial.kind : "alipay");
  const [account, setAccount] = useState(initial?.account ?? "");
  const [label, setLabel] = useState(initial?.label ?? "");
  const [qr, setQr] = useState<UploadInfo | null>(null);
  const [errors, setErrors] = useState<Partial<Record<"account" | "label" | "qr", string>>>({});
  const [busy, setBusy] = useState(false);
  const needsQr = kind !== "other";

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const next: typeof errors = {};
    if (!account.trim()) next.account = m.c2c_pm_account_required();
    else if (!/^[\x21-\x7e]{1,64}$/.test(account.trim())) next.account = m.c2c_pm_account_rule();
    if (kind === "other" && !label.trim()) next.label = m.c2c_pm_label_required();
    const keptQr = initial?.kind === kind ? initial.qr_code : null;
    if (needsQr && !qr && !keptQr) next.qr = m.c2c_pm_qr_required();
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    setBusy(true);
    try {
      const qrCode = qr ? qr.id : keptQr;
      await save({ kind, account: account.trim(), label: kind === "other" ? label.trim() : "", ...(qrCode ? { qr_code: qrCode } : {}) }, initial?.id);
      toast.success(m.c2c_pm_saved());
      onSaved();
    } catch {
      // shown by the API client (998: verify first)
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form card" onSubmit={submit} noValidate data-testid="pm-form">
      {initial && <h2 className={s.sectionTitle}>{m.c2c_pm_edit_title({ kind: payKindText(initial.kind) })}</h2>}
      {initial?.qr_code && initial.kind === kind && !qr && (
        <div className={s.pmKept}>
          <AuthImage src={initial.qr_code} alt={m.c2c_pay_code()} className={s.pmQr} />
          <span className="form-note">{m.c2c_pm_qr_kept()}</span>
        </div>
      )}
      <div className={s.chips} role="radiogroup" aria-label={m.c2c_pm_kind()}>
        {(["alipay", "wechat", "other"] as const).map((k) => (
          <button key={k} type="button" role="radio" aria-checked={kind === k} className={kind === k ? "active" : ""} onClick={() => { setKind(k); setErrors({}); }} data-testid={`pm-kind-${k}`}>
            {payKindText(k)}
          </button>
        ))}
      </div>
      {kind === "other" && (
        <label className="field">
          <span className="field-label">{m.c2c_pm_label()}</span>
          <input className="input" maxLength={32} value={label} onChange={(e) => { setLabel(e.target.value); setErrors((er) => ({ ...er, label: undefined })); }} aria-invalid={!!errors.label} placeholder="PayPal" data-testid="pm-label" />
          {errors.label && <span className="field-error">{errors.label}</span>}
        </label>
      )}
      <label className="field">
        <span className="field-label">{m.c2c_account()}</span>
        <input className="input" maxLength={64} autoCapitalize="off" spellCheck={false} value={account} onChange={(e) => { setAccount(e.target.value); setErrors((er) => ({ ...er, account: undefined })); }} aria-invalid={!!errors.account} data-testid="pm-account" />
        {errors.account && <span className="field-error">{errors.account}</span>}
      </label>
      <PhotoPicker
        label={needsQr ? m.c2c_pay_code() : `${m.c2c_pay_code()} (${m.wallet_optional()})`}
        hint={m.c2c_pm_qr_hint()}
        onChange={(info) => {
          setQr(info);
          setErrors((er) => ({ ...er, qr: undefined }));
        }}
        invalid={!!errors.qr}
        testId="pm-qr"
      />
      {errors.qr && <span className="field-error">{errors.qr}</span>}
      <p className="form-note">{m.c2c_pm_holder_note()}</p>
      <div className={s.actionRow}>
        <button type="button" className="btn btn-ghost" onClick={onDone} disabled={busy}>{m.cancel()}</button>
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="pm-save">
          {busy && <Spinner size={16} />}
          {m.c2c_pm_save()}
        </button>
      </div>
    </form>
  );
}
