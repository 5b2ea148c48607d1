/** The audit log: every operator action with who, when, the user and amount it concerned, and the reason, in words (../labels.ts). */
import { m } from "../../../i18n/index.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useAudit } from "../api.ts";
import { auditFacts, actionLabel } from "../labels.ts";
import { Kv, ListFooter, userLabel } from "./common.tsx";
import acct from "../../../components/account.module.css";
import { formatDateTime } from "../../../lib/format.ts";

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
                <span className={acct.recordTitle} data-testid="audit-action">{actionLabel(a.action)}</span>
                <span className={`muted num ${acct.small}`}>{formatDateTime(a.time_format)}</span>
              </div>
              <div className={`muted ${acct.small}`}>{m.op_audit_by({ operator: userLabel(a.operator_account, a.operator_id) })}</div>
              <dl className={acct.kv}>
                {auditFacts(a).map((f) => (
                  <Kv key={f.key} label={f.label} testId={`audit-${f.key}`}>
                    {f.value}
                  </Kv>
                ))}
              </dl>
            </li>
          ))}
        </ul>
      )}
      <ListFooter hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} onMore={list.loadMore} count={list.items.length} />
    </section>
  );
}
