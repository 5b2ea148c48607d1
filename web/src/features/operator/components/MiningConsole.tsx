/**
 * Mining in the console (/admin/mining, issue #20 §1). Plans: each with its stated terms and shares
 * sold; list a plan (pool, pool account, worker, hashrate, shares, USDT price, term, fee in basis
 * points, other fees, payout currency) and close one. Payouts: record what the pool paid for one
 * plan and one ended hour with its evidence; a record waits for a SECOND operator, who approves it
 * (the exchange then holds the amount, and the hourly cron pays it) or rejects it. One's own records
 * show no decision buttons (the server refuses them and audits the attempt). Every action carries
 * a reason the server audits.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact, parseBeijingInput, toBeijingInput } from "../../../lib/format.ts";
import { $session } from "../../../lib/session.ts";
import { toast } from "../../../lib/toast.ts";
import { Modal } from "../../../components/Modal.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
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
import { ApproveRejectButtons, DecisionDialog, Kv, type Decision } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

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
  const [decision, setDecision] = useState<Decision | null>(null);
  const askClose = (p: MiningPlan) =>
    setDecision({ title: m.op_mining_close_title({ name: p.name }), confirmText: m.op_mining_close_do(), reasonRequired: true, danger: true, summary: <p className="form-note">{m.op_mining_close_note()}</p>, run: (reason) => close(p.id, reason) });
  const askDecide = (x: MiningAdminPayout, ok: boolean) =>
    setDecision({
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
      <div className={s.secHead}>
        <h3 className={s.adminSubtitle}>{m.op_mining_plans()}</h3>
        <button type="button" className="btn btn-outline btn-small" onClick={() => setCreating(true)} data-testid="mining-plan-add">
          {m.op_mining_add()}
        </button>
      </div>
      {plans.error && !plans.data ? (
        <ErrorState message={plans.error.message} onRetry={plans.reload} />
      ) : !plans.data ? (
        <SkeletonList rows={2} />
      ) : plans.data.length === 0 ? (
        <EmptyState />
      ) : (
        <ul className={acct.recordList}>
          {plans.data.map((p) => (
            <li key={p.id} className={acct.recordCard} data-testid="mining-plan-row">
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>
                  {p.name} <span className="muted">#{p.id}</span>
                </span>
                <span className={`badge ${p.status === "open" ? "badge-ok" : "badge-none"}`}>{p.status === "open" ? m.op_mining_open() : m.op_mining_closed()}</span>
              </div>
              <dl className={acct.kv}>
                <Kv label={m.mining_pool()}>{p.pool} · {p.pool_account} · {p.worker}</Kv>
                <Kv label={m.mining_hashrate()}>{p.hashrate}</Kv>
                <Kv label={m.op_mining_sold()}>{p.sold} / {p.shares}</Kv>
                <Kv label={m.mining_price()}>{formatExact(p.price)} {p.price_currency} · {m.mining_days({ days: String(p.days) })} · {m.mining_fee_value({ percent: p.fee_percent })}</Kv>
                <Kv label={m.mining_paid_30d()}>{formatExact(p.paid_30d_per_share)} {p.payout_currency} / {m.mining_share()}</Kv>
              </dl>
              {p.status === "open" && (
                <div className={acct.btnRow}>
                  <button type="button" className={`btn btn-small ${acct.btnDanger}`} onClick={() => askClose(p)} data-testid="mining-plan-close">
                    {m.op_mining_close()}
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className={s.secHead}>
        <h3 className={s.adminSubtitle}>{m.op_mining_payouts()}</h3>
        <button type="button" className="btn btn-outline btn-small" onClick={() => setRecording(true)} disabled={!plans.data || plans.data.length === 0} data-testid="mining-payout-add">
          {m.op_mining_record()}
        </button>
      </div>
      <p className="form-note">{m.op_mining_payouts_note()}</p>
      {payouts.error && !payouts.data ? (
        <ErrorState message={payouts.error.message} onRetry={payouts.reload} />
      ) : !payouts.data ? (
        <SkeletonList rows={2} />
      ) : payouts.data.length === 0 ? (
        <EmptyState />
      ) : (
        <ul className={acct.recordList}>
          {payouts.data.map((x) => (
            <li key={x.id} className={acct.recordCard} data-testid="mining-payout-row">
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>
                  {x.plan_name} · {hourText(x.hour)}
                </span>
                <span className={`badge ${x.status === "paid" ? "badge-ok" : x.status === "rejected" ? "badge-bad" : "badge-pending"}`} data-testid="mining-payout-status">
                  {statusLabel(x.status)}
                </span>
              </div>
              <dl className={acct.kv}>
                <Kv label={m.mining_pool_paid()}>{formatExact(x.amount)} {x.currency}</Kv>
                <Kv label={m.mining_evidence()} mono>{x.evidence}</Kv>
                <Kv label={m.op_mining_recorded()}>{m.op_mining_by({ id: String(x.recorded_by), time: formatDateTime(x.recorded_at), reason: x.record_reason })}</Kv>
                {x.decided_by !== null && <Kv label={m.op_mining_decided()}>{m.op_mining_by({ id: String(x.decided_by), time: formatDateTime(x.decided_at ?? 0), reason: x.decide_reason })}</Kv>}
                {x.status === "paid" && <Kv label={m.mining_to_users()}>{formatExact(x.paid_to_users)} {x.currency} ({m.mining_fees_kept({ fees: formatExact(x.fees) })})</Kv>}
              </dl>
              {x.status === "pending" &&
                (x.recorded_by === me ? (
                  <p className="form-note" data-testid="mining-payout-own">{m.op_mining_own()}</p>
                ) : (
                  <ApproveRejectButtons onReject={() => askDecide(x, false)} onApprove={() => askDecide(x, true)} rejectTestId="mining-payout-reject" approveTestId="mining-payout-approve" />
                ))}
            </li>
          ))}
        </ul>
      )}
      {creating && <PlanDialog onClose={() => setCreating(false)} />}
      {recording && plans.data && <RecordDialog plans={plans.data} onClose={() => setRecording(false)} />}
      {decision && <DecisionDialog decision={decision} onClose={() => setDecision(null)} onDone={() => setDecision(null)} />}
    </section>
  );
}

function useField(initial: string) {
  return useState(initial);
}

function Field({ label, value, set, testId, mode = "text" }: { label: string; value: string; set: (v: string) => void; testId: string; mode?: "text" | "decimal" | "numeric" }) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      <input className="input" inputMode={mode} value={value} onChange={(e) => set(e.target.value)} data-testid={testId} />
    </label>
  );
}

function Dialog({ title, busy, onClose, onSave, saveText, testId, children, error }: { title: string; busy: boolean; onClose: () => void; onSave: () => void; saveText: string; testId: string; children: React.ReactNode; error: string }) {
  return (
    <Modal
      title={title}
      onClose={onClose}
      busy={busy}
      testId={testId}
      actions={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={busy}>
            {m.cancel()}
          </button>
          <button type="button" className="btn btn-primary" onClick={onSave} disabled={busy} data-testid={`${testId}-save`}>
            {busy && <Spinner size={16} />}
            {saveText}
          </button>
        </>
      }
    >
      <form
        className={`form ${s.secForm}`}
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          onSave();
        }}
        noValidate
      >
        {children}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </Modal>
  );
}

function PlanDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateMiningPlan();
  const [name, setName] = useField("");
  const [pool, setPool] = useField("");
  const [account, setAccount] = useField("");
  const [worker, setWorker] = useField("");
  const [hashrate, setHashrate] = useField("100 TH/s");
  const [shares, setShares] = useField("1000");
  const [price, setPrice] = useField("");
  const [days, setDays] = useField("30");
  const [fee, setFee] = useField("200");
  const [other, setOther] = useField("");
  const [reason, setReason] = useField("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const save = async () => {
    if (![name, pool, account, worker, price].every((v) => v.trim() !== "")) return setError(m.op_mining_err_fields());
    if (!reason.trim()) return setError(m.op_reason_required());
    setBusy(true);
    try {
      await create({
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
      });
      toast.success(m.op_mining_listed());
      onClose();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={m.op_mining_new()} busy={busy} onClose={onClose} onSave={() => void save()} saveText={m.op_mining_list()} testId="mining-plan-dialog" error={error}>
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
    </Dialog>
  );
}

function RecordDialog({ plans, onClose }: { plans: MiningPlan[]; onClose: () => void }) {
  const record = useRecordMiningPayout();
  const [planId, setPlanId] = useState(String(plans[0]!.id));
  const [hour, setHour] = useField(lastEndedHour());
  const [amount, setAmount] = useField("");
  const [evidence, setEvidence] = useField("");
  const [reason, setReason] = useField("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const plan = plans.find((p) => String(p.id) === planId);
  const save = async () => {
    if (!amount.trim() || !evidence.trim()) return setError(m.op_mining_err_fields());
    if (!reason.trim()) return setError(m.op_reason_required());
    setBusy(true);
    try {
      await record({ plan_id: Number(planId), hour: String(parseBeijingInput(hour) ?? hour.trim()), amount: amount.trim(), evidence: evidence.trim(), reason: reason.trim() });
      toast.success(m.op_mining_recorded_toast());
      onClose();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={m.op_mining_record()} busy={busy} onClose={onClose} onSave={() => void save()} saveText={m.op_mining_record()} testId="mining-payout-dialog" error={error}>
      <label className="field">
        <span className="field-label">{m.mining_plan()}</span>
        <select className="input" value={planId} onChange={(e) => setPlanId(e.target.value)} data-testid="mining-payout-plan">
          {plans.map((p) => (
            <option key={p.id} value={p.id}>
              #{p.id} {p.name}
            </option>
          ))}
        </select>
      </label>
      <Field label={m.op_mining_hour_input()} value={hour} set={setHour} testId="mining-payout-hour" />
      <Field label={m.op_mining_amount({ currency: plan?.payout_currency ?? "" })} value={amount} set={setAmount} testId="mining-payout-amount" mode="decimal" />
      <Field label={m.mining_evidence()} value={evidence} set={setEvidence} testId="mining-payout-evidence" />
      <Field label={m.op_reason()} value={reason} set={setReason} testId="mining-payout-reason" />
      <p className="form-note">{m.op_mining_record_note()}</p>
    </Dialog>
  );
}
