/** Deposit claims: check the proof picture and the chain, then credit (approve) or reject with a reason. */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { toast } from "../../../lib/toast.ts";
import { AuthImage } from "../../../components/AuthImage.tsx";
import { useDecideDeposit, useDepositQueue, type AdminDeposit } from "../api.ts";
import { ApproveRejectButtons, Kv, QueueList, StatusFilter, useDecisionDialog, userLabel } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";
import { formatExact, formatDateTime } from "../../../lib/format.ts";

export function DepositsQueue() {
  const [status, setStatus] = useState<number | undefined>(0);
  const list = useDepositQueue(status);
  const decideDeposit = useDecideDeposit();
  const { open, dialog } = useDecisionDialog(list.reload);

  const ask = (d: AdminDeposit, approve: boolean) =>
    open({
      title: approve ? m.op_deposit_approve_title({ id: d.id }) : m.op_deposit_reject_title({ id: d.id }),
      confirmText: approve ? m.op_deposit_credit_do({ amount: `${formatExact(d.amount)} ${d.currency_name}` }) : m.op_deposit_reject_do(),
      reasonRequired: !approve,
      danger: !approve,
      summary: <p className={s.dialogSummary}>{m.op_deposit_summary({ amount: `${formatExact(d.amount)} ${d.currency_name}`, user: userLabel(d.account, d.user_id) })}</p>,
      run: async (reason) => {
        const r = await decideDeposit(d.id, approve ? "approve" : "reject", reason);
        toast.success(!approve ? m.op_rejected() : r.awaiting_second_approval ? m.op_deposit_first_done() : m.op_deposit_approved());
      },
    });

  return (
    <section data-testid="admin-deposits">
      <StatusFilter
        value={status}
        onChange={setStatus}
        options={[
          { value: 0, label: m.op_status_pending() },
          { value: 1, label: m.op_status_credited() },
          { value: 2, label: m.op_status_rejected() },
          { value: undefined, label: m.op_status_all() },
        ]}
      />
      <QueueList
        list={list}
        renderItem={(d) => (
          <li className={acct.recordCard} data-testid="admin-deposit" data-id={d.id} data-user={d.account}>
            <div className={acct.recordHead}>
              <span className={acct.recordTitle}>#{d.id} · {userLabel(d.account, d.user_id)}</span>
              <span className={`badge badge-${d.status === 1 ? "ok" : d.status === 2 ? "bad" : "pending"}`} data-testid="admin-deposit-status">
                {d.awaiting_second_approval ? m.op_awaiting_second() : d.status_text}
              </span>
            </div>
            <div className={acct.recordBody}>
              <dl className={acct.kv}>
                <Kv label={m.wallet_amount()} testId="admin-deposit-amount">{formatExact(d.amount)} {d.currency_name}</Kv>
                <Kv label={m.wallet_network()}>{d.network || "—"}</Kv>
                <Kv label={m.wallet_address()} mono>{d.address}</Kv>
                {d.hash && <Kv label={m.wallet_hash()} mono>{d.hash}</Kv>}
                <Kv label={m.wallet_time()}>{formatDateTime(d.time_format)}</Kv>
                {d.reason && <Kv label={m.op_reason()} mono>{d.reason}</Kv>}
                {d.first_approved_by !== null && <Kv label={m.op_first_approved_by()}>#{d.first_approved_by}</Kv>}
              </dl>
              {d.status === 0 && d.needs_second && !d.awaiting_second_approval && <p className="form-note">{m.op_deposit_needs_second()}</p>}
              <AuthImage src={d.pic} alt={m.wallet_proof()} className={acct.recordPic} testId="admin-deposit-pic" />
            </div>
            {d.status === 0 && d.own && <p className="form-note" data-testid="admin-deposit-own">{m.op_own_record()}</p>}
            {d.approved_first_by_you && <p className="form-note" data-testid="admin-deposit-first-mine">{m.op_you_approved_first()}</p>}
            {d.status === 0 && !d.own && !d.approved_first_by_you && (
              <ApproveRejectButtons onReject={() => ask(d, false)} onApprove={() => ask(d, true)} rejectTestId="deposit-reject" approveTestId="deposit-approve" />
            )}
          </li>
        )}
      />
      {dialog}
    </section>
  );
}
