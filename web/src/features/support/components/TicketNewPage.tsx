/**
 * /support/new: open a ticket. A category; for "about an order" (optional for the others) the kind
 * of order and the order itself, picked from one's recent orders of that kind or typed; a subject,
 * a description and up to 4 photos. `?kind=c2c&id=123` opens the form about that order (a screen
 * showing an order links here).
 */
import { formatMinute } from "../../../lib/format.ts";
import { useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { toast } from "../../../lib/toast.ts";
import type { UploadInfo } from "../../../lib/upload.ts";
import { SkeletonList, Spinner } from "../../../components/States.tsx";
import acct from "../../../components/account.module.css";
import { supportCategories, supportRelatedKinds, MAX_BODY, MAX_SUBJECT, type SupportCategory } from "../../../../../schemas/support.ts";
import { useCreateTicket, useRecentOrders, type SupportRelatedKind } from "../api.ts";
import { categoryText, kindText, sideText, unitText } from "../labels.ts";
import { PhotoSlots, photosUploading } from "./PhotoSlots.tsx";
import s from "./support.module.css";

const isKind = (v: string | null): v is SupportRelatedKind => (supportRelatedKinds as readonly string[]).includes(v ?? "");

export default function TicketNewPage() {
  const [params] = useSearchParams();
  const presetKind = params.get("kind");
  const presetId = /^\d{1,16}$/.test(params.get("id") ?? "") ? params.get("id")! : "";
  const navigate = useNavigate();
  const create = useCreateTicket();
  const [category, setCategory] = useState<SupportCategory>(isKind(presetKind) ? "order" : "complaint");
  const [kind, setKind] = useState<SupportRelatedKind | "">(isKind(presetKind) ? presetKind : "");
  const [orderId, setOrderId] = useState(isKind(presetKind) ? presetId : "");
  const [subject, setSubject] = useState("");
  const [body, setBody] = useState("");
  const [slots, setSlots] = useState<(UploadInfo | null)[]>([null]);
  const [errors, setErrors] = useState<{ subject?: string; body?: string; order?: string }>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const next: typeof errors = {};
    if (!subject.trim()) next.subject = m.support_subject_required();
    if (!body.trim()) next.body = m.support_message_required();
    if ((category === "order" || kind !== "") && (kind === "" || !/^\d{1,16}$/.test(orderId))) next.order = m.support_order_required();
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    if (photosUploading(e.currentTarget as HTMLFormElement)) {
      toast.info(m.support_uploading());
      return;
    }
    setBusy(true);
    try {
      const t = await create({
        category,
        subject: subject.trim(),
        body: body.trim(),
        ...(kind !== "" ? { related_kind: kind, related_id: Number(orderId) } : {}),
        images: slots.flatMap((x) => (x ? [x.id] : [])),
      });
      toast.success(m.support_created());
      navigate(`/support/ticket?id=${t.id}`, { replace: true });
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className={s.page} onSubmit={submit} noValidate data-testid="support-form">
      <fieldset className={s.group}>
        <legend className="field-label">{m.support_category()}</legend>
        <div className={`${acct.chips} ${acct.chips2}`} role="radiogroup" aria-label={m.support_category()}>
          {supportCategories.map((c) => (
            <button
              key={c}
              type="button"
              role="radio"
              aria-checked={category === c}
              className={category === c ? "active" : ""}
              onClick={() => setCategory(c)}
              data-testid={`support-cat-${c}`}
            >
              {categoryText(c)}
            </button>
          ))}
        </div>
      </fieldset>

      <label className="field">
        <span className="field-label">
          {m.support_related_kind()} {category !== "order" && <span className="muted">({m.wallet_optional()})</span>}
        </span>
        <select
          className={`input ${s.select}`}
          value={kind}
          onChange={(e) => {
            setKind(e.target.value as SupportRelatedKind | "");
            setOrderId("");
            setErrors((x) => ({ ...x, order: undefined }));
          }}
          data-testid="support-kind"
        >
          <option value="">{m.support_related_none()}</option>
          {supportRelatedKinds.map((k) => (
            <option key={k} value={k}>{kindText(k)}</option>
          ))}
        </select>
      </label>
      {kind !== "" && (
        <OrderPicker
          kind={kind}
          value={orderId}
          onChange={(id) => {
            setOrderId(id);
            setErrors((x) => ({ ...x, order: undefined }));
          }}
        />
      )}
      {errors.order && <span className="field-error" data-testid="support-order-error">{errors.order}</span>}

      <label className="field">
        <span className="field-label">{m.support_subject()}</span>
        <input
          className="input"
          value={subject}
          maxLength={MAX_SUBJECT}
          placeholder={m.support_subject_placeholder()}
          onChange={(e) => {
            setSubject(e.target.value);
            setErrors((x) => ({ ...x, subject: undefined }));
          }}
          aria-invalid={!!errors.subject}
          data-testid="support-subject"
        />
        {errors.subject && <span className="field-error">{errors.subject}</span>}
      </label>
      <label className="field">
        <span className="field-label">{m.support_body()}</span>
        <textarea
          className={`input ${s.textarea}`}
          rows={5}
          maxLength={MAX_BODY}
          value={body}
          placeholder={m.support_body_placeholder()}
          onChange={(e) => {
            setBody(e.target.value);
            setErrors((x) => ({ ...x, body: undefined }));
          }}
          aria-invalid={!!errors.body}
          data-testid="support-body"
        />
        {errors.body && <span className="field-error">{errors.body}</span>}
      </label>
      <PhotoSlots slots={slots} setSlots={setSlots} />
      <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="support-submit">
        {busy && <Spinner size={16} />}
        {m.support_submit()}
      </button>
    </form>
  );
}

/** One's recent orders of the kind to tap, or the number typed. */
function OrderPicker({ kind, value, onChange }: { kind: SupportRelatedKind; value: string; onChange: (id: string) => void }) {
  const orders = useRecentOrders(kind);
  return (
    <div className="field" data-testid="support-orders">
      <span className="field-label">{m.support_related_pick()}</span>
      {orders.loading ? (
        <SkeletonList rows={2} />
      ) : orders.error ? (
        <p className="field-error">{orders.error.message}</p>
      ) : (orders.data ?? []).length === 0 ? (
        <p className="muted">{m.support_related_empty()}</p>
      ) : (
        <div className={s.orderList} role="radiogroup" aria-label={m.support_related_pick()}>
          {(orders.data ?? []).map((o) => (
            <button
              key={o.id}
              type="button"
              role="radio"
              aria-checked={value === String(o.id)}
              className={`${s.orderOption} ${value === String(o.id) ? "active" : ""}`}
              onClick={() => onChange(String(o.id))}
              data-testid="support-order-option"
              data-id={o.id}
            >
              <span>
                #{o.id} · {o.name} {sideText(o.side)} {o.amount} {unitText(o.unit)}
              </span>
              <span className="num">{formatMinute(o.created_at)}</span>
            </button>
          ))}
        </div>
      )}
      <input
        className="input"
        inputMode="numeric"
        value={value}
        placeholder={m.support_related_typed()}
        aria-label={m.support_related_typed()}
        onChange={(e) => onChange(e.target.value.replace(/\D/g, "").slice(0, 16))}
        data-testid="support-order-id"
      />
    </div>
  );
}
