/**
 * Invitation rebates in the console (/admin/invite, issue #18): the level rates and the agent
 * levels in force (and those set for a later day), an edit dialog that checks what the server
 * checks (percents, thresholds rising, extra shares not falling, total at most 30 %) and names the
 * day the change takes effect (the next Beijing day), and the settlement runs per day (status,
 * inviters paid, total paid, fees counted, invocations, statements) with "settle a past day",
 * behind a confirmation. Every change carries a reason and is audited by the server.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatDay, formatMoney } from "../../../lib/format.ts";
import { formatRate, percentToRate, rateToPercent } from "../../../lib/rate.ts";
import { toast } from "../../../lib/toast.ts";
import { useSentinel } from "../../../lib/useSentinel.ts";
import { Modal } from "../../../components/Modal.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useInviteRuns, useInviteSettings, useRunInviteDay, useSaveInviteSettings, type AdminInviteSettings, type InviteSettings } from "../inviteApi.ts";
import { beijingDay, isSettleableDay, settingsProblem, totalPercent, type SettingsForm, type SettingsProblem } from "../inviteSettings.ts";
import { Kv } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

function problemText(p: SettingsProblem, max: string): string {
  switch (p.kind) {
    case "rate":
      return m.op_inv_err_rate({ level: String(p.level) });
    case "threshold":
      return m.op_inv_err_threshold({ level: String(p.level) });
    case "extra":
      return m.op_inv_err_extra({ level: String(p.level) });
    case "thresholds_rising":
      return m.op_inv_err_rising({ level: String(p.level) });
    case "extras_falling":
      return m.op_inv_err_falling({ level: String(p.level) });
    case "total":
      return m.op_inv_err_total({ total: `${p.total}%`, max: formatRate(max) });
    case "reason":
      return m.op_reason_required();
  }
}

/** One set of settings: the three level rates and the five agent levels. */
function SettingsView({ settings, testId }: { settings: InviteSettings; testId: string }) {
  return (
    <div data-testid={testId}>
      <dl className={acct.kv}>
        {[...settings.level_rates]
          .sort((a, b) => a.level - b.level)
          .map((r) => (
            <Kv key={r.level} label={m.op_inv_level_rate({ level: String(r.level) })}>
              <span className="num">{formatRate(r.rate)}</span>
            </Kv>
          ))}
      </dl>
      <table className={`${acct.feeTable} ${s.adminTable}`}>
        <thead>
          <tr>
            <th>{m.op_inv_agent()}</th>
            <th className="right">{m.op_inv_threshold()}</th>
            <th className="right">{m.op_inv_extra()}</th>
          </tr>
        </thead>
        <tbody>
          {[...settings.agent_levels]
            .sort((a, b) => a.level - b.level)
            .map((a) => (
              <tr key={a.level}>
                <td className="num">{a.level}</td>
                <td className="right num">≥ {formatMoney(a.threshold_usdt, "USDT")}</td>
                <td className="right num">+{formatRate(a.extra_rate)}</td>
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
}

export function InviteConsole() {
  const settings = useInviteSettings();
  const [editing, setEditing] = useState(false);
  const [settling, setSettling] = useState(false);
  const d = settings.data;
  return (
    <section data-testid="admin-invite">
      <p className="form-note">{m.op_inv_note()}</p>
      <div className={s.secHead}>
        <h3 className={s.adminSubtitle}>{m.op_inv_settings()}</h3>
        <button type="button" className="btn btn-outline btn-small" onClick={() => setEditing(true)} disabled={!d} data-testid="inv-settings-edit">
          {m.op_sec_edit()}
        </button>
      </div>
      {settings.error && !d ? (
        <ErrorState message={settings.error.message} onRetry={settings.reload} />
      ) : !d ? (
        <SkeletonList rows={3} />
      ) : (
        <>
          <div className="card">
            <p className={`form-note ${s.invEffective}`} data-testid="inv-effective">{d.current.effective_from > "2000-01-01" ? m.op_inv_in_force({ day: d.current.effective_from }) : m.op_inv_in_force_default()}</p>
            <SettingsView settings={d.current} testId="inv-current" />
            <p className="form-note">{m.op_inv_max({ max: formatRate(d.max_total_rate) })}</p>
          </div>
          {d.next && (
            <div className={`${acct.notice} ${acct.noticeInfo}`}>
              <strong>{m.op_inv_next({ day: d.next.effective_from })}</strong>
              <SettingsView settings={d.next} testId="inv-next" />
            </div>
          )}
        </>
      )}

      <div className={s.secHead}>
        <h3 className={s.adminSubtitle}>{m.op_inv_runs()}</h3>
        <button type="button" className="btn btn-outline btn-small" onClick={() => setSettling(true)} data-testid="inv-run-open">
          {m.op_inv_settle_day()}
        </button>
      </div>
      <RunList />

      {editing && d && <SettingsDialog settings={d} onClose={() => setEditing(false)} />}
      {settling && <RunDialog onClose={() => setSettling(false)} />}
    </section>
  );
}

function RunList() {
  const runs = useInviteRuns();
  const sentinel = useSentinel(runs.loadMore, runs.hasMore && !runs.moreError);
  if (runs.loading) return <SkeletonList rows={3} />;
  if (runs.error) return <ErrorState message={runs.error.message} onRetry={runs.reload} />;
  if (runs.items.length === 0) return <EmptyState text={m.op_inv_no_runs()} />;
  return (
    <>
      <ul className={acct.recordList}>
        {runs.items.map((r) => (
          <li key={r.day} className={acct.recordCard} data-testid="inv-run-row">
            <div className={acct.recordHead}>
              <span className={`${acct.recordTitle} num`}>{formatDay(r.day)}</span>
              <span className={`badge ${r.status === "done" ? "badge-ok" : "badge-pending"}`}>{r.status === "done" ? m.op_inv_run_done() : m.op_inv_run_running()}</span>
            </div>
            <dl className={acct.kv}>
              <Kv label={m.op_inv_inviters_paid()}>
                <span className="num">{r.inviters_paid}</span>
              </Kv>
              <Kv label={m.op_inv_total_paid()}>
                <span className="num">{formatMoney(r.total_paid_usdt, "USDT")} USDT</span>
              </Kv>
              <Kv label={m.op_inv_fees_counted()}>
                <span className="num">{formatMoney(r.fees_counted_usdt, "USDT")} USDT</span>
              </Kv>
              <Kv label={m.op_inv_invocations()}>
                <span className="num">
                  {r.invocations} · {m.op_inv_statements({ count: String(r.statements) })}
                </span>
              </Kv>
              <Kv label={m.op_inv_finished()}>
                <span className="num">{r.finished_at ? formatDateTime(r.finished_at) : "--"}</span>
              </Kv>
            </dl>
          </li>
        ))}
      </ul>
      <div className={acct.listFooter} ref={sentinel}>
        {runs.loadingMore ? (
          <Spinner size={18} />
        ) : runs.hasMore ? (
          <button type="button" className="text-btn" onClick={runs.loadMore}>
            {runs.moreError ? m.retry() : m.load_more()}
          </button>
        ) : null}
      </div>
    </>
  );
}

function toForm(st: InviteSettings): SettingsForm {
  const rate = (level: number) => rateToPercent(st.level_rates.find((r) => r.level === level)?.rate ?? "0") ?? "0";
  return {
    levels: [rate(1), rate(2), rate(3)],
    agents: [1, 2, 3, 4, 5].map((level) => {
      const a = st.agent_levels.find((x) => x.level === level);
      return { threshold: a?.threshold_usdt ?? "", extra: rateToPercent(a?.extra_rate ?? "0") ?? "0" };
    }),
    reason: "",
  };
}

function SettingsDialog({ settings, onClose }: { settings: AdminInviteSettings; onClose: () => void }) {
  const save = useSaveInviteSettings();
  // Edit what will apply next: the settings already set for a later day, else today's.
  const [form, setForm] = useState<SettingsForm>(() => toForm(settings.next ?? settings.current));
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const from = beijingDay(Date.now(), 1);
  const total = totalPercent(form);
  const setLevel = (i: number, v: string) => setForm((f) => ({ ...f, levels: f.levels.map((x, j) => (j === i ? v : x)) as SettingsForm["levels"] }));
  const setAgent = (i: number, key: "threshold" | "extra", v: string) => setForm((f) => ({ ...f, agents: f.agents.map((a, j) => (j === i ? { ...a, [key]: v } : a)) }));
  const go = async (e?: FormEvent) => {
    e?.preventDefault();
    const problem = settingsProblem(form, settings.max_total_rate);
    if (problem) {
      setError(problemText(problem, settings.max_total_rate));
      return;
    }
    setBusy(true);
    try {
      await save({
        level_rates: form.levels.map((p, i) => ({ level: (i + 1) as 1 | 2 | 3, rate: percentToRate(p.trim()) ?? "" })),
        agent_levels: form.agents.map((a, i) => ({ level: i + 1, threshold_usdt: a.threshold.trim(), extra_rate: percentToRate(a.extra.trim()) ?? "" })),
        reason: form.reason.trim(),
      });
      toast.success(m.op_inv_saved({ day: from }));
      onClose();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={m.op_inv_edit_title()}
      onClose={onClose}
      busy={busy}
      testId="inv-settings-dialog"
      actions={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={busy}>
            {m.cancel()}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void go()} disabled={busy} data-testid="inv-settings-save">
            {busy && <Spinner size={16} />}
            {m.op_sec_save()}
          </button>
        </>
      }
    >
      <form className={`form ${s.secForm}`} onSubmit={(e) => void go(e)} noValidate>
        <p className={`${acct.notice} ${acct.noticeInfo}`} data-testid="inv-settings-from">
          {m.op_inv_takes_effect({ day: from })}
        </p>
        <div className={s.invGrid3}>
          {form.levels.map((v, i) => (
            <label key={i} className="field">
              <span className="field-label">{m.op_inv_level_rate({ level: String(i + 1) })} (%)</span>
              <input className="input" inputMode="decimal" value={v} onChange={(e) => setLevel(i, e.target.value.trim())} data-testid={`inv-level-${i + 1}`} />
            </label>
          ))}
        </div>
        <table className={`${acct.feeTable} ${s.invAgentTable}`}>
          <thead>
            <tr>
              <th>{m.op_inv_agent()}</th>
              <th>{m.op_inv_threshold()}</th>
              <th>{m.op_inv_extra()} (%)</th>
            </tr>
          </thead>
          <tbody>
            {form.agents.map((a, i) => (
              <tr key={i}>
                <td className="num">{i + 1}</td>
                <td>
                  <input className="input" inputMode="decimal" value={a.threshold} aria-label={`${m.op_inv_agent()} ${i + 1} ${m.op_inv_threshold()}`} onChange={(e) => setAgent(i, "threshold", e.target.value.trim())} data-testid={`inv-agent-threshold-${i + 1}`} />
                </td>
                <td>
                  <input className="input" inputMode="decimal" value={a.extra} aria-label={`${m.op_inv_agent()} ${i + 1} ${m.op_inv_extra()}`} onChange={(e) => setAgent(i, "extra", e.target.value.trim())} data-testid={`inv-agent-extra-${i + 1}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="form-note" data-testid="inv-settings-total">
          {m.op_inv_total({ total: total === null ? "--" : `${total}%`, max: formatRate(settings.max_total_rate) })}
        </p>
        <label className="field">
          <span className="field-label">{m.op_reason()}</span>
          <input className="input" value={form.reason} onChange={(e) => setForm((f) => ({ ...f, reason: e.target.value }))} data-testid="inv-settings-reason" />
        </label>
        {error && (
          <p className="field-error" role="alert" data-testid="inv-settings-error">
            {error}
          </p>
        )}
      </form>
    </Modal>
  );
}

function RunDialog({ onClose }: { onClose: () => void }) {
  const run = useRunInviteDay();
  const now = Date.now();
  const yesterday = beijingDay(now, -1);
  const [day, setDay] = useState(yesterday);
  const [reason, setReason] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const go = async () => {
    if (!isSettleableDay(day, Date.now())) {
      setError(m.op_inv_err_day());
      return;
    }
    if (!reason.trim()) {
      setError(m.op_reason_required());
      return;
    }
    setBusy(true);
    try {
      const r = await run({ day, reason: reason.trim() });
      toast.success(m.op_inv_settled({ day: r.day, count: String(r.inviters_paid), total: formatMoney(r.total_paid_usdt, "USDT") }));
      onClose();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={m.op_inv_settle_day()}
      onClose={onClose}
      busy={busy}
      testId="inv-run-dialog"
      actions={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={busy}>
            {m.cancel()}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void go()} disabled={busy} data-testid="inv-run-confirm">
            {busy && <Spinner size={16} />}
            {m.op_inv_settle_confirm({ day })}
          </button>
        </>
      }
    >
      <div className={`form ${s.secForm}`}>
        <p className="form-note">{m.op_inv_settle_note()}</p>
        <label className="field">
          <span className="field-label">{m.op_inv_day()}</span>
          <input className="input" type="date" value={day} max={beijingDay(now)} onChange={(e) => setDay(e.target.value)} data-testid="inv-run-day" />
        </label>
        <label className="field">
          <span className="field-label">{m.op_reason()}</span>
          <input className="input" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="inv-run-reason" />
        </label>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
      </div>
    </Modal>
  );
}
