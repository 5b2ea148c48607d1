/**
 * /legal/appeal?id=: either party appeals a paid order the seller has not confirmed in time, with
 * a reason and up to five evidence pictures. An operator then sees the order, the proof and the
 * chat and decides: release the coins to the buyer or return them to the seller.
 */
import { useState, type FormEvent } from "react";
import { Navigate, useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { toast } from "../../../lib/toast.ts";
import type { UploadInfo } from "../../../lib/upload.ts";
import { PhotoPicker } from "../../../components/PhotoPicker.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useAppeal, useOrder, type C2cOrder } from "../api.ts";
import { useIdParam, useNow } from "../hooks.ts";
import { canAppeal } from "../math.ts";
import { C2cGate, cny, sideText, StateBadge } from "./common.tsx";
import s from "./c2c.module.css";

const MAX_EVIDENCE = 5;

export default function AppealPage() {
  return (
    <C2cGate>
      <Appeal />
    </C2cGate>
  );
}

function Appeal() {
  const id = useIdParam();
  const order = useOrder(id);
  const now = useNow(5000);
  if (id === 0) return <ErrorState message={m.c2c_order_missing()} />;
  if (order.error && !order.data) return <ErrorState message={order.error.message} onRetry={order.reload} />;
  if (!order.data) return <div className={s.page}><SkeletonBlock height={240} /></div>;
  if (!canAppeal(order.data, now)) return <Navigate to={`/legal/show?id=${id}`} replace />;
  return <AppealForm order={order.data} />;
}

function AppealForm({ order }: { order: C2cOrder }) {
  const navigate = useNavigate();
  const appeal = useAppeal();
  const [reason, setReason] = useState("");
  const [slots, setSlots] = useState<(UploadInfo | null)[]>([null]);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (!reason.trim()) {
      setError(m.c2c_appeal_reason_required());
      return;
    }
    setBusy(true);
    try {
      await appeal(order.id, reason.trim(), slots.flatMap((x) => (x ? [x.id] : [])));
      toast.success(m.c2c_appeal_sent());
      navigate(`/legal/show?id=${order.id}`, { replace: true });
    } catch {
      // shown by the API client
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className={s.page} onSubmit={submit} noValidate data-testid="c2c-appeal">
      <section className={`card ${s.kv}`}>
        <div>
          <dt>{sideText(order)}</dt>
          <dd><StateBadge isSure={order.is_sure} /></dd>
        </div>
        <div>
          <dt>{m.c2c_order_no()}</dt>
          <dd className="num">{order.ordernumber}</dd>
        </div>
        <div>
          <dt>{m.c2c_total()}</dt>
          <dd className="num">{cny(order.deal_money)}</dd>
        </div>
      </section>
      <p className={`${s.notice} ${s.noticeInfo}`}>{m.c2c_appeal_intro()}</p>
      <label className="field">
        <span className="field-label">{m.c2c_appeal_reason()}</span>
        <textarea
          className={`input ${s.textarea}`}
          rows={4}
          maxLength={500}
          value={reason}
          onChange={(e) => {
            setReason(e.target.value);
            setError("");
          }}
          aria-invalid={!!error}
          placeholder={m.c2c_appeal_placeholder()}
          data-testid="appeal-reason"
        />
        {error && <span className="field-error">{error}</span>}
      </label>
      <fieldset className={s.chipSet}>
        <legend className="field-label">{m.c2c_evidence({ max: MAX_EVIDENCE })}</legend>
        {slots.map((_, i) => (
          <PhotoPicker
            key={i}
            label={m.c2c_evidence_n({ n: i + 1 })}
            onChange={(info) => setSlots((all) => all.map((x, j) => (j === i ? info : x)))}
            testId={`appeal-evidence-${i}`}
          />
        ))}
        {slots.length < MAX_EVIDENCE && slots.every((x) => x !== null) && (
          <button type="button" className="btn btn-outline btn-small" onClick={() => setSlots((all) => [...all, null])} data-testid="appeal-more">
            {m.c2c_evidence_add()}
          </button>
        )}
      </fieldset>
      <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="appeal-submit">
        {busy && <Spinner size={16} />}
        {m.c2c_appeal_submit()}
      </button>
    </form>
  );
}
