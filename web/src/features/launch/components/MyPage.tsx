/**
 * My subscriptions (/launch/my): each commitment with its state; once allocated, what it bought,
 * paid and got back, and the tokens locked, claimable (unlocked, not yet claimed) and claimed,
 * with the next unlock; "Claim" moves what is claimable to the available spot balance.
 */
import { useState } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact, isZeroDecimal } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { fromUnitsTrim, toUnits } from "../../../lib/amount.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useClaim, useMine, type LaunchSubscription } from "../api.ts";
import { vestingText } from "./Clock.tsx";
import acct from "../../../components/account.module.css";
import s from "./launch.module.css";

const statusLabel = (x: LaunchSubscription) =>
  x.status === "allocated" ? m.launch_sub_allocated() : x.status === "refunded" ? m.launch_sub_refunded() : m.launch_sub_committed();

export default function MyPage() {
  const q = useMine();
  return (
    <div className={acct.acctPage} data-testid="launch-my">
      {q.loading ? (
        <SkeletonList rows={3} />
      ) : q.error ? (
        <ErrorState message={q.error.message} onRetry={q.reload} />
      ) : !q.data || q.data.length === 0 ? (
        <>
          <EmptyState text={m.launch_my_empty()} />
          <Link to="/launch" className="btn btn-outline btn-block">
            {m.title_launch()}
          </Link>
        </>
      ) : (
        <ul className={acct.recordList}>
          {q.data.map((x) => (
            <SubscriptionCard key={x.id} x={x} />
          ))}
        </ul>
      )}
    </div>
  );
}

function SubscriptionCard({ x }: { x: LaunchSubscription }) {
  const claim = useClaim();
  const [busy, setBusy] = useState(false);
  const onClaim = async () => {
    setBusy(true);
    try {
      const r = await claim(x.id);
      toast.success(m.launch_claimed_toast({ amount: formatExact(subtractClaimed(x, r)), token: x.token }));
    } catch {
      /* the call already showed the error */
    } finally {
      setBusy(false);
    }
  };
  const Row = ({ label, value, testId }: { label: string; value: string; testId?: string }) => (
    <div className={acct.kvRow}>
      <dt>{label}</dt>
      <dd className="num" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
  return (
    <li className={acct.recordCard} data-testid="launch-sub">
      <div className={acct.recordHead}>
        <Link to={`/launch/project?id=${x.project_id}`} className={acct.recordTitle}>
          {x.title}
        </Link>
        <span className={`badge ${x.status === "allocated" ? "badge-ok" : x.status === "refunded" ? "badge-none" : "badge-pending"}`} data-testid="launch-sub-status">
          {statusLabel(x)}
        </span>
      </div>
      <dl className={acct.kv}>
        <Row label={m.launch_committed_amt()} value={`${formatExact(x.amount)} ${x.currency}`} testId="launch-sub-amount" />
        {x.status === "allocated" && (
          <>
            <Row label={m.launch_alloc()} value={`${formatExact(x.alloc)} ${x.token}`} testId="launch-sub-alloc" />
            <Row label={m.launch_cost()} value={`${formatExact(x.cost)} ${x.currency}`} />
            <Row label={m.launch_refund()} value={`${formatExact(x.refund)} ${x.currency}`} testId="launch-sub-refund" />
            <Row label={m.launch_locked()} value={`${formatExact(x.locked)} ${x.token}`} testId="launch-sub-locked" />
            <Row label={m.launch_claimable()} value={`${formatExact(x.claimable)} ${x.token}`} testId="launch-sub-claimable" />
            <Row label={m.launch_claimed()} value={`${formatExact(x.claimed)} ${x.token}`} />
            {x.next_unlock_at !== null && <Row label={m.launch_next_unlock()} value={formatDateTime(x.next_unlock_at)} />}
            <Row label={m.launch_vesting()} value={vestingText(x)} />
          </>
        )}
        {x.status === "refunded" && <Row label={m.launch_refund()} value={`${formatExact(x.refund)} ${x.currency}`} />}
      </dl>
      {x.status === "committed" && <p className="form-note">{m.launch_sub_committed_note()}</p>}
      {x.status === "allocated" && (
        <div className={s.actions}>
          <button type="button" className="btn btn-primary" disabled={busy || isZeroDecimal(x.claimable)} onClick={() => void onClaim()} data-testid="launch-claim">
            {m.launch_claim()}
          </button>
        </div>
      )}
    </li>
  );
}

/** What a claim moved: claimed after minus claimed before. */
function subtractClaimed(before: LaunchSubscription, after: LaunchSubscription): string {
  return fromUnitsTrim((toUnits(after.claimed, 8) ?? 0n) - (toUnits(before.claimed, 8) ?? 0n), 8);
}
