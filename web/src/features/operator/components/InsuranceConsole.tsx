/**
 * Cover plans in the console (/admin/insurance, issue #19 §4–§5): every plan with its terms, what it
 * holds reserved and its running totals; publish a plan (currency, insured amounts, premium and
 * cover rates, term, the most cover it may hold reserved) and close one, each with a reason the
 * server audits. Operators set terms only: nothing here touches a cover, a claim or a balance.
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { compareDecimal } from "../../../lib/amount.ts";
import { formatExact } from "../../../lib/format.ts";
import { useCloseInsurancePlan, useCreateInsurancePlan, useInsurancePlans, type InsurancePlan } from "../insurance-api.ts";
import { Kv, useDecisionDialog } from "./common.tsx";
import { FormDialog, OnOff, RecordActions, RecordCard, SectionHead, TextField, useFormSave, RecordList, NameId } from "./kit.tsx";
import acct from "../../../components/account.module.css";

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
  const { open, dialog } = useDecisionDialog();
  const askClose = (p: InsurancePlan) =>
    open({
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
      <SectionHead title={m.op_ins_plans()} action={m.op_ins_add()} onAction={() => setCreating(true)} actionTestId="ins-plan-add" />
      {d && d.totals.length > 0 && (
        <dl className={acct.kv} data-testid="ins-admin-totals">
          {d.totals.map((t) => (
            <Kv key={t.currency_id} label={t.currency}>
              {m.op_ins_totals({ premiums: formatExact(t.premiums_collected), paid: formatExact(t.claims_paid), reserved: formatExact(t.reserved) })}
            </Kv>
          ))}
        </dl>
      )}
      <RecordList q={{ data: plans.data?.plans, error: plans.error, reload: plans.reload }} rows={2}>
        {(p) => (
        <RecordCard
          key={p.id}
          title={<NameId name={p.name} id={p.id} />}
          badge={<OnOff on={p.status === 1} onText={m.op_ins_on_sale()} offText={m.op_ins_closed()} />}
          testId="ins-plan-row"
          actions={
            p.status === 1 && (
              <RecordActions>
                <button type="button" className={`btn btn-small ${acct.btnDanger}`} onClick={() => askClose(p)} data-testid="ins-plan-close">
                  {m.op_ins_close()}
                </button>
              </RecordActions>
            )
          }
        >
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
        </RecordCard>
        )}
      </RecordList>
      {creating && <PlanDialog onClose={() => setCreating(false)} />}
      {dialog}
    </section>
  );
}

function PlanDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateInsurancePlan();
  const [f, setF] = useState({ name: "", amounts: "100, 500, 1000", premium: "5", cover: "50", days: "30", capacity: "", reason: "" });
  const { busy, error, save } = useFormSave(onClose, m.op_ins_published);
  const go = () => {
    const amounts = f.amounts.split(/[\s,;]+/).filter((x) => x !== "");
    save(planProblem({ ...f, amounts }), () =>
      create({ name: f.name.trim(), currency_id: USDT_ID, amounts, premium_percent: f.premium, cover_percent: f.cover, days: Number(f.days), capacity: f.capacity, reason: f.reason.trim() }),
    );
  };
  const field = (key: keyof typeof f, label: string, mode: "text" | "decimal" | "numeric" = "decimal") => <TextField label={label} mode={mode} value={f[key]} onChange={(v) => setF((x) => ({ ...x, [key]: v }))} testId={`ins-plan-${key}`} />;
  return (
    <FormDialog title={m.op_ins_new()} testId="ins-plan-dialog" onClose={onClose} onSave={go} saveText={m.op_ins_publish()} saveTestId="ins-plan-save" busy={busy} error={error}>
      {field("name", m.op_ins_name(), "text")}
      <p className="form-note">{m.op_ins_currency_note()}</p>
      {field("amounts", m.op_ins_amounts(), "text")}
      {field("premium", m.op_ins_premium())}
      {field("cover", m.op_ins_cover())}
      {field("days", m.op_ins_days(), "numeric")}
      {field("capacity", m.op_ins_capacity())}
      {field("reason", m.op_reason(), "text")}
    </FormDialog>
  );
}
