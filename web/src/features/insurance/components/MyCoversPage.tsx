/**
 * My cover (/insurance/my, issue #19 §4): each cover with its status (starts on a UTC day, active,
 * claimable, claim queued with its pay day, paid, ended and why), what was paid and what is
 * reserved, and the seconds account's value by the rule against the claim and end thresholds. A
 * claimable cover has a Claim button; the claim is confirmed first (it is paid now, or queued and
 * paid the next UTC day once two payouts were made today).
 */
import { useState } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { ProductGate } from "../../../components/ProductGate.tsx";
import { formatDayStart, formatMoneyMoved } from "../../../lib/format.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { toast } from "../../../lib/toast.ts";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useClaimCover, useMyCovers, type InsuranceCover, type InsuranceStatus } from "../api.ts";
import { statusTone, utcDay } from "../display.ts";
import acct from "../../../components/account.module.css";
import s from "./insurance.module.css";

function statusText(c: InsuranceCover): string {
  const labels: Record<InsuranceStatus, () => string> = {
    pending: () => m.ins_status_pending({ day: formatDayStart(c.start_at) }),
    active: m.ins_status_active,
    claimable: m.ins_status_claimable,
    processing: () => m.ins_status_processing({ day: formatDayStart(c.pay_day) }),
    paid: m.ins_status_paid,
    ended: () => (c.end_reason === "profit" ? m.ins_status_ended_profit() : m.ins_status_ended_expired()),
  };
  return labels[c.status]();
}

function CoverCard({ c }: { c: InsuranceCover }) {
  const claim = useClaimCover();
  const [busy, setBusy] = useState(false);
  const cur = c.currency;
  const money = (v: string) => `${formatMoneyMoved(v, cur)} ${cur}`;
  const doClaim = async () => {
    setBusy(true);
    try {
      const r = await claim(c.id);
      if (r.result === "paid") toast.success(m.ins_claim_paid({ cover: money(c.cover) }));
      else toast.info(m.ins_claim_queued({ day: formatDayStart(r.cover.pay_day) }));
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  const askClaim = () =>
    openConfirm({
      title: m.ins_claim_title(),
      message: m.ins_claim_message({ cover: money(c.cover) }),
      confirmText: m.ins_claim(),
      cancelText: m.cancel(),
      onConfirm: () => void doClaim(),
    });
  const live = c.status === "active" || c.status === "claimable";
  return (
    <li className={acct.recordCard} data-testid="ins-cover" data-status={c.status}>
      <div className={acct.recordHead}>
        <span className={acct.recordTitle}>
          {c.plan_name} <span className="muted">#{c.id}</span>
        </span>
        <span className={`badge badge-${statusTone(c.status)}`} data-testid="ins-cover-status">
          {statusText(c)}
        </span>
      </div>
      <dl className={acct.kv}>
        <div className={acct.kvRow}>
          <dt>{m.ins_amount()}</dt>
          <dd className="num">{money(c.amount)}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.ins_premium_paid()}</dt>
          <dd className="num">{money(c.premium)}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.ins_cover()}</dt>
          <dd className="num" data-testid="ins-cover-cover">{money(c.cover)}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.ins_in_force()}</dt>
          <dd className="num">{m.ins_in_force_value({ start: utcDay(c.start_at), end: utcDay(c.end_at) })}</dd>
        </div>
      </dl>
      {live && (
        <div>
          <div className={s.meter}>
            <span>{m.ins_value_now()}</span>
            <span className={s.valueNow} data-testid="ins-cover-value">{money(c.value)}</span>
          </div>
          <div className={s.meter}>
            <span>{m.ins_claim_at({ value: money(c.claim_at_value) })}</span>
            <span>{m.ins_end_at({ value: money(c.end_at_value) })}</span>
          </div>
        </div>
      )}
      {c.status === "pending" && <p className={s.note}>{m.ins_note_pending({ day: formatDayStart(c.start_at) })}</p>}
      {c.status === "processing" && <p className={s.note}>{m.ins_note_processing({ day: formatDayStart(c.pay_day), cover: money(c.cover) })}</p>}
      {c.status === "claimable" && c.open_contracts > 0 && <p className={s.note}>{m.ins_note_open({ count: String(c.open_contracts) })}</p>}
      {c.status === "claimable" && (
        <button type="button" className="btn btn-primary" onClick={askClaim} disabled={busy || c.open_contracts > 0} data-testid="ins-claim">
          {busy && <Spinner size={16} />}
          {m.ins_claim()}
        </button>
      )}
    </li>
  );
}

function MyCovers() {
  const my = useMyCovers();
  const d = my.data;
  return (
    <div className={acct.acctPage} data-testid="insurance-my">
      <p className={s.note}>{m.ins_my_note()}</p>
      {my.error && !d ? (
        <ErrorState message={my.error.message} onRetry={my.reload} />
      ) : !d ? (
        <SkeletonList rows={3} />
      ) : d.data.length === 0 ? (
        <>
          <EmptyState text={m.ins_my_empty()} />
          <Link to="/insurance" className="btn btn-outline" data-testid="ins-see-plans">
            {m.ins_see_plans()}
          </Link>
        </>
      ) : (
        <ul className={acct.recordList}>
          {d.data.map((c) => (
            <CoverCard key={c.id} c={c} />
          ))}
        </ul>
      )}
    </div>
  );
}

/** Shown only where the deployment has the product on (PRODUCT_INSURANCE); otherwise "not open here". */
export default function MyCoversPage() {
  return (
    <ProductGate product="insurance">
      <MyCovers />
    </ProductGate>
  );
}
