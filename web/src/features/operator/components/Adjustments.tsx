/**
 * Balance adjustments (DESIGN §1: operators never edit balances directly). One operator requests
 * a signed amount for a user's account (or the treasury) with a reason; a second, different
 * operator approves it, and only then does it go through the ledger. Every step is audited.
 */
import { useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { toast } from "../../../lib/toast.ts";
import { checkAmount } from "../../../../../schemas/wallet.ts";
import { Icon } from "../../../components/Icon.tsx";
import { Spinner } from "../../../components/States.tsx";
import { ACCOUNT_NAMES, accountLabel, type AccountName } from "../../../lib/products.ts";
import { useAdjustments, useCurrencies, useDecideAdjustment, useRequestAdjustment, type Adjustment } from "../api.ts";
import { accountText, ApproveRejectButtons, Kv, QueueList, StatusFilter, useDecisionDialog, userLabel } from "./common.tsx";
import { CheckField, CurrencySelect, Field } from "./kit.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";
import { formatExact, formatDateTime } from "../../../lib/format.ts";

const TREASURY = -3;

export function AdjustmentsSection({ me }: { me: number }) {
  const [status, setStatus] = useState<number | undefined>(0);
  const list = useAdjustments(status);
  const decideAdjustment = useDecideAdjustment();
  const { open, dialog } = useDecisionDialog(list.reload);

  const ask = (a: Adjustment, approve: boolean) =>
    open({
      title: approve ? m.op_adj_approve_title({ id: a.id }) : m.op_adj_reject_title({ id: a.id }),
      confirmText: approve ? m.op_adj_apply_do() : m.op_adj_reject_do(),
      reasonRequired: !approve,
      danger: !approve,
      summary: <p className={s.dialogSummary}>{m.op_adj_summary({ amount: `${formatExact(a.amount)} ${a.currency_name}`, user: userLabel(a.user_account, a.user_id), reason: a.reason })}</p>,
      run: async (reason) => {
        await decideAdjustment(a.id, approve ? "approve" : "reject", reason);
        toast.success(approve ? m.op_adj_applied() : m.op_rejected());
      },
    });

  return (
    <section data-testid="admin-adjustments">
      <RequestForm onDone={list.reload} />
      <h3 className={s.adminSubtitle}>{m.op_adj_list()}</h3>
      <StatusFilter
        value={status}
        onChange={setStatus}
        options={[
          { value: 0, label: m.op_status_pending() },
          { value: 1, label: m.op_status_applied() },
          { value: 2, label: m.op_status_rejected() },
          { value: undefined, label: m.op_status_all() },
        ]}
      />
      <QueueList
        list={list}
        renderItem={(a) => {
          const mine = a.requested_by === me;
          return (
            <li className={acct.recordCard} data-testid="adjustment-row" data-id={a.id}>
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>#{a.id} · {userLabel(a.user_account, a.user_id)}</span>
                <span className={`badge badge-${a.status === 1 ? "ok" : a.status === 2 ? "bad" : "pending"}`}>
                  {a.status === 1 ? m.op_status_applied() : a.status === 2 ? m.op_status_rejected() : m.op_status_pending()}
                </span>
              </div>
              <dl className={acct.kv}>
                <Kv label={m.wallet_amount()}>
                  <span className={a.amount.startsWith("-") ? "down" : "up"}>{a.amount.startsWith("-") ? "" : "+"}{formatExact(a.amount)} {a.currency_name}</span>
                </Kv>
                <Kv label={m.op_account()}>{accountText(a.account)}</Kv>
                <Kv label={m.op_reason()} mono>{a.reason}</Kv>
                <Kv label={m.op_requested_by()}>{mine ? m.op_you({ id: a.requested_by }) : `ID ${a.requested_by}`}</Kv>
                {a.decided_by !== null && <Kv label={m.op_decided_by()}>ID {a.decided_by}{a.decision_reason ? ` · ${a.decision_reason}` : ""}</Kv>}
                <Kv label={m.wallet_time()}>{formatDateTime(a.time_format)}</Kv>
              </dl>
              {a.status === 0 && (
                <>
                  {mine && <p className="form-note">{m.op_adj_needs_second()}</p>}
                  <ApproveRejectButtons onReject={() => ask(a, false)} onApprove={() => ask(a, true)} rejectTestId="adjustment-reject" approveTestId="adjustment-approve" approveDisabled={mine} />
                </>
              )}
            </li>
          );
        }}
      />
      {dialog}
    </section>
  );
}

function RequestForm({ onDone }: { onDone: () => void }) {
  const [params] = useSearchParams();
  const currencies = useCurrencies();
  const requestAdjustment = useRequestAdjustment();
  const [treasury, setTreasury] = useState(false);
  const [userId, setUserId] = useState(params.get("user") ?? "");
  const [currency, setCurrency] = useState(3);
  const [account, setAccount] = useState<AccountName>("change");
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const scale = currencies.data?.find((c) => c.currency === currency)?.decimals ?? 8;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const next: Record<string, string> = {};
    const uid = treasury ? TREASURY : Number(userId);
    if (!treasury && !(Number.isSafeInteger(uid) && uid > 0)) next.user = m.op_user_id_invalid();
    const check = checkAmount(amount, scale, { signed: true });
    if (!check.ok) next.amount = errText(check.key, check.params);
    if (!reason.trim()) next.reason = m.op_reason_required();
    setErrors(next);
    if (Object.keys(next).length) return;
    setBusy(true);
    try {
      const res = await requestAdjustment({ user_id: uid, currency_id: currency, account: treasury ? "change" : account, amount, reason: reason.trim() });
      toast.success(m.op_adj_requested({ id: res.id }));
      setAmount("");
      setReason("");
      onDone();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form card" onSubmit={submit} noValidate data-testid="adjustment-form">
      <h2 className="section-title">{m.op_adj_request_title()}</h2>
      <CheckField label={m.op_adj_treasury()} checked={treasury} onChange={setTreasury} testId="adj-treasury" />
      {!treasury && (
        <div className={acct.formGrid}>
          <label className="field">
            <span className="field-label">{m.op_user_id()}</span>
            <input className="input" inputMode="numeric" value={userId} onChange={(e) => { setUserId(e.target.value.replace(/\D/g, "")); setErrors((er) => ({ ...er, user: "" })); }} aria-invalid={!!errors.user} data-testid="adj-user" />
            {errors.user && <span className="field-error">{errors.user}</span>}
          </label>
          <Field label={m.op_account()}>
            <div className="select-wrap">
              <select className="input" value={account} onChange={(e) => setAccount(e.target.value as AccountName)} data-testid="adj-account">
                {ACCOUNT_NAMES.map((a) => (
                  <option key={a} value={a}>{accountLabel(a)}</option>
                ))}
              </select>
              <Icon name="chevronDown" size={18} className="select-caret" />
            </div>
          </Field>
        </div>
      )}
      <div className={acct.formGrid}>
        <CurrencySelect value={currency} onChange={setCurrency} currencies={currencies.data} testId="adj-currency" />
        <label className="field">
          <span className="field-label">{m.op_adj_amount()}</span>
          <input className="input num" inputMode="decimal" value={amount} placeholder="+100 / -100" onChange={(e) => { setAmount(e.target.value.replace(/[^\d.-]/g, "")); setErrors((er) => ({ ...er, amount: "" })); }} aria-invalid={!!errors.amount} data-testid="adj-amount" />
          {errors.amount && <span className="field-error">{errors.amount}</span>}
        </label>
      </div>
      <label className="field">
        <span className="field-label">{m.op_reason()}</span>
        <textarea className={`input ${acct.textarea}`} rows={2} maxLength={500} value={reason} onChange={(e) => { setReason(e.target.value); setErrors((er) => ({ ...er, reason: "" })); }} aria-invalid={!!errors.reason} data-testid="adj-reason" />
        {errors.reason && <span className="field-error">{errors.reason}</span>}
      </label>
      <p className="form-note">{m.op_adj_note()}</p>
      <button type="submit" className="btn btn-primary btn-block" disabled={busy} data-testid="adj-submit">
        {busy && <Spinner size={16} />}
        {m.op_adj_submit()}
      </button>
    </form>
  );
}
