/**
 * A published liabilities snapshot as both transparency screens show it: its id and time, the users
 * it counts, the root hash and the per-currency totals. `testId` prefixes the test ids
 * (`{testId}-user-count`, `-root`, `-totals`).
 */
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact } from "../../../lib/format.ts";
import type { Liabilities } from "../api.ts";
import acct from "../../../components/account.module.css";
import s from "./transparency.module.css";

export function PublishedSnapshot({ snapshot: p, testId, grouped = false }: { snapshot: Liabilities; testId: string; grouped?: boolean }) {
  return (
    <>
      <dl className={grouped ? `${acct.kv} ${s.group}` : acct.kv}>
        <div className={acct.kvRow}>
          <dt>{m.liab_snapshot({ id: String(p.id) })}</dt>
          <dd className="num">{formatDateTime(p.taken_at)}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.liab_users()}</dt>
          <dd className="num" data-testid={`${testId}-user-count`}>
            {p.user_count}
          </dd>
        </div>
      </dl>
      <p className={`form-note ${s.gap}`}>{m.liab_root()}</p>
      <p className={s.hash} data-testid={`${testId}-root`}>
        {p.root_hash}
      </p>
      <table className={`${acct.feeTable} ${s.gap}`} data-testid={`${testId}-totals`}>
        <thead>
          <tr>
            <th>{m.liab_currency()}</th>
            <th className="right">{m.liab_total()}</th>
          </tr>
        </thead>
        <tbody>
          {p.totals.map((t) => (
            <tr key={t.currency}>
              <td>{t.currency}</td>
              <td className="right num">{formatExact(t.total)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
