/** User search, and one user's profile, bank card, balances per account and ledger (viewing is audited). */
import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatExact, isZeroDecimal, formatDateTime } from "../../../lib/format.ts";
import { Icon } from "../../../components/Icon.tsx";
import { EmptyState, ErrorState, SkeletonBlock, SkeletonList } from "../../../components/States.tsx";
import { useLedger, useUserDetail, useUserSearch } from "../api.ts";
import { accountText, Kv, ListFooter } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

const reviewText = (s: number) => (s === 2 ? m.verify_status_2() : s === 1 ? m.verify_status_1() : s === 3 ? m.verify_status_3() : m.verify_status_0());

export function UsersSection() {
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const [text, setText] = useState(q);
  const list = useUserSearch(q);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParams(text.trim() ? { q: text.trim() } : {}, { replace: true });
  };
  return (
    <section data-testid="admin-users">
      <form className={s.searchRow} onSubmit={submit} role="search">
        <input className="input" type="search" value={text} placeholder={m.op_user_search_placeholder()} onChange={(e) => setText(e.target.value)} aria-label={m.op_user_search_placeholder()} data-testid="user-search" />
        <button type="submit" className="btn btn-primary" data-testid="user-search-go">{m.op_search()}</button>
      </form>
      {list.loading ? (
        <SkeletonList rows={4} />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : list.items.length === 0 ? (
        <EmptyState text={m.op_no_users()} />
      ) : (
        <ul className={acct.menuList}>
          {list.items.map((u) => (
            <li key={u.id}>
              <Link to={`/admin/user?id=${u.id}`} className={`${acct.menuItem} tall`} data-testid="user-row">
                <Icon name="user" size={20} />
                <span className={acct.menuItemLabel}>
                  {u.account}
                  <small className="muted">ID {u.id} · {u.role} · {formatDateTime(u.created_at)}</small>
                </span>
                <span className={`badge badge-${u.review_status === 2 ? "ok" : u.review_status === 1 ? "pending" : u.review_status === 3 ? "bad" : "none"}`}>{reviewText(u.review_status)}</span>
                <Icon name="chevron" size={16} className={acct.menuChevron} />
              </Link>
            </li>
          ))}
        </ul>
      )}
      <ListFooter hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} onMore={list.loadMore} count={list.items.length} />
    </section>
  );
}

export function UserDetail() {
  const [params] = useSearchParams();
  const id = Number(params.get("id"));
  const detail = useUserDetail(id, Number.isSafeInteger(id) && id > 0);
  const ledger = useLedger(id);
  if (!Number.isSafeInteger(id) || id <= 0) return <EmptyState text={m.op_no_users()} />;
  if (detail.error && !detail.data) return <ErrorState message={detail.error.message} onRetry={detail.reload} />;
  if (!detail.data) return <SkeletonBlock height={300} />;
  const { user, bank, balances } = detail.data;
  const held = balances.filter((b) => !isZeroDecimal(b.available) || !isZeroDecimal(b.frozen));
  return (
    <section data-testid="admin-user">
      <div className="card">
        <h2 className="section-title">{user.account}</h2>
        <dl className={acct.kv}>
          <Kv label={m.user_id_label()}>{user.id}</Kv>
          <Kv label={m.op_role()}>{user.role}</Kv>
          <Kv label={m.menu_verify()}>{reviewText(user.review_status)} · {m.kyc_level({ level: user.kyc_level })}</Kv>
          {user.real_name && <Kv label={m.kyc_name()}>{user.real_name}</Kv>}
          <Kv label={m.sec_fund_title()}>{user.has_fund_password ? m.sec_state_set() : m.sec_fund_not_set()}</Kv>
          <Kv label={m.menu_bank()}>{bank ? `${bank.bank_name} ${bank.bank_account}` : m.assets_not_bound()}</Kv>
          <Kv label={m.op_created()}>{formatDateTime(user.created_at)}</Kv>
        </dl>
        <Link to={`/admin/adjustments?user=${user.id}`} className="btn btn-outline btn-small" data-testid="user-adjust">
          {m.op_request_adjustment()}
        </Link>
      </div>
      <h3 className={s.adminSubtitle}>{m.op_balances()}</h3>
      {held.length === 0 ? (
        <EmptyState text={m.op_no_balances()} />
      ) : (
        <table className={`${acct.feeTable} ${s.adminTable}`} data-testid="user-balances">
          <thead>
            <tr>
              <th>{m.wallet_currency()}</th>
              <th>{m.op_account()}</th>
              <th className="right">{m.assets_available()}</th>
              <th className="right">{m.assets_frozen()}</th>
            </tr>
          </thead>
          <tbody>
            {held.map((b) => (
              <tr key={`${b.currency_id}-${b.account}`}>
                <td>{b.currency_name}</td>
                <td>{accountText(b.account)}</td>
                <td className="right num">{formatExact(b.available)}</td>
                <td className="right num">{formatExact(b.frozen)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3 className={s.adminSubtitle}>{m.op_ledger()}</h3>
      {ledger.loading ? (
        <SkeletonList rows={3} />
      ) : ledger.error ? (
        <ErrorState message={ledger.error.message} onRetry={ledger.reload} />
      ) : ledger.items.length === 0 ? (
        <EmptyState />
      ) : (
        <ul className={s.ledgerList} data-testid="user-ledger">
          {ledger.items.map((l) => (
            <li key={l.id} className={s.ledgerRow}>
              <div>
                <strong>{l.kind}</strong> <span className="muted">{accountText(l.account)}</span>
                <div className={`muted ${acct.small}`}>{formatDateTime(l.time_format)} · {l.movement_key}</div>
              </div>
              <div className="right num">
                <div className={l.d_available.startsWith("-") ? "down" : isZeroDecimal(l.d_available) ? "muted" : "up"}>{formatExact(l.d_available)} {l.currency_name}</div>
                {!isZeroDecimal(l.d_frozen) && <div className={`muted ${acct.small}`}>{m.assets_frozen()} {formatExact(l.d_frozen)}</div>}
              </div>
            </li>
          ))}
        </ul>
      )}
      <ListFooter hasMore={ledger.hasMore} loadingMore={ledger.loadingMore} moreError={ledger.moreError} onMore={ledger.loadMore} count={ledger.items.length} />
    </section>
  );
}
