/** The audit log: every operator action with who, when, the target and the reason. */
import { m } from "../../../i18n/index.ts";
import { usePaged } from "../../../lib/usePaged.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { fetchAudit, type AuditRow } from "../api.ts";
import { ListFooter, userLabel } from "./common.tsx";

export function AuditSection() {
  const list = usePaged<AuditRow>((page, signal) => fetchAudit(page, signal));
  return (
    <section data-testid="admin-audit">
      {list.loading ? (
        <SkeletonList rows={5} />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : list.items.length === 0 ? (
        <EmptyState />
      ) : (
        <ul className="record-list">
          {list.items.map((a) => (
            <li key={a.id} className="record-card audit-row" data-testid="audit-row" data-action={a.action}>
              <div className="record-head">
                <span className="record-title mono">{a.action}</span>
                <span className="muted num small">{a.time_format}</span>
              </div>
              <div className="small">
                {m.op_audit_by({ operator: userLabel(a.operator_account, a.operator_id) })} · {a.target_type} #{a.target_id}
              </div>
              {a.reason && <div className="small">{m.op_reason()}: {a.reason}</div>}
              {a.detail !== null && a.detail !== undefined && <pre className="audit-detail">{JSON.stringify(a.detail)}</pre>}
            </li>
          ))}
        </ul>
      )}
      <ListFooter hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} onMore={list.loadMore} count={list.items.length} />
    </section>
  );
}
