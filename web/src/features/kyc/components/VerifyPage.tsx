/**
 * Identity verification (spec §2, §4, §5): three levels with their status; level 1 is the name,
 * document type and number; level 2 adds photos of the document's front and back and a
 * hand-held photo; level 3 adds a proof of assets (total assets above 20 BTC). The form is
 * locked with a label while a submission is under review and once everything is approved; a
 * rejection shows the operator's reason and the form opens again.
 */
import { useEffect, useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { patchSession } from "../../../lib/session.ts";
import { toast } from "../../../lib/toast.ts";
import type { UploadInfo } from "../../../lib/upload.ts";
import { cardIdSchema, realNameSchema } from "../../../../../schemas/kyc.ts";
import { Icon } from "../../../components/Icon.tsx";
import { PhotoPicker } from "../../../components/PhotoPicker.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useCenter, useSubmitIdentity, type Center, type IdentitySubmission } from "../api.ts";
import acct from "../../../components/account.module.css";

type Level = 1 | 2 | 3;
type Pics = { front: UploadInfo | null; reverse: UploadInfo | null; hand: UploadInfo | null; asset: UploadInfo | null };

const docTypes: { value: number; label: () => string }[] = [
  { value: 1, label: m.kyc_type_id },
  { value: 2, label: m.kyc_type_licence },
  { value: 3, label: m.kyc_type_passport },
];

/** The level row's border and number colour by state. */
const toneClass: Partial<Record<string, string>> = { ok: acct.toneOk, pending: acct.tonePending, bad: acct.toneBad };

function levelState(c: Center, n: Level): { text: string; tone: string } {
  if (c.level >= n) return { text: m.verify_status_2(), tone: "ok" };
  if (c.pending_level !== null && n <= c.pending_level) return { text: m.verify_status_1(), tone: "pending" };
  if (c.review_status === 3 && c.rejection_reason && n === c.level + 1) return { text: m.verify_status_3(), tone: "bad" };
  return { text: m.verify_status_0(), tone: "none" };
}

export default function VerifyPage() {
  const center = useCenter();
  const c = center.data;

  // Keep the drawer's badge in step with what the server says.
  useEffect(() => {
    if (c) patchSession({ verified: String(c.review_status), ...(c.name ? { true_name: c.name } : {}) });
  }, [c]);

  if (center.error && !c) return <ErrorState message={center.error.message} onRetry={center.reload} />;
  if (!c) return <div className={acct.acctPage}><SkeletonBlock height={160} /><SkeletonBlock height={320} /></div>;

  const pending = c.pending_level !== null;
  const complete = c.level >= 3;

  return (
    <div className={acct.acctPage} data-testid="verify-page">
      <ol className={acct.levelList}>
        {([1, 2, 3] as const).map((n) => {
          const st = levelState(c, n);
          return (
            <li key={n} className={`${acct.levelItem} ${toneClass[st.tone] ?? ""}`} data-testid={`kyc-level-${n}`} data-state={st.tone}>
              <span className={acct.levelNum}>{n}</span>
              <span className={acct.levelText}>
                <strong>{m.kyc_level({ level: n })}</strong>
                <span className="muted">{n === 1 ? m.kyc_level1_desc() : n === 2 ? m.kyc_level2_desc() : m.kyc_level3_desc()}</span>
              </span>
              <span className={`badge badge-${st.tone}`}>{st.text}</span>
            </li>
          );
        })}
      </ol>

      {c.level >= 1 && c.name && (
        <section className="card identity-card" data-testid="kyc-identity">
          <dl className={acct.kv}>
            <div className={acct.kvRow}><dt>{m.kyc_name()}</dt><dd>{c.name}</dd></div>
            {c.type !== null && <div className={acct.kvRow}><dt>{m.kyc_doc_type()}</dt><dd>{docTypes.find((d) => d.value === c.type)?.label() ?? "--"}</dd></div>}
            {c.card_id && <div className={acct.kvRow}><dt>{m.kyc_doc_number()}</dt><dd className="num">{c.card_id}</dd></div>}
          </dl>
        </section>
      )}

      {pending ? (
        <div className={acct.lockPanel} data-testid="kyc-locked">
          <Icon name="trade" size={28} />
          <strong>{m.kyc_locked_review({ level: c.pending_level ?? 1 })}</strong>
          <span className="muted">{m.kyc_locked_review_note()}</span>
        </div>
      ) : complete ? (
        <div className={`${acct.lockPanel} ${acct.ok}`} data-testid="kyc-locked">
          <Icon name="shield" size={28} />
          <strong>{m.kyc_locked_done()}</strong>
        </div>
      ) : (
        <>
          {c.review_status === 3 && c.rejection_reason && (
            <p className={`${acct.notice} ${acct.noticeBad}`} data-testid="kyc-rejected">{m.kyc_rejected({ reason: c.rejection_reason })}</p>
          )}
          <IdentityForm center={c} onDone={center.reload} />
        </>
      )}
    </div>
  );
}

function IdentityForm({ center, onDone }: { center: Center; onDone: () => void }) {
  const submitIdentity = useSubmitIdentity();
  const first = (center.level + 1) as Level;
  const [target, setTarget] = useState<Level>(first);
  const [name, setName] = useState("");
  const [type, setType] = useState<number>(1);
  const [cardId, setCardId] = useState("");
  const [pics, setPics] = useState<Pics>({ front: null, reverse: null, hand: null, asset: null });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const needs1 = center.level < 1;
  const needs2 = target >= 2 && center.level < 2;
  const needs3 = target === 3;
  const setPic = (k: keyof Pics) => (info: UploadInfo | null) => {
    setPics((p) => ({ ...p, [k]: info }));
    if (info) setErrors((e) => ({ ...e, [k]: "" }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const next: Record<string, string> = {};
    const body: IdentitySubmission = { level: target };
    if (needs1) {
      const n = realNameSchema.safeParse(name);
      if (!n.success) next.name = errText(n.error.issues[0]?.message ?? "invalid_param", { field: m.kyc_name() });
      const id = cardIdSchema.safeParse(cardId);
      if (!id.success) next.card_id = errText(id.error.issues[0]?.message ?? "card_id_invalid");
      body.name = name.trim();
      body.type = type as 1 | 2 | 3; // one of DOC_TYPES
      body.card_id = cardId.trim();
    }
    if (needs2) {
      if (!pics.front) next.front = m.kyc_photo_required();
      if (!pics.reverse) next.reverse = m.kyc_photo_required();
      if (!pics.hand) next.hand = m.kyc_photo_required();
      body.front_pic = pics.front?.id;
      body.reverse_pic = pics.reverse?.id;
      body.hand_pic = pics.hand?.id;
    }
    if (needs3) {
      if (!pics.asset) next.asset = m.kyc_photo_required();
      body.asset_pic = pics.asset?.id;
    }
    setErrors(next);
    if (Object.values(next).some(Boolean)) return;
    setBusy(true);
    try {
      const res = await submitIdentity(body);
      patchSession({ verified: String(res.review_status) });
      toast.success(m.kyc_submitted());
      onDone();
    } catch {
      // the API client showed the server's message (e.g. level 3 needs more assets)
    } finally {
      setBusy(false);
    }
  };

  const levels = ([1, 2, 3] as const).filter((n) => n >= first);
  return (
    <form className="form" onSubmit={submit} noValidate data-testid="kyc-form">
      <div className="field">
        <span className="field-label">{m.kyc_apply_for()}</span>
        <div className={acct.chips} role="radiogroup" aria-label={m.kyc_apply_for()}>
          {levels.map((n) => (
            <button key={n} type="button" role="radio" aria-checked={target === n} className={target === n ? "active" : ""} onClick={() => setTarget(n)} data-testid={`kyc-target-${n}`}>
              {m.kyc_level({ level: n })}
            </button>
          ))}
        </div>
      </div>

      {needs1 && (
        <section className="card form">
          <h2 className="section-title">{m.kyc_basic_title()}</h2>
          <label className="field">
            <span className="field-label">{m.kyc_name()}</span>
            <input className="input" autoComplete="name" value={name} placeholder={m.kyc_name_placeholder()} onChange={(e) => { setName(e.target.value); setErrors((er) => ({ ...er, name: "" })); }} aria-invalid={!!errors.name} data-testid="kyc-name" />
            {errors.name && <span className="field-error">{errors.name}</span>}
          </label>
          <div className="field">
            <span className="field-label">{m.kyc_doc_type()}</span>
            <div className={acct.chips} role="radiogroup" aria-label={m.kyc_doc_type()}>
              {docTypes.map((d) => (
                <button key={d.value} type="button" role="radio" aria-checked={type === d.value} className={type === d.value ? "active" : ""} onClick={() => setType(d.value)} data-testid={`kyc-type-${d.value}`}>
                  {d.label()}
                </button>
              ))}
            </div>
          </div>
          <label className="field">
            <span className="field-label">{m.kyc_doc_number()}</span>
            <input className="input" autoComplete="off" autoCapitalize="characters" spellCheck={false} value={cardId} placeholder={m.kyc_doc_number_placeholder()} onChange={(e) => { setCardId(e.target.value); setErrors((er) => ({ ...er, card_id: "" })); }} aria-invalid={!!errors.card_id} data-testid="kyc-card-id" />
            {errors.card_id && <span className="field-error">{errors.card_id}</span>}
          </label>
        </section>
      )}

      {needs2 && (
        <section className="card form">
          <h2 className="section-title">{m.kyc_photos_title()}</h2>
          <p className="form-note">{m.kyc_photos_note()}</p>
          <PhotoPicker label={m.kyc_front()} onChange={setPic("front")} invalid={!!errors.front} testId="kyc-front" />
          {errors.front && <span className="field-error">{errors.front}</span>}
          <PhotoPicker label={type === 3 ? m.kyc_back_passport() : m.kyc_back()} onChange={setPic("reverse")} invalid={!!errors.reverse} testId="kyc-back" />
          {errors.reverse && <span className="field-error">{errors.reverse}</span>}
          <PhotoPicker label={m.kyc_hand()} hint={m.kyc_hand_hint()} onChange={setPic("hand")} invalid={!!errors.hand} testId="kyc-hand" />
          {errors.hand && <span className="field-error">{errors.hand}</span>}
        </section>
      )}

      {needs3 && (
        <section className="card form">
          <h2 className="section-title">{m.kyc_asset_title()}</h2>
          <p className="form-note">{m.kyc_asset_note({ min: "20" })}</p>
          <PhotoPicker label={m.kyc_asset()} onChange={setPic("asset")} invalid={!!errors.asset} testId="kyc-asset" />
          {errors.asset && <span className="field-error">{errors.asset}</span>}
        </section>
      )}

      <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="kyc-submit">
        {busy && <Spinner size={16} />}
        {m.kyc_submit({ level: target })}
      </button>
      <p className={`form-note ${acct.center}`}>{m.kyc_privacy_note()}</p>
    </form>
  );
}
