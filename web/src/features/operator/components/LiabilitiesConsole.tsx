/**
 * Proof of liabilities in the console (/admin/liabilities, issue #20 §2): every snapshot run with
 * its status (building, published, not published), step, users, root, invocations and statements,
 * the per-currency totals it checked (balances table, ledger, tree root) and, for one that was not
 * published, why (negative balances, totals that differ from the ledger). "Take a snapshot now"
 * carries a reason and is audited by the server. At phone width each currency is one row: its
 * total when the three agree, the three figures under it when they do not (no sideways scroll).
 */
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { useLiabilityRuns, useTakeSnapshot, type LiabilityRun } from "../liabilitiesApi.ts";
import { Kv, useDecisionDialog } from "./common.tsx";
import { PagedRecords, RecordCard, SectionHead } from "./kit.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

const statusLabel: Record<LiabilityRun["status"], () => string> = {
  running: m.op_liab_status_running,
  published: m.op_liab_status_published,
  failed: m.op_liab_status_failed,
};
const phaseLabel: Record<string, () => string> = {
  copy: m.op_liab_phase_copy,
  check: m.op_liab_phase_check,
  leaves: m.op_liab_phase_leaves,
  top: m.op_liab_phase_top,
  prune: m.op_liab_phase_prune,
  done: m.op_liab_phase_done,
};
const statusBadge: Record<LiabilityRun["status"], string> = { running: "badge-pending", published: "badge-ok", failed: "badge-bad" };

export function LiabilitiesConsole() {
  const take = useTakeSnapshot();
  const decision = useDecisionDialog();
  const openTake = () =>
    decision.open({
      title: m.op_liab_take(),
      confirmText: m.op_liab_take(),
      reasonRequired: true,
      summary: <p className="form-note">{m.op_liab_take_note()}</p>,
      run: async (reason) => {
        const r = await take({ reason });
        toast.success(m.op_liab_taken({ id: String(r.id), status: statusLabel[r.status]() }));
      },
    });
  return (
    <section data-testid="admin-liabilities">
      <p className="form-note">{m.op_liab_note()}</p>
      <SectionHead title={m.op_liab_runs()} action={m.op_liab_take()} onAction={openTake} actionTestId="liab-run-open" />
      <RunList />
      {decision.dialog}
    </section>
  );
}

function RunCard({ r }: { r: LiabilityRun }) {
  return (
    <RecordCard
      title={
        <>
          #{r.id} · {r.trigger === "cron" ? m.op_liab_trigger_cron() : m.op_liab_trigger_operator()}
        </>
      }
      numTitle
      badge={
        <span className={`badge ${statusBadge[r.status]}`} data-testid="liab-run-status">
          {statusLabel[r.status]()}
        </span>
      }
      testId="liab-run-row"
      alert={
        r.problem && (
          <div className={`${acct.notice} ${acct.noticeBad}`} role="alert" data-testid="liab-run-problem">
            {r.problem.negative_users > 0 && <div>{m.op_liab_negative({ count: String(r.problem.negative_users) })}</div>}
            {r.problem.mismatches.length > 0 && (
              <div>
                {m.op_liab_mismatch()}: {r.problem.mismatches.map((x) => x.currency).join(", ")}
              </div>
            )}
          </div>
        )
      }
      actions={r.totals.length > 0 && <Totals totals={r.totals} />}
    >
      <Kv label={m.op_liab_phase()}>{phaseLabel[r.phase]?.() ?? r.phase}</Kv>
      <Kv label={m.op_liab_users()}>{r.user_count}</Kv>
      <Kv label={m.op_inv_invocations()}>
        {r.invocations} · {m.op_inv_statements({ count: String(r.statements) })}
      </Kv>
      <Kv label={m.liab_taken()}>{r.taken_at ? formatDateTime(r.taken_at) : "--"}</Kv>
      <Kv label={m.op_inv_finished()}>{r.finished_at ? formatDateTime(r.finished_at) : "--"}</Kv>
      {r.root_hash && (
        <Kv label={m.op_liab_root()} mono>
          {r.root_hash}
        </Kv>
      )}
    </RecordCard>
  );
}

const agrees = (t: LiabilityRun["totals"][number]) => t.balances === t.ledger && (t.tree === null || t.tree === t.ledger);

function Totals({ totals }: { totals: LiabilityRun["totals"] }) {
  const allAgree = totals.every(agrees);
  const built = totals.every((t) => t.tree !== null);
  return (
    <div className={s.liabTotals} data-testid="liab-run-totals">
      <div className={`muted ${acct.small}`}>
        {m.op_liab_totals()}
        {allAgree && ` · ${built ? m.op_liab_agree() : `${m.op_liab_col_balances()} = ${m.op_liab_col_ledger()}`}`}
      </div>
      <ul className={s.liabList}>
        {totals.map((t) => {
          const agree = agrees(t);
          return (
            <li key={t.currency} className={s.liabRow} data-testid="liab-run-currency" data-agree={agree}>
              <div className={s.liabHead}>
                <span className={s.liabName}>{t.currency}</span>
                {agree && <span className="num">{formatExact(t.ledger)}</span>}
              </div>
              {!agree && (
                <dl className={acct.kv}>
                  <Kv label={m.op_liab_col_balances()}>{formatExact(t.balances)}</Kv>
                  <Kv label={m.op_liab_col_ledger()}>{formatExact(t.ledger)}</Kv>
                  <Kv label={m.op_liab_col_tree()}>{t.tree === null ? "--" : formatExact(t.tree)}</Kv>
                </dl>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function RunList() {
  const runs = useLiabilityRuns();
  return (
    <PagedRecords list={runs} emptyText={m.op_liab_no_runs()}>
      {(r) => <RunCard key={r.id} r={r} />}
    </PagedRecords>
  );
}
