/**
 * Mining in the console (/admin/mining, issue #20 §1). Plans: each with its stated terms and shares
 * sold; list a plan (pool, pool account, worker, hashrate, shares, USDT price, term, fee in basis
 * points, other fees, payout currency) and close one. Payouts: record what the pool paid for one
 * plan and one ended hour with its evidence; a record waits for a SECOND operator, who approves it
 * (the exchange then holds the amount, and the hourly cron pays it) or rejects it. One's own records
 * show no decision buttons (the server refuses them and audits the attempt). Every action carries
 * a reason the server audits.
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact, parseBeijingInput, toBeijingInput } from "../../../lib/format.ts";
import { $session } from "../../../lib/session.ts";
import {
  useApproveMiningPayout,
  useCloseMiningPlan,
  useCreateMiningPlan,
  useMiningPayouts,
  useMiningPlans,
  useRecordMiningPayout,
  useRejectMiningPayout,
  type MiningAdminPayout,
  type MiningPlan,
} from "../mining-api.ts";
import { ApproveRejectButtons, Kv, useDecisionDialog } from "./common.tsx";
import { Field as KitField, FormDialog, OnOff, RecordActions, RecordCard, SectionHead, TextField, useFormSave, RecordList, NameId } from "./kit.tsx";
import acct from "../../../components/account.module.css";

const BTC_ID = 1;
const hourText = (ms: number) => formatDateTime(ms);
/** The last whole hour that has ended, in UTC+8 as the record form prefills it ("2026-11-26 17:00"). */
const lastEndedHour = () => toBeijingInput(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000);

const statusLabel = (x: MiningAdminPayout["status"]) =>
  x === "paid" ? m.mining_status_paid() : x === "approved" ? m.mining_status_approved() : x === "rejected" ? m.mining_status_rejected() : m.mining_status_pending();

export function MiningConsole() {
  const plans = useMiningPlans();
  const payouts = useMiningPayouts();
  const close = useCloseMiningPlan();
  const approve = useApproveMiningPayout();
  const reject = useRejectMiningPayout();
  const me = Number($session.get().user_id);
  const [creating, setCreating] = useState(false);
  const [recording, setRecording] = useState(false);
  const { open, dialog } = useDecisionDialog();
  const askClose = (p: MiningPlan) =>
    open({ title: m.op_mining_close_title({ name: p.name }), confirmText: m.op_mining_close_do(), reasonRequired: true, danger: true, summary: <p className="form-note">{m.op_mining_close_note()}</p>, run: (reason) => close(p.id, reason) });
  const askDecide = (x: MiningAdminPayout, ok: boolean) =>
    open({
      title: ok ? m.op_mining_approve_title() : m.op_mining_reject_title(),
      confirmText: ok ? m.op_mining_approve_do() : m.op_mining_reject_do(),
      reasonRequired: true,
      danger: !ok,
      summary: (
        <>
        <dl className={acct.kv}>
          <Kv label={m.mining_plan()}>{x.plan_name}</Kv>
          <Kv label={m.op_mining_hour()}>{hourText(x.hour)}</Kv>
          <Kv label={m.mining_pool_paid()}>{formatExact(x.amount)} {x.currency}</Kv>
          <Kv label={m.mining_evidence()} mono>{x.evidence}</Kv>
        </dl>
        {ok && <p className="form-note">{m.op_mining_approve_note({ amount: formatExact(x.amount), currency: x.currency })}</p>}
        </>
      ),
      run: (reason) => (ok ? approve(x.id, reason) : reject(x.id, reason)),
    });
  return (
    <section data-testid="admin-mining">
      <p className="form-note">{m.op_mining_note()}</p>
      <SectionHead title={m.op_mining_plans()} action={m.op_mining_add()} onAction={() => setCreating(true)} actionTestId="mining-plan-add" />
      <RecordList q={plans} rows={2}>
        {(p) => (
        <RecordCard
          key={p.id}
          title={<NameId name={p.name} id={p.id} />}
          badge={<OnOff on={p.status === "open"} onText={m.op_mining_open()} offText={m.op_mining_closed()} />}
          testId="mining-plan-row"
          actions={
            p.status === "open" && (
              <RecordActions>
                <button type="button" className={`btn btn-small ${acct.btnDanger}`} onClick={() => askClose(p)} data-testid="mining-plan-close">
                  {m.op_mining_close()}
                </button>
              </RecordActions>
            )
          }
        >
          <Kv label={m.mining_pool()}>{p.pool} · {p.pool_account} · {p.worker}</Kv>
          <Kv label={m.mining_hashrate()}>{p.hashrate}</Kv>
          <Kv label={m.op_mining_sold()}>{p.sold} / {p.shares}</Kv>
          <Kv label={m.mining_price()}>{formatExact(p.price)} {p.price_currency} · {m.mining_days({ days: String(p.days) })} · {m.mining_fee_value({ percent: p.fee_percent })}</Kv>
          <Kv label={m.mining_paid_30d()}>{formatExact(p.paid_30d_per_share)} {p.payout_currency} / {m.mining_share()}</Kv>
        </RecordCard>
        )}
      </RecordList>
      <SectionHead title={m.op_mining_payouts()} action={m.op_mining_record()} onAction={() => setRecording(true)} actionDisabled={!plans.data || plans.data.length === 0} actionTestId="mining-payout-add" />
      <p className="form-note">{m.op_mining_payouts_note()}</p>
      <RecordList q={payouts} rows={2}>
        {(x) => (
        <RecordCard
          key={x.id}
          title={
            <>
              {x.plan_name} · {hourText(x.hour)}
            </>
          }
          badge={
            <span className={`badge ${x.status === "paid" ? "badge-ok" : x.status === "rejected" ? "badge-bad" : "badge-pending"}`} data-testid="mining-payout-status">
              {statusLabel(x.status)}
            </span>
          }
          testId="mining-payout-row"
          actions={
            x.status === "pending" &&
            (x.recorded_by === me ? (
              <p className="form-note" data-testid="mining-payout-own">{m.op_mining_own()}</p>
            ) : (
              <ApproveRejectButtons onReject={() => askDecide(x, false)} onApprove={() => askDecide(x, true)} rejectTestId="mining-payout-reject" approveTestId="mining-payout-approve" />
            ))
          }
        >
          <Kv label={m.mining_pool_paid()}>{formatExact(x.amount)} {x.currency}</Kv>
          <Kv label={m.mining_evidence()} mono>{x.evidence}</Kv>
          <Kv label={m.op_mining_recorded()}>{m.op_mining_by({ id: String(x.recorded_by), time: formatDateTime(x.recorded_at), reason: x.record_reason })}</Kv>
          {x.decided_by !== null && <Kv label={m.op_mining_decided()}>{m.op_mining_by({ id: String(x.decided_by), time: formatDateTime(x.decided_at ?? 0), reason: x.decide_reason })}</Kv>}
          {x.status === "paid" && <Kv label={m.mining_to_users()}>{formatExact(x.paid_to_users)} {x.currency} ({m.mining_fees_kept({ fees: formatExact(x.fees) })})</Kv>}
        </RecordCard>
        )}
      </RecordList>
      {creating && <PlanDialog onClose={() => setCreating(false)} />}
      {recording && plans.data && <RecordDialog plans={plans.data} onClose={() => setRecording(false)} />}
      {dialog}
    </section>
  );
}

function Field({ label, value, set, testId, mode = "text" }: { label: string; value: string; set: (v: string) => void; testId: string; mode?: "text" | "decimal" | "numeric" }) {
  return <TextField label={label} mode={mode} value={value} onChange={set} testId={testId} />;
}

function PlanDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateMiningPlan();
  const [name, setName] = useState("");
  const [pool, setPool] = useState("");
  const [account, setAccount] = useState("");
  const [worker, setWorker] = useState("");
  const [hashrate, setHashrate] = useState("100 TH/s");
  const [shares, setShares] = useState("1000");
  const [price, setPrice] = useState("");
  const [days, setDays] = useState("30");
  const [fee, setFee] = useState("200");
  const [other, setOther] = useState("");
  const [reason, setReason] = useState("");
  const { busy, error, save } = useFormSave(onClose, m.op_mining_listed);
  const go = () =>
    save(![name, pool, account, worker, price].every((v) => v.trim() !== "") ? m.op_mining_err_fields() : !reason.trim() ? m.op_reason_required() : null, () =>
      create({
        name: name.trim(),
        pool: pool.trim(),
        pool_account: account.trim(),
        worker: worker.trim(),
        hashrate: hashrate.trim(),
        shares: Number(shares),
        price: price.trim(),
        days: Number(days),
        fee_bps: Number(fee),
        other_fees: other.trim(),
        payout_currency_id: BTC_ID,
        reason: reason.trim(),
      }),
    );
  return (
    <FormDialog title={m.op_mining_new()} busy={busy} onClose={onClose} onSave={go} saveText={m.op_mining_list()} testId="mining-plan-dialog" saveTestId="mining-plan-dialog-save" error={error}>
      <Field label={m.op_mining_name()} value={name} set={setName} testId="mining-plan-name" />
      <Field label={m.mining_pool()} value={pool} set={setPool} testId="mining-plan-pool" />
      <Field label={m.mining_pool_account()} value={account} set={setAccount} testId="mining-plan-account" />
      <Field label={m.mining_worker()} value={worker} set={setWorker} testId="mining-plan-worker" />
      <Field label={m.op_mining_hashrate()} value={hashrate} set={setHashrate} testId="mining-plan-hashrate" />
      <Field label={m.op_mining_shares()} value={shares} set={setShares} testId="mining-plan-shares" mode="numeric" />
      <Field label={m.op_mining_price()} value={price} set={setPrice} testId="mining-plan-price" mode="decimal" />
      <Field label={m.op_mining_days()} value={days} set={setDays} testId="mining-plan-days" mode="numeric" />
      <Field label={m.op_mining_fee_bps()} value={fee} set={setFee} testId="mining-plan-fee" mode="numeric" />
      <Field label={m.mining_other_fees()} value={other} set={setOther} testId="mining-plan-other" />
      <p className="form-note">{m.op_mining_payout_btc()}</p>
      <Field label={m.op_reason()} value={reason} set={setReason} testId="mining-plan-reason" />
    </FormDialog>
  );
}

function RecordDialog({ plans, onClose }: { plans: MiningPlan[]; onClose: () => void }) {
  const record = useRecordMiningPayout();
  const [planId, setPlanId] = useState(String(plans[0]!.id));
  const [hour, setHour] = useState(lastEndedHour());
  const [amount, setAmount] = useState("");
  const [evidence, setEvidence] = useState("");
  const [reason, setReason] = useState("");
  const { busy, error, save } = useFormSave(onClose, m.op_mining_recorded_toast);
  const plan = plans.find((p) => String(p.id) === planId);
  const go = () =>
    save(!amount.trim() || !evidence.trim() ? m.op_mining_err_fields() : !reason.trim() ? m.op_reason_required() : null, () =>
      record({ plan_id: Number(planId), hour: String(parseBeijingInput(hour) ?? hour.trim()), amount: amount.trim(), evidence: evidence.trim(), reason: reason.trim() }),
    );
  return (
    <FormDialog title={m.op_mining_record()} busy={busy} onClose={onClose} onSave={go} saveText={m.op_mining_record()} testId="mining-payout-dialog" saveTestId="mining-payout-dialog-save" error={error}>
      <KitField label={m.mining_plan()}>
        <select className="input" value={planId} onChange={(e) => setPlanId(e.target.value)} data-testid="mining-payout-plan">
          {plans.map((p) => (
            <option key={p.id} value={p.id}>
              #{p.id} {p.name}
            </option>
          ))}
        </select>
      </KitField>
      <Field label={m.op_mining_hour_input()} value={hour} set={setHour} testId="mining-payout-hour" />
      <Field label={m.op_mining_amount({ currency: plan?.payout_currency ?? "" })} value={amount} set={setAmount} testId="mining-payout-amount" mode="decimal" />
      <Field label={m.mining_evidence()} value={evidence} set={setEvidence} testId="mining-payout-evidence" />
      <Field label={m.op_reason()} value={reason} set={setReason} testId="mining-payout-reason" />
      <p className="form-note">{m.op_mining_record_note()}</p>
    </FormDialog>
  );
}
