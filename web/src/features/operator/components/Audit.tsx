/** The audit log: every operator action with who, when, the target and the reason. */
import { m } from "../../../i18n/index.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useAudit } from "../api.ts";
import { ListFooter, userLabel } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

export function AuditSection() {
  const list = useAudit();
  return (
    <section data-testid="admin-audit">
      {list.loading ? (
        <SkeletonList rows={5} />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : list.items.length === 0 ? (
        <EmptyState />
      ) : (
        <ul className={acct.recordList}>
          {list.items.map((a) => (
            <li key={a.id} className={`${acct.recordCard} audit-row`} data-testid="audit-row" data-action={a.action}>
              <div className={acct.recordHead}>
                <span className={`${acct.recordTitle} ${acct.mono}`}>{a.action}</span>
                <span className={`muted num ${acct.small}`}>{a.time_format}</span>
              </div>
              <div className={acct.small}>
                {m.op_audit_by({ operator: userLabel(a.operator_account, a.operator_id) })} · {a.target_type} #{a.target_id}
              </div>
              {a.reason && <div className={acct.small}>{m.op_reason()}: {a.reason}</div>}
              {a.detail !== null && a.detail !== undefined && <pre className={s.auditDetail}>{JSON.stringify(a.detail)}</pre>}
            </li>
          ))}
        </ul>
      )}
      <ListFooter hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} onMore={list.loadMore} count={list.items.length} />
    </section>
  );
}
