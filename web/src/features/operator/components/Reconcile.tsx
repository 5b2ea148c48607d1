/**
 * Ledger reconciliation on demand: per currency the ledger sums to zero, every balance equals its
 * ledger rows, every movement nets to zero, nothing is negative and frozen funds match open
 * holds. Shows "books are right" or each difference.
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { Icon } from "../../../components/Icon.tsx";
import { ErrorState, Spinner } from "../../../components/States.tsx";
import { runReconcile, type ReconcileResult } from "../api.ts";
import acct from "../../../components/account.module.css";
import "./operator.module.css";

export function ReconcileSection() {
  const [result, setResult] = useState<ReconcileResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(await runReconcile());
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : m.request_failed());
    } finally {
      setBusy(false);
    }
  };
  return (
    <section data-testid="admin-reconcile">
      <p className="form-note">{m.op_reconcile_intro()}</p>
      <button type="button" className="btn btn-primary btn-block btn-large" onClick={run} disabled={busy} data-testid="reconcile-run">
        {busy && <Spinner size={16} />}
        {m.op_reconcile_run()}
      </button>
      {error && <ErrorState message={error} onRetry={run} />}
      {result && (
        <div className={`${acct.lockPanel} ${result.ok ? acct.ok : acct.bad}`} data-testid="reconcile-result" data-ok={result.ok ? "1" : "0"}>
          <Icon name={result.ok ? "check" : "alert"} size={28} />
          <strong>{result.ok ? m.op_reconcile_ok() : m.op_reconcile_bad({ count: result.differences.length })}</strong>
          <span className={`muted ${acct.small}`}>
            {m.op_reconcile_stats({ rows: result.stats.ledger_rows, movements: result.stats.movements, balances: result.stats.balance_rows, holds: result.stats.open_holds })}
          </span>
          <span className={`muted ${acct.small}`}>{m.op_reconcile_report({ id: result.report_id })}</span>
        </div>
      )}
      {result && !result.ok && (
        <ul className={acct.recordList} data-testid="reconcile-differences">
          {result.differences.map((d, i) => (
            <li key={i} className={acct.recordCard}>
              <strong className={acct.mono}>{d.check}</strong>
              <dl className={acct.kv}>
                {Object.entries(d)
                  .filter(([k]) => k !== "check")
                  .map(([k, v]) => (
                    <div className={acct.kvRow} key={k}>
                      <dt>{k}</dt>
                      <dd className="num">{String(v)}</dd>
                    </div>
                  ))}
              </dl>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
