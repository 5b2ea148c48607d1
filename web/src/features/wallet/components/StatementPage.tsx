/**
 * The statement (issue #26; /statement?currency_id=&account=): every movement of the user's money,
 * newest first, with its kind in words, the amount, the balance after it (available + held, as the
 * note says), the time in UTC and a link to its record. Filters by coin and account (kept in the
 * URL, so a toast or the assets screen can open one coin's statement); loads more as it scrolls.
 */
import { Link, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { isAccountName } from "../../../../../schemas/products.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { LoadMoreFoot } from "../../../components/LoadMoreFoot.tsx";
import { formatDateTime, formatMoney, isZeroDecimal } from "../../../lib/format.ts";
import { accountLabel, accountTabs, useProducts } from "../../../lib/products.ts";
import { useUserWallet } from "../api.ts";
import { kindLabel, refRoute, useStatement, type StatementLine } from "../statement.ts";
import acct from "../../../components/account.module.css";
import s from "./statement.module.css";

/** "+1,000.00" / "-15.00" / "0.00": the sign always shown on a change. */
function signed(value: string, coin: string): string {
  const text = formatMoney(value, coin);
  return value.startsWith("-") || isZeroDecimal(value) ? text : `+${text}`;
}

/** An ISO instant by the one time rule: "2026-11-29 16:15:02 UTC+8". */
const utc = (iso: string) => formatDateTime(Date.parse(iso));

export default function StatementPage() {
  const [params, setParams] = useSearchParams();
  const currency = Number(params.get("currency_id"));
  const rawAccount = params.get("account");
  const filter = { currencyId: Number.isSafeInteger(currency) && currency > 0 ? currency : null, account: isAccountName(rawAccount) ? rawAccount : null };
  const coins = useUserWallet();
  const accounts = accountTabs(useProducts());
  const list = useStatement(filter);

  const choose = (key: "currency_id" | "account", value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };

  return (
    <div className={acct.acctPage} data-testid="statement-page">
      <div className={s.filters}>
        <label>
          {m.statement_coin()}
          <select className="input" value={filter.currencyId ?? ""} onChange={(e) => choose("currency_id", e.target.value)} data-testid="statement-coin">
            <option value="">{m.statement_all_coins()}</option>
            {(coins.data ?? []).map((c) => (
              <option key={c.currency} value={c.currency}>
                {c.currency_name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {m.statement_account()}
          <select className="input" value={filter.account ?? ""} onChange={(e) => choose("account", e.target.value)} data-testid="statement-account">
            <option value="">{m.statement_all_accounts()}</option>
            {accounts.map((a) => (
              <option key={a} value={a}>
                {accountLabel(a)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="form-note">{m.statement_note()}</p>
      {list.loading ? (
        <SkeletonList rows={5} />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : list.lines.length === 0 ? (
        <EmptyState text={m.statement_empty()} />
      ) : (
        <>
          <ul className={acct.recordList} data-testid="statement-lines">
            {list.lines.map((l) => (
              <Line key={l.id} line={l} />
            ))}
          </ul>
          <LoadMoreFoot count={list.lines.length} hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} loadMore={list.loadMore} />
        </>
      )}
    </div>
  );
}

function Line({ line: l }: { line: StatementLine }) {
  const to = refRoute(l.ref);
  const held = !isZeroDecimal(l.held);
  const trend = l.amount.startsWith("-") ? "down" : isZeroDecimal(l.amount) ? "" : "up";
  return (
    <li className={acct.recordCard} data-testid="statement-line" data-kind={l.kind} data-amount={l.amount} data-balance={l.balance_after}>
      <div className={acct.recordHead}>
        <span className={acct.recordTitle}>{kindLabel(l.kind)}</span>
        <span className={`num ${s.amount} ${trend}`}>
          {signed(l.amount, l.currency)} {l.currency}
        </span>
      </div>
      <div className={s.meta}>
        <span>{accountLabel(l.account)}</span>
        <span className="num">{utc(l.time)}</span>
      </div>
      <div className={s.meta}>
        <span className="num" data-testid="statement-balance">
          {m.statement_balance_after({ amount: `${formatMoney(l.balance_after, l.currency)} ${l.currency}` })}
        </span>
        {held && <span className="num">{m.statement_held_change({ amount: signed(l.held, l.currency) })}</span>}
      </div>
      {to && (
        <Link to={to} className={s.record} data-testid="statement-record">
          {m.statement_record()} ›
        </Link>
      )}
    </li>
  );
}
