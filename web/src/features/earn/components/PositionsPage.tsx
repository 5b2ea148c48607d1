/**
 * My savings (/earn/positions): each position with its principal (frozen in one's own spot
 * account), APR, interest accrued and paid, interest days, the payout day of a fixed term, and a
 * redeem button behind a confirmation that says what comes back and, before maturity, what
 * interest is forfeited. Closed positions stay listed below the open ones.
 */
import { useState } from "react";
import { Link } from "react-router";
import { m, useLocale } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { formatDateTime, formatMoneyMoved } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { Modal } from "../../../components/Modal.tsx";
import { ProductGate } from "../../../components/ProductGate.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { usePositions, useRedeem, type EarnPosition } from "../api.ts";
import { termLabel } from "../labels.ts";
import { reserveLow } from "../terms.ts";
import acct from "../../../components/account.module.css";
import s from "./earn.module.css";

const statusText = (p: EarnPosition) => (p.status === "open" ? m.earn_status_open() : p.status === "matured" ? m.earn_status_matured() : m.earn_status_redeemed());
const statusBadge = (p: EarnPosition) => (p.status === "open" ? "badge-ok" : "badge-none");

function PositionCard({ p, onRedeem }: { p: EarnPosition; onRedeem: (p: EarnPosition) => void }) {
  const c = p.currency;
  return (
    <li className={acct.recordCard} data-testid="earn-position" data-status={p.status}>
      <div className={acct.recordHead}>
        <span className={acct.recordTitle}>
          {c} <span className="badge badge-none">{termLabel(p)}</span> <span className="num">{p.apr}%</span>
        </span>
        <span className={`badge ${statusBadge(p)}`} data-testid="earn-position-status">
          {statusText(p)}
        </span>
      </div>
      <dl className={acct.kv}>
        <div className={acct.kvRow}>
          <dt>{m.earn_principal()}</dt>
          <dd className="num" data-testid="earn-position-amount">
            {formatMoneyMoved(p.amount, c)} {c}
          </dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.earn_earned()}</dt>
          <dd className="num up" data-testid="earn-position-earned">
            {formatMoneyMoved(p.earned, c)} {c}
          </dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.earn_paid()}</dt>
          <dd className="num">
            {formatMoneyMoved(p.paid, c)} {c}
          </dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.earn_days()}</dt>
          <dd className="num" data-testid="earn-position-days">
            {p.kind === "fixed" ? `${p.days} / ${p.term_days}` : p.days}
          </dd>
        </div>
        {p.status === "open" && (
          <div className={acct.kvRow}>
            <dt>{m.earn_reserved()}</dt>
            <dd className="num">
              {formatMoneyMoved(p.reserved, c)} {c}
            </dd>
          </div>
        )}
        {p.matures_at !== null && (
          <div className={acct.kvRow}>
            <dt>{m.earn_maturity()}</dt>
            <dd className="num">{formatDateTime(p.matures_at)}</dd>
          </div>
        )}
        <div className={`${acct.kvRow} muted`}>
          <span>#{p.id}</span>
          <span className="num">{formatDateTime(p.closed_at ?? p.created_at)}</span>
        </div>
      </dl>
      {p.kind === "flexible" && p.status === "open" && reserveLow(p.reserved, p.daily) && <p className={`${acct.notice} ${acct.noticeWarn}`}>{m.earn_reserve_low()}</p>}
      {p.status === "open" && (
        <button type="button" className="btn btn-outline btn-block" onClick={() => onRedeem(p)} data-testid="earn-redeem">
          {m.earn_redeem()}
        </button>
      )}
    </li>
  );
}

function Positions() {
  useLocale();
  const list = usePositions();
  const redeem = useRedeem();
  const [asked, setAsked] = useState<EarnPosition | null>(null);
  const [busy, setBusy] = useState(false);

  const send = async () => {
    if (!asked || busy) return;
    setBusy(true);
    try {
      const done = await redeem(asked.id);
      toast.success(m.earn_redeemed_toast({ amount: formatMoneyMoved(done.amount, done.currency), currency: done.currency }));
    } catch (err) {
      const f = err instanceof ApiFailure ? err : null;
      if (f && f.kind !== "997" && f.kind !== "998" && f.kind !== "999") toast.error(f.message);
      list.reload();
    } finally {
      setBusy(false);
      setAsked(null);
    }
  };

  // A fixed position whose last interest day has accrued is paid in full, never forfeited.
  const early = asked !== null && asked.kind === "fixed" && asked.days < asked.term_days;
  return (
    <div className={acct.acctPage} data-testid="earn-positions">
      {list.loading ? (
        <SkeletonList rows={3} />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : (list.data ?? []).length === 0 ? (
        <>
          <EmptyState text={m.earn_positions_empty()} />
          <Link to="/earn" className="btn btn-primary btn-block" data-testid="earn-browse">
            {m.earn_browse()}
          </Link>
        </>
      ) : (
        <>
          <ul className={acct.recordList}>
            {list.data!.map((p) => (
              <PositionCard key={p.id} p={p} onRedeem={setAsked} />
            ))}
          </ul>
          <Link to="/earn" className={`text-btn ${acct.centerBtn}`}>
            {m.earn_browse()}
          </Link>
        </>
      )}
      {asked && (
        <Modal
          title={m.earn_redeem_title()}
          onClose={() => setAsked(null)}
          busy={busy}
          testId="earn-redeem-confirm"
          dismiss
          actions={
            <button type="button" className="btn btn-primary" onClick={send} disabled={busy} data-testid="earn-redeem-button">
              {busy && <Spinner size={16} />}
              {m.confirm()}
            </button>
          }
        >
          <p className={s.source} data-testid="earn-redeem-text">
            {early
              ? m.earn_redeem_early({ amount: formatMoneyMoved(asked.amount, asked.currency), earned: formatMoneyMoved(asked.earned, asked.currency), currency: asked.currency })
              : m.earn_redeem_flexible({ amount: formatMoneyMoved(asked.amount, asked.currency), currency: asked.currency })}
          </p>
        </Modal>
      )}
    </div>
  );
}

export default function PositionsPage() {
  return (
    <ProductGate product="earn">
      <Positions />
    </ProductGate>
  );
}
