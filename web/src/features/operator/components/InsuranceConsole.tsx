/**
 * Cover plans in the console (/admin/insurance, issue #19 §4–§5): every plan with its terms, what it
 * holds reserved and its running totals; publish a plan (currency, insured amounts, premium and
 * cover rates, term, the most cover it may hold reserved) and close one, each with a reason the
 * server audits. Operators set terms only: nothing here touches a cover, a claim or a balance.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { compareDecimal } from "../../../lib/amount.ts";
import { formatExact } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { Modal } from "../../../components/Modal.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useCloseInsurancePlan, useCreateInsurancePlan, useInsurancePlans, type InsurancePlan } from "../insurance-api.ts";
import { DecisionDialog, Kv, type Decision } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

const USDT_ID = 3;
const DECIMAL = /^\d{1,20}(\.\d{1,8})?$/;
const PERCENT = /^\d{1,3}(\.\d{1,2})?$/;

/** Checks of the plan form, as the server's schema makes them; null when it may be sent. */
export function planProblem(v: { name: string; amounts: string[]; premium: string; cover: string; days: string; capacity: string; reason: string }): string | null {
  if (!v.name.trim() || v.name.trim().length > 60) return m.op_ins_err_name();
  if (v.amounts.length < 1 || v.amounts.length > 8 || v.amounts.some((x) => !DECIMAL.test(x) || compareDecimal(x, "0") !== 1)) return m.op_ins_err_amounts();
  if (!PERCENT.test(v.premium) || compareDecimal(v.premium, "0") !== 1 || compareDecimal(v.premium, "100") === 1) return m.op_ins_err_percent();
  if (!PERCENT.test(v.cover) || compareDecimal(v.cover, "0") !== 1 || compareDecimal(v.cover, "50") === 1) return m.op_ins_err_percent();
  if (!/^\d{1,3}$/.test(v.days) || Number(v.days) < 1 || Number(v.days) > 365) return m.op_ins_err_days();
  if (!DECIMAL.test(v.capacity) || compareDecimal(v.capacity, "0") !== 1) return m.op_ins_err_capacity();
  if (!v.reason.trim()) return m.op_reason_required();
  return null;
}

export function InsuranceConsole() {
  const plans = useInsurancePlans();
  const close = useCloseInsurancePlan();
  const [creating, setCreating] = useState(false);
  const [decision, setDecision] = useState<Decision | null>(null);
  const askClose = (p: InsurancePlan) =>
    setDecision({
      title: m.op_ins_close_title({ name: p.name }),
      confirmText: m.op_ins_close_do(),
      reasonRequired: true,
      danger: true,
      summary: <p className="form-note">{m.op_ins_close_note()}</p>,
      run: (reason) => close(p.id, reason),
    });
  const d = plans.data;
  return (
    <section data-testid="admin-insurance">
      <p className="form-note">{m.op_ins_note()}</p>
      <div className={s.secHead}>
        <h3 className={s.adminSubtitle}>{m.op_ins_plans()}</h3>
        <button type="button" className="btn btn-outline btn-small" onClick={() => setCreating(true)} data-testid="ins-plan-add">
          {m.op_ins_add()}
        </button>
      </div>
      {d && d.totals.length > 0 && (
        <dl className={acct.kv} data-testid="ins-admin-totals">
          {d.totals.map((t) => (
            <Kv key={t.currency_id} label={t.currency}>
              {m.op_ins_totals({ premiums: formatExact(t.premiums_collected), paid: formatExact(t.claims_paid), reserved: formatExact(t.reserved) })}
            </Kv>
          ))}
        </dl>
      )}
      {plans.error && !d ? (
        <ErrorState message={plans.error.message} onRetry={plans.reload} />
      ) : !d ? (
        <SkeletonList rows={2} />
      ) : d.plans.length === 0 ? (
        <EmptyState />
      ) : (
        <ul className={acct.recordList}>
          {d.plans.map((p) => (
            <li key={p.id} className={acct.recordCard} data-testid="ins-plan-row">
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>
                  {p.name} <span className="muted">#{p.id}</span>
                </span>
                <span className={`badge ${p.status === 1 ? "badge-ok" : "badge-none"}`}>{p.status === 1 ? m.op_ins_on_sale() : m.op_ins_closed()}</span>
              </div>
              <dl className={acct.kv}>
                <Kv label={m.ins_amount()}>
                  {p.quotes.map((q) => formatExact(q.amount)).join(" · ")} {p.currency}
                </Kv>
                <Kv label={m.op_ins_rates()}>{m.ins_plan_badge({ premium: p.premium_percent, cover: p.cover_percent })}</Kv>
                <Kv label={m.ins_term()}>{m.ins_days({ days: String(p.days) })}</Kv>
                <Kv label={m.op_ins_reserved()}>
                  {formatExact(p.reserved)} / {formatExact(p.capacity)} {p.currency}
                </Kv>
                <Kv label={m.op_ins_collected()}>
                  {formatExact(p.premiums_collected)} / {formatExact(p.claims_paid)} {p.currency}
                </Kv>
              </dl>
              {p.status === 1 && (
                <div className={acct.btnRow}>
                  <button type="button" className={`btn btn-small ${acct.btnDanger}`} onClick={() => askClose(p)} data-testid="ins-plan-close">
                    {m.op_ins_close()}
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {creating && <PlanDialog onClose={() => setCreating(false)} />}
      {decision && <DecisionDialog decision={decision} onClose={() => setDecision(null)} onDone={() => setDecision(null)} />}
    </section>
  );
}

function PlanDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateInsurancePlan();
  const [name, setName] = useState("");
  const [amounts, setAmounts] = useState("100, 500, 1000");
  const [premium, setPremium] = useState("5");
  const [cover, setCover] = useState("50");
  const [days, setDays] = useState("30");
  const [capacity, setCapacity] = useState("");
  const [reason, setReason] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const go = async (e?: FormEvent) => {
    e?.preventDefault();
    const list = amounts.split(/[\s,;]+/).filter((x) => x !== "");
    const problem = planProblem({ name, amounts: list, premium, cover, days, capacity, reason });
    if (problem) {
      setError(problem);
      return;
    }
    setBusy(true);
    try {
      await create({ name: name.trim(), currency_id: USDT_ID, amounts: list, premium_percent: premium, cover_percent: cover, days: Number(days), capacity, reason: reason.trim() });
      toast.success(m.op_ins_published());
      onClose();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  const field = (label: string, value: string, set: (v: string) => void, testId: string, mode: "text" | "decimal" | "numeric" = "decimal") => (
    <label className="field">
      <span className="field-label">{label}</span>
      <input className="input" inputMode={mode} value={value} onChange={(e) => set(e.target.value)} data-testid={testId} />
    </label>
  );
  return (
    <Modal
      title={m.op_ins_new()}
      onClose={onClose}
      busy={busy}
      testId="ins-plan-dialog"
      actions={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={busy}>
            {m.cancel()}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void go()} disabled={busy} data-testid="ins-plan-save">
            {busy && <Spinner size={16} />}
            {m.op_ins_publish()}
          </button>
        </>
      }
    >
      <form className={`form ${s.secForm}`} onSubmit={(e) => void go(e)} noValidate>
        {field(m.op_ins_name(), name, setName, "ins-plan-name", "text")}
        <p className="form-note">{m.op_ins_currency_note()}</p>
        {field(m.op_ins_amounts(), amounts, setAmounts, "ins-plan-amounts", "text")}
        {field(m.op_ins_premium(), premium, setPremium, "ins-plan-premium")}
        {field(m.op_ins_cover(), cover, setCover, "ins-plan-cover")}
        {field(m.op_ins_days(), days, setDays, "ins-plan-days", "numeric")}
        {field(m.op_ins_capacity(), capacity, setCapacity, "ins-plan-capacity")}
        {field(m.op_reason(), reason, setReason, "ins-plan-reason", "text")}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </Modal>
  );
}
