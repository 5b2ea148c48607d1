/** Identity submissions: compare the photos with the typed details, then approve or reject with a reason. */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { toast } from "../../../lib/toast.ts";
import { AuthImage } from "../../../components/AuthImage.tsx";
import { useDecideKyc, useKycQueue, type AdminKyc } from "../api.ts";
import { ApproveRejectButtons, Kv, QueueList, StatusFilter, useDecisionDialog, userLabel } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";
import { formatDateTime } from "../../../lib/format.ts";

const docType = (t: number | null) => (t === 1 ? m.kyc_type_id() : t === 2 ? m.kyc_type_licence() : t === 3 ? m.kyc_type_passport() : "—");

export function KycQueue() {
  const [status, setStatus] = useState<number | undefined>(1);
  const list = useKycQueue(status);
  const decideKyc = useDecideKyc();
  const { open, dialog } = useDecisionDialog(list.reload);

  const ask = (k: AdminKyc, approve: boolean) =>
    open({
      title: approve ? m.op_kyc_approve_title({ id: k.id, level: k.level }) : m.op_kyc_reject_title({ id: k.id, level: k.level }),
      confirmText: approve ? m.op_kyc_approve_do({ level: k.level }) : m.op_kyc_reject_do(),
      reasonRequired: !approve,
      danger: !approve,
      summary: <p className={s.dialogSummary}>{userLabel(k.account, k.user_id)}</p>,
      run: async (reason) => {
        await decideKyc(k.id, approve ? "approve" : "reject", reason);
        toast.success(approve ? m.op_kyc_approved() : m.op_rejected());
      },
    });

  return (
    <section data-testid="admin-kyc">
      <StatusFilter
        value={status}
        onChange={setStatus}
        options={[
          { value: 1, label: m.op_status_pending() },
          { value: 2, label: m.op_status_approved() },
          { value: 3, label: m.op_status_rejected() },
          { value: undefined, label: m.op_status_all() },
        ]}
      />
      <QueueList
        list={list}
        renderItem={(k) => (
          <li className={acct.recordCard} data-testid="admin-kyc-item" data-id={k.id} data-user={k.account}>
            <div className={acct.recordHead}>
              <span className={acct.recordTitle}>#{k.id} · {userLabel(k.account, k.user_id)}</span>
              <span className={`badge badge-${k.status === 2 ? "ok" : k.status === 3 ? "bad" : "pending"}`}>
                {m.kyc_level({ level: k.level })} · {k.status === 2 ? m.verify_status_2() : k.status === 3 ? m.verify_status_3() : m.verify_status_1()}
              </span>
            </div>
            <dl className={acct.kv}>
              {k.name && <Kv label={m.kyc_name()}>{k.name}</Kv>}
              {k.type !== null && <Kv label={m.kyc_doc_type()}>{docType(k.type)}</Kv>}
              {k.card_id && <Kv label={m.kyc_doc_number()} mono>{k.card_id}</Kv>}
              {k.asset_btc && <Kv label={m.op_asset_btc()}>{k.asset_btc} BTC</Kv>}
              <Kv label={m.wallet_time()}>{formatDateTime(k.time_format)}</Kv>
              {k.reason && <Kv label={m.op_reason()} mono>{k.reason}</Kv>}
            </dl>
            {(k.front_pic || k.reverse_pic || k.hand_pic || k.asset_pic) && (
              <div className={s.picGrid}>
                {k.front_pic && <figure><AuthImage src={k.front_pic} alt={m.kyc_front()} className={s.picImage} testId="kyc-pic" /><figcaption>{m.kyc_front()}</figcaption></figure>}
                {k.reverse_pic && <figure><AuthImage src={k.reverse_pic} alt={m.kyc_back()} className={s.picImage} testId="kyc-pic" /><figcaption>{m.kyc_back()}</figcaption></figure>}
                {k.hand_pic && <figure><AuthImage src={k.hand_pic} alt={m.kyc_hand()} className={s.picImage} testId="kyc-pic" /><figcaption>{m.kyc_hand()}</figcaption></figure>}
                {k.asset_pic && <figure><AuthImage src={k.asset_pic} alt={m.kyc_asset()} className={s.picImage} testId="kyc-pic" /><figcaption>{m.kyc_asset()}</figcaption></figure>}
              </div>
            )}
            {k.status === 1 && k.own && <p className="form-note">{m.op_own_record()}</p>}
            {k.status === 1 && !k.own && (
              <ApproveRejectButtons onReject={() => ask(k, false)} onApprove={() => ask(k, true)} rejectTestId="kyc-reject" approveTestId="kyc-approve" />
            )}
          </li>
        )}
      />
      {dialog}
    </section>
  );
}
