/**
 * Receiving bank card (spec §2 Bank, §5): real name, card number (checked with the Luhn
 * checksum; the bank's name is filled in from the number when the field loses focus), bank
 * name and branch. Withdrawals and fiat orders need it (the server answers 997 otherwise).
 */
import { useRef, useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { toast } from "../../../lib/toast.ts";
import { useNavigate, useSearchParams } from "react-router";
import { safeRedirect } from "../../../lib/nav.ts";
import { luhnValid, realNameSchema } from "../../../../../schemas/kyc.ts";
import { Icon } from "../../../components/Icon.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { lookupBank, useCenter, useSaveBankCard } from "../api.ts";
import acct from "../../../components/account.module.css";
import { Field } from "../../../components/Field.tsx";

/** Digits in groups of four, as printed on a card. */
const groupCard = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, "$1 ");

export default function BankPage() {
  const center = useCenter();
  const navigate = useNavigate();
  // Sent here from a C2C order (?back=): once the card is saved, back to that order.
  const [params] = useSearchParams();
  const back = params.get("back") ? safeRedirect(params.get("back")) : null;
  const c = center.data;
  const [editing, setEditing] = useState(false);

  if (center.error && !c) return <ErrorState message={center.error.message} onRetry={center.reload} />;
  if (!c) return <div className={acct.acctPage}><SkeletonBlock height={300} /></div>;

  return (
    <div className={acct.acctPage} data-testid="bank-page">
      {c.bank && !editing ? (
        <>
          <section className={acct.bankCardView} data-testid="bank-current">
            <div className={acct.bankCardTop}>
              <Icon name="bank" size={22} />
              <span>{c.bank.bank_name}</span>
            </div>
            <div className={`${acct.bankCardNumber} num`} data-testid="bank-card-number" title={c.bank.bank_account}>
              **** **** **** {c.bank.bank_account.slice(-4)}
            </div>
            <div className={acct.bankCardBottom}>
              <span>{c.bank.real_name}</span>
              <span className="muted">{c.bank.bank_branch}</span>
            </div>
          </section>
          <button type="button" className="btn btn-outline btn-block" onClick={() => setEditing(true)} data-testid="bank-change">
            {m.kyc_bank_change()}
          </button>
        </>
      ) : (
        <BankForm
          defaultName={c.bank?.real_name ?? c.name ?? ""}
          onCancel={c.bank ? () => setEditing(false) : undefined}
          onSaved={() => {
            setEditing(false);
            center.reload();
            if (back) navigate(back, { replace: true });
          }}
        />
      )}
      <p className={`form-note ${acct.center}`}>{m.kyc_bank_note()}</p>
    </div>
  );
}

function BankForm({ defaultName, onCancel, onSaved }: { defaultName: string; onCancel?: () => void; onSaved: () => void }) {
  const saveBankCard = useSaveBankCard();
  const [realName, setRealName] = useState(defaultName);
  const [card, setCard] = useState("");
  const [bankName, setBankName] = useState("");
  const [branch, setBranch] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [looking, setLooking] = useState(false);
  const [busy, setBusy] = useState(false);
  const autoFilled = useRef<string | null>(null);
  const digits = card.replace(/\D/g, "");

  const cardError = (d: string): string => (d.length < 12 || d.length > 19 || !luhnValid(d) ? errText("card_invalid") : "");

  // Spec §2: the bank's name is filled in from the number on blur.
  const onCardBlur = async () => {
    if (digits.length === 0) return;
    const problem = cardError(digits);
    setErrors((e) => ({ ...e, card: problem }));
    if (digits.length < 6) return;
    setLooking(true);
    try {
      const r = await lookupBank(digits);
      if (r.bank_name && (bankName === "" || bankName === autoFilled.current)) {
        setBankName(r.bank_name);
        autoFilled.current = r.bank_name;
        setErrors((e) => ({ ...e, bank_name: "" }));
      }
    } catch {
      // no suggestion: the user types the bank's name
    } finally {
      setLooking(false);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const next: Record<string, string> = {};
    const n = realNameSchema.safeParse(realName);
    if (!n.success) next.real_name = errText(n.error.issues[0]?.message ?? "invalid_param", { field: m.kyc_bank_holder() });
    const ce = cardError(digits);
    if (ce) next.card = ce;
    if (!bankName.trim()) next.bank_name = m.kyc_bank_name_required();
    setErrors(next);
    if (Object.values(next).some(Boolean)) return;
    setBusy(true);
    try {
      await saveBankCard({ real_name: realName.trim(), bank_account: digits, bank_name: bankName.trim(), bank_branch: branch.trim() });
      toast.success(m.kyc_bank_saved());
      onSaved();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form card" onSubmit={submit} noValidate data-testid="bank-form">
      <Field label={m.kyc_bank_holder()} error={errors.real_name}>
        <input className="input" autoComplete="name" value={realName} placeholder={m.kyc_name_placeholder()} onChange={(e) => { setRealName(e.target.value); setErrors((er) => ({ ...er, real_name: "" })); }} aria-invalid={!!errors.real_name} data-testid="bank-real-name" />
      </Field>
      <Field label={m.kyc_bank_card()} error={errors.card} errorTestId="bank-card-error">
        <div className="input-wrap">
          <input
            className="input num"
            inputMode="numeric"
            autoComplete="cc-number"
            value={groupCard(digits)}
            placeholder={m.kyc_bank_card_placeholder()}
            onChange={(e) => {
              setCard(e.target.value.replace(/\D/g, "").slice(0, 19));
              setErrors((er) => ({ ...er, card: "" }));
            }}
            onBlur={onCardBlur}
            aria-invalid={!!errors.card}
            data-testid="bank-card"
          />
          {looking && <span className={`input-addon ${acct.inputUnit}`}><Spinner size={16} /></span>}
        </div>
      </Field>
      <Field label={m.kyc_bank_name()} error={errors.bank_name}>
        <input className="input" value={bankName} placeholder={m.kyc_bank_name_placeholder()} onChange={(e) => { setBankName(e.target.value); setErrors((er) => ({ ...er, bank_name: "" })); }} aria-invalid={!!errors.bank_name} data-testid="bank-name" />
      </Field>
      <Field
        label={
          <>
            {m.kyc_bank_branch()} <span className="muted">({m.wallet_optional()})</span>
          </>
        }
      >
        <input className="input" value={branch} placeholder={m.kyc_bank_branch_placeholder()} onChange={(e) => setBranch(e.target.value)} data-testid="bank-branch" />
      </Field>
      <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="bank-submit">
        {busy && <Spinner size={16} />}
        {m.kyc_bank_save()}
      </button>
      {onCancel && (
        <button type="button" className="btn btn-ghost btn-block" onClick={onCancel}>
          {m.cancel()}
        </button>
      )}
    </form>
  );
}
