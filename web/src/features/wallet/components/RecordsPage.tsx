/**
 * Deposit and withdrawal records (spec §2 "Records: two menus, deposit and withdrawal"): one
 * screen, two menus (/recharge/log and /withdrawal/log), each an infinite list with its status
 * labels. Deposits show the proof picture (fetched with the session) and a rejection reason;
 * withdrawals show the network, fee, amount received, total and, once sent, the transaction id.
 */
import { NavLink, useLocation } from "react-router";
import { m } from "../../../i18n/index.ts";
import { useSentinel } from "../../../lib/useSentinel.ts";
import { AuthImage } from "../../../components/AuthImage.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useDepositLog, useWithdrawalLog } from "../api.ts";
import acct from "../../../components/account.module.css";
import { formatMoney, formatDateTime } from "../../../lib/format.ts";

export default function RecordsPage() {
  const { pathname } = useLocation();
  const kind = pathname.startsWith("/withdrawal") ? "withdrawal" : "deposit";
  return (
    <div className={`${acct.acctPage} ${acct.recordsPage}`} data-testid={`records-${kind}`}>
      <nav className={acct.tabs} aria-label={m.menu_records()}>
        <NavLink to="/recharge/log" replace className={({ isActive }) => (isActive ? "active" : "")} data-testid="records-tab-deposit">
          {m.wallet_records_deposit()}
        </NavLink>
        <NavLink to="/withdrawal/log" replace className={({ isActive }) => (isActive ? "active" : "")} data-testid="records-tab-withdrawal">
          {m.wallet_records_withdrawal()}
        </NavLink>
      </nav>
      {kind === "deposit" ? <DepositList /> : <WithdrawalList />}
    </div>
  );
}

function statusTone(kind: "deposit" | "withdrawal", status: number): string {
  if (kind === "deposit") return status === 1 ? "ok" : status === 2 ? "bad" : "pending";
  // 0 applying, 1 approved awaiting chain, 2 chain success, 3 chain failure, 4 rejected, 5 in-site success
  return status === 2 || status === 5 ? "ok" : status === 3 || status === 4 ? "bad" : "pending";
}

function ListFooter({ hasMore, loadingMore, moreError, onMore, count }: { hasMore: boolean; loadingMore: boolean; moreError: boolean; onMore: () => void; count: number }) {
  const sentinel = useSentinel(onMore, hasMore && !moreError);
  if (count === 0) return null;
  return (
    <div className={acct.listFooter} ref={sentinel}>
      {loadingMore ? (
        <Spinner size={18} />
      ) : moreError ? (
        <button type="button" className="text-btn" onClick={onMore}>
          {m.load_failed()} · {m.retry()}
        </button>
      ) : hasMore ? (
        <button type="button" className="text-btn" onClick={onMore}>
          {m.load_more()}
        </button>
      ) : (
        <span className="muted">{m.no_more()}</span>
      )}
    </div>
  );
}

function DepositList() {
  const list = useDepositLog();
  if (list.loading) return <SkeletonList rows={4} />;
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (list.items.length === 0) return <EmptyState text={m.wallet_no_deposits()} />;
  return (
    <>
      <ul className={acct.recordList}>
        {list.items.map((r) => (
          <li key={`${r.kind ?? "chain"}-${r.id}`} className={acct.recordCard} data-testid="deposit-record" data-status={r.status}>
            <div className={acct.recordHead}>
              <span className={acct.recordTitle}>
                {m.wallet_records_deposit()} · {r.currency_name}
                {r.network ? <span className="muted"> ({r.network})</span> : null}
              </span>
              <span className={`badge badge-${statusTone("deposit", r.status)}`} data-testid="record-status">
                {r.status_text}
              </span>
            </div>
            <div className={acct.recordBody}>
              <dl className={acct.kv}>
                <div className={acct.kvRow}>
                  <dt>{m.wallet_amount()}</dt>
                  <dd className="num" data-testid="record-amount">{formatMoney(r.amount, r.currency_name)} {r.currency_name}</dd>
                </div>
                <div className={acct.kvRow}>
                  <dt>{m.wallet_time()}</dt>
                  <dd className="num">{formatDateTime(r.time_format)}</dd>
                </div>
                {r.hash && (
                  <div className={acct.kvRow}>
                    <dt>{m.wallet_hash()}</dt>
                    <dd className={acct.monoBreak}>{r.hash}</dd>
                  </div>
                )}
              </dl>
              {r.pic && <AuthImage src={r.pic} alt={m.wallet_proof()} className={acct.recordPic} testId="deposit-proof" />}
            </div>
            {r.note && <p className="form-note" data-testid="record-note">{r.note}</p>}
            {r.status === 2 && r.reason && <p className={`${acct.notice} ${acct.noticeBad}`}>{m.wallet_reason({ reason: r.reason })}</p>}
          </li>
        ))}
      </ul>
      <ListFooter hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} onMore={list.loadMore} count={list.items.length} />
    </>
  );
}

function WithdrawalList() {
  const list = useWithdrawalLog();
  if (list.loading) return <SkeletonList rows={4} />;
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (list.items.length === 0) return <EmptyState text={m.wallet_no_withdrawals()} />;
  return (
    <>
      <ul className={acct.recordList}>
        {list.items.map((r) => (
          <li key={r.id} className={acct.recordCard} data-testid="withdrawal-record" data-status={r.status}>
            <div className={acct.recordHead}>
              <span className={acct.recordTitle}>
                {m.wallet_records_withdrawal()} · {r.currency_name}
                {r.network_name ? <span className="muted"> ({r.network_name})</span> : null}
              </span>
              <span className={`badge badge-${statusTone("withdrawal", r.status)}`} data-testid="record-status">
                {r.status_text}
              </span>
            </div>
            <dl className={acct.kv}>
              <div className={acct.kvRow}>
                <dt>{m.wallet_received()}</dt>
                <dd className="num" data-testid="record-amount">{formatMoney(r.real_number, r.currency_name)} {r.currency_name}</dd>
              </div>
              <div className={acct.kvRow}>
                <dt>{m.wallet_fee()}</dt>
                <dd className="num">{formatMoney(r.charge, r.currency_name)} {r.currency_name}</dd>
              </div>
              <div className={acct.kvRow}>
                <dt>{m.wallet_total_debit()}</dt>
                <dd className="num">{formatMoney(r.total, r.currency_name)} {r.currency_name}</dd>
              </div>
              <div className={acct.kvRow}>
                <dt>{m.wallet_address()}</dt>
                <dd className={acct.monoBreak}>{r.address}</dd>
              </div>
              {r.txid && (
                <div className={acct.kvRow}>
                  <dt>{m.wallet_txid()}</dt>
                  <dd className={acct.monoBreak}>{r.txid}</dd>
                </div>
              )}
              <div className={acct.kvRow}>
                <dt>{m.wallet_time()}</dt>
                <dd className="num">{formatDateTime(r.time_format)}</dd>
              </div>
            </dl>
            {(r.status === 3 || r.status === 4) && r.reason && <p className={`${acct.notice} ${acct.noticeBad}`}>{m.wallet_reason({ reason: r.reason })}</p>}
            {(r.status === 3 || r.status === 4) && <p className="form-note">{m.wallet_refunded_note()}</p>}
          </li>
        ))}
      </ul>
      <ListFooter hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} onMore={list.loadMore} count={list.items.length} />
    </>
  );
}
