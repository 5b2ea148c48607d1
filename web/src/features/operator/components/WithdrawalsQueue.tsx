/**
 * Withdrawals: review (approve / reject with a reason; a rejection returns the frozen amount and
 * fee), then record the chain's outcome (success with its transaction id, or failure with a
 * reason, which also returns the funds).
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { toast } from "../../../lib/toast.ts";
import { useDecideWithdrawal, useWithdrawalQueue, type AdminWithdrawal, type WithdrawalAction } from "../api.ts";
import { ApproveRejectButtons, Kv, QueueList, StatusFilter, useDecisionDialog, userLabel } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";
import { formatExact, formatDateTime } from "../../../lib/format.ts";

export function WithdrawalsQueue() {
  const [status, setStatus] = useState<number | undefined>(0);
  const list = useWithdrawalQueue(status);
  const decideWithdrawal = useDecideWithdrawal();
  const { open, dialog } = useDecisionDialog(list.reload);

  const ask = (w: AdminWithdrawal, action: WithdrawalAction) => {
    const titles: Record<WithdrawalAction, string> = {
      approve: m.op_wd_approve_title({ id: w.id }),
      reject: m.op_wd_reject_title({ id: w.id }),
      "chain-success": m.op_wd_success_title({ id: w.id }),
      "chain-failure": m.op_wd_failure_title({ id: w.id }),
    };
    const bad = action === "reject" || action === "chain-failure";
    open({
      title: titles[action],
      confirmText: {
        approve: m.op_wd_approve_do(),
        reject: m.op_wd_reject_do({ total: `${formatExact(w.total)} ${w.currency_name}` }),
        "chain-success": m.op_wd_sent_do(),
        "chain-failure": m.op_wd_failed_do({ total: `${formatExact(w.total)} ${w.currency_name}` }),
      }[action],
      reasonRequired: bad,
      danger: bad,
      txid: action === "chain-success",
      // Everything the operator decides on, in the dialog itself: where the coins go (address,
      // network, memo), how much and the fee. Exact amounts: an operator checks them to the unit.
      summary: (
        <>
          <p className={s.dialogSummary}>
            {m.op_wd_summary({ amount: `${formatExact(w.number)} ${w.currency_name}`, fee: `${formatExact(w.charge)} ${w.currency_name}`, user: userLabel(w.account, w.user_id) })}
            {bad && <><br />{m.op_wd_refund_note({ total: `${formatExact(w.total)} ${w.currency_name}` })}</>}
          </p>
          <dl className={acct.kv} data-testid="decision-withdrawal">
            <Kv label={m.wallet_address()} mono testId="decision-address">{w.address}</Kv>
            <Kv label={m.wallet_network()} testId="decision-network">{w.network_name || "—"}</Kv>
            {w.memo && <Kv label={m.op_wd_memo()} mono testId="decision-memo">{w.memo}</Kv>}
            <Kv label={m.wallet_amount()} testId="decision-amount">{formatExact(w.number)} {w.currency_name}</Kv>
            <Kv label={m.wallet_fee()} testId="decision-fee">{formatExact(w.charge)} {w.currency_name}</Kv>
          </dl>
        </>
      ),
      run: async (reason, txid) => {
        await decideWithdrawal(w.id, action, reason, txid);
        toast.success(m.op_done());
      },
    });
  };

  return (
    <section data-testid="admin-withdrawals">
      <StatusFilter
        value={status}
        onChange={setStatus}
        options={[
          { value: 0, label: m.op_status_pending() },
          { value: 1, label: m.op_status_awaiting_chain() },
          { value: 2, label: m.op_status_sent() },
          { value: 3, label: m.op_status_chain_failed() },
          { value: 4, label: m.op_status_rejected() },
          { value: undefined, label: m.op_status_all() },
        ]}
      />
      <QueueList
        list={list}
        renderItem={(w) => (
          <li className={acct.recordCard} data-testid="admin-withdrawal" data-id={w.id} data-user={w.account}>
            <div className={acct.recordHead}>
              <span className={acct.recordTitle}>#{w.id} · {userLabel(w.account, w.user_id)}</span>
              <span className={`badge badge-${w.status === 2 || w.status === 5 ? "ok" : w.status === 3 || w.status === 4 ? "bad" : "pending"}`}>{w.status_text}</span>
            </div>
            <dl className={acct.kv}>
              <Kv label={m.wallet_amount()}>{formatExact(w.number)} {w.currency_name}</Kv>
              <Kv label={m.wallet_fee()}>{formatExact(w.charge)} {w.currency_name}</Kv>
              <Kv label={m.wallet_total_frozen()}>{formatExact(w.total)} {w.currency_name}</Kv>
              <Kv label={m.wallet_network()}>{w.network_name || "—"}</Kv>
              <Kv label={m.wallet_address()} mono>{w.address}</Kv>
              {w.memo && <Kv label={m.op_wd_memo()} mono>{w.memo}</Kv>}
              {w.txid && <Kv label={m.wallet_txid()} mono>{w.txid}</Kv>}
              {w.reason && <Kv label={m.op_reason()} mono>{w.reason}</Kv>}
              <Kv label={m.wallet_time()}>{formatDateTime(w.time_format)}</Kv>
            </dl>
            {(w.status === 0 || w.status === 1) && w.own && <p className="form-note">{m.op_own_record()}</p>}
            {w.status === 0 && !w.own && (
              <ApproveRejectButtons onReject={() => ask(w, "reject")} onApprove={() => ask(w, "approve")} rejectTestId="withdrawal-reject" approveTestId="withdrawal-approve" />
            )}
            {w.status === 1 && !w.own && (
              <div className={acct.btnRow}>
                <button type="button" className="btn btn-outline btn-small" onClick={() => ask(w, "chain-failure")} data-testid="withdrawal-chain-failure">{m.op_chain_failure()}</button>
                <button type="button" className="btn btn-primary btn-small" onClick={() => ask(w, "chain-success")} data-testid="withdrawal-chain-success">{m.op_chain_success()}</button>
              </div>
            )}
          </li>
        )}
      />
      {dialog}
    </section>
  );
}
