/**
 * Invitation rebates in the console (/admin/invite, issue #18): the level rates and the agent
 * levels in force (and those set for a later day), an edit dialog that checks what the server
 * checks (percents, thresholds rising, extra shares not falling, total at most 30 %) and names the
 * day the change takes effect (the next Beijing day), and the settlement runs per day (status,
 * inviters paid, total paid, fees counted, invocations, statements) with "settle a past day",
 * behind a confirmation. Every change carries a reason and is audited by the server.
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatDay, formatMoney } from "../../../lib/format.ts";
import { formatRate, percentToRate, rateToPercent } from "../../../lib/rate.ts";
import { toast } from "../../../lib/toast.ts";
import { ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useInviteRuns, useInviteSettings, useRunInviteDay, useSaveInviteSettings, type AdminInviteSettings, type InviteSettings } from "../inviteApi.ts";
import { beijingDay, isSettleableDay, settingsProblem, totalPercent, type SettingsForm, type SettingsProblem } from "../inviteSettings.ts";
import { Kv } from "./common.tsx";
import { FormDialog, PagedRecords, ReasonField, RecordCard, SectionHead, TextField, useFormSave } from "./kit.tsx";
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
      <SectionHead title={m.op_inv_settings()} action={m.op_sec_edit()} onAction={() => setEditing(true)} actionDisabled={!d} actionTestId="inv-settings-edit" />
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

      <SectionHead title={m.op_inv_runs()} action={m.op_inv_settle_day()} onAction={() => setSettling(true)} actionTestId="inv-run-open" />
      <RunList />

      {editing && d && <SettingsDialog settings={d} onClose={() => setEditing(false)} />}
      {settling && <RunDialog onClose={() => setSettling(false)} />}
    </section>
  );
}

function RunList() {
  const runs = useInviteRuns();
  return (
    <PagedRecords list={runs} emptyText={m.op_inv_no_runs()}>
      {(r) => (
        <RecordCard
          key={r.day}
          title={formatDay(r.day)}
          numTitle
          badge={<span className={`badge ${r.status === "done" ? "badge-ok" : "badge-pending"}`}>{r.status === "done" ? m.op_inv_run_done() : m.op_inv_run_running()}</span>}
          testId="inv-run-row"
        >
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
        </RecordCard>
      )}
    </PagedRecords>
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
  const saveSettings = useSaveInviteSettings();
  // Edit what will apply next: the settings already set for a later day, else today's.
  const [form, setForm] = useState<SettingsForm>(() => toForm(settings.next ?? settings.current));
  const from = beijingDay(Date.now(), 1);
  const { busy, error, save } = useFormSave(onClose, () => m.op_inv_saved({ day: from }));
  const total = totalPercent(form);
  const setLevel = (i: number, v: string) => setForm((f) => ({ ...f, levels: f.levels.map((x, j) => (j === i ? v : x)) as SettingsForm["levels"] }));
  const setAgent = (i: number, key: "threshold" | "extra", v: string) => setForm((f) => ({ ...f, agents: f.agents.map((a, j) => (j === i ? { ...a, [key]: v } : a)) }));
  const go = () => {
    const problem = settingsProblem(form, settings.max_total_rate);
    save(problem && problemText(problem, settings.max_total_rate), () =>
      saveSettings({
        level_rates: form.levels.map((p, i) => ({ level: (i + 1) as 1 | 2 | 3, rate: percentToRate(p.trim()) ?? "" })),
        agent_levels: form.agents.map((a, i) => ({ level: i + 1, threshold_usdt: a.threshold.trim(), extra_rate: percentToRate(a.extra.trim()) ?? "" })),
        reason: form.reason.trim(),
      }),
    );
  };
  return (
    <FormDialog title={m.op_inv_edit_title()} testId="inv-settings-dialog" onClose={onClose} onSave={go} saveText={m.op_sec_save()} saveTestId="inv-settings-save" busy={busy} error={error} errorTestId="inv-settings-error">
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
        <ReasonField value={form.reason} onChange={(reason) => setForm((f) => ({ ...f, reason }))} testId="inv-settings-reason" />
    </FormDialog>
  );
}

function RunDialog({ onClose }: { onClose: () => void }) {
  const run = useRunInviteDay();
  const now = Date.now();
  const yesterday = beijingDay(now, -1);
  const [day, setDay] = useState(yesterday);
  const [reason, setReason] = useState("");
  const { busy, error, save } = useFormSave(onClose);
  const go = () =>
    save(!isSettleableDay(day, Date.now()) ? m.op_inv_err_day() : !reason.trim() ? m.op_reason_required() : null, async () => {
      const r = await run({ day, reason: reason.trim() });
      toast.success(m.op_inv_settled({ day: r.day, count: String(r.inviters_paid), total: formatMoney(r.total_paid_usdt, "USDT") }));
    });
  return (
    <FormDialog title={m.op_inv_settle_day()} testId="inv-run-dialog" onClose={onClose} onSave={go} saveText={m.op_inv_settle_confirm({ day })} saveTestId="inv-run-confirm" busy={busy} error={error} plain>
      <p className="form-note">{m.op_inv_settle_note()}</p>
      <TextField label={m.op_inv_day()} type="date" value={day} max={beijingDay(now)} onChange={setDay} testId="inv-run-day" />
      <ReasonField value={reason} onChange={setReason} testId="inv-run-reason" />
    </FormDialog>
  );
}
