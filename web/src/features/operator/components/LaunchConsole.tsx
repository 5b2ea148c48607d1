/**
 * Launches in the console (/admin/launch): the projects (drafts, open, finished) with publish and
 * cancel, each asking for a reason (audited); and a form to create a draft: a new token (created
 * unlisted) or an existing currency, prices in USDT/BTC/ETH, supply, per-user cap, window,
 * vesting and listing note. Publishing needs the supply in the treasury (fund it with an
 * adjustment first); cancelling refunds every commitment in full.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { Modal } from "../../../components/Modal.tsx";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useCancelLaunch, useCreateLaunch, useLaunchProjects, usePublishLaunch, type LaunchProject } from "../launchApi.ts";
import { Kv } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

const CURRENCIES = [
  { id: 3, name: "USDT" },
  { id: 1, name: "BTC" },
  { id: 2, name: "ETH" },
];
const DAY = 86_400_000;

export function LaunchConsole() {
  const q = useLaunchProjects();
  const [action, setAction] = useState<{ kind: "publish" | "cancel"; project: LaunchProject } | null>(null);
  const [creating, setCreating] = useState(false);
  return (
    <section data-testid="admin-launch">
      <p className="form-note">{m.op_launch_note()}</p>
      <div className={s.secHead}>
        <h3 className={s.adminSubtitle}>{m.op_nav_launch()}</h3>
        <button type="button" className="btn btn-outline btn-small" onClick={() => setCreating(true)} data-testid="launch-new">
          {m.op_launch_new()}
        </button>
      </div>
      {q.error && !q.data ? (
        <ErrorState message={q.error.message} onRetry={q.reload} />
      ) : !q.data ? (
        <SkeletonList rows={3} />
      ) : q.data.length === 0 ? (
        <EmptyState />
      ) : (
        <ul className={acct.recordList}>
          {q.data.map((p) => (
            <li key={p.id} className={acct.recordCard} data-testid="launch-admin-row">
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>
                  #{p.id} {p.title} · {p.token}
                </span>
                <span className="badge badge-none" data-testid="launch-admin-status">
                  {p.status}
                </span>
              </div>
              <dl className={acct.kv}>
                <Kv label={m.launch_supply()}>
                  {formatExact(p.supply)} {p.token}
                </Kv>
                <Kv label={m.launch_cap()}>
                  {formatExact(p.cap)} {p.token}
                </Kv>
                <Kv label={m.launch_price()}>{p.prices.map((x) => `${formatExact(x.price)} ${x.currency}`).join(" · ")}</Kv>
                <Kv label={m.launch_window()}>
                  {formatDateTime(p.start_at)} – {formatDateTime(p.end_at)}
                </Kv>
                <Kv label={m.launch_total_demand()}>
                  {formatExact(p.total_demand)} {p.token} · {p.committers}
                </Kv>
              </dl>
              <div className={acct.btnRow}>
                {p.status === "draft" && (
                  <button type="button" className="btn btn-primary btn-small" onClick={() => setAction({ kind: "publish", project: p })} data-testid="launch-publish">
                    {m.op_launch_publish()}
                  </button>
                )}
                {(p.status === "draft" || p.status === "open") && (
                  <button type="button" className="btn btn-outline btn-small" onClick={() => setAction({ kind: "cancel", project: p })} data-testid="launch-cancel">
                    {m.op_launch_cancel()}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {action && <ReasonDialog action={action} onClose={() => setAction(null)} />}
      {creating && <CreateDialog onClose={() => setCreating(false)} />}
    </section>
  );
}

function ReasonDialog({ action, onClose }: { action: { kind: "publish" | "cancel"; project: LaunchProject }; onClose: () => void }) {
  const publish = usePublishLaunch();
  const cancel = useCancelLaunch();
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const p = action.project;
  const go = async () => {
    if (!reason.trim()) return toast.error(m.op_reason_required());
    setBusy(true);
    try {
      await (action.kind === "publish" ? publish(p.id, reason.trim()) : cancel(p.id, reason.trim()));
      toast.success(m.op_launch_done());
      onClose();
    } catch {
      /* the call showed the error */
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={action.kind === "publish" ? m.op_launch_publish() : m.op_launch_cancel()}
      onClose={onClose}
      busy={busy}
      testId="launch-reason"
      actions={
        <>
          <button type="button" className="btn btn-outline" disabled={busy} onClick={onClose} data-testid="launch-reason-back">
            {m.go_back()}
          </button>
          <button type="button" className={`btn ${action.kind === "cancel" ? acct.btnDanger : "btn-primary"}`} disabled={busy} onClick={() => void go()} data-testid="launch-reason-ok">
            {action.kind === "publish" ? m.op_launch_publish_do({ amount: `${formatExact(p.supply)} ${p.token}` }) : m.op_launch_cancel_do({ count: String(p.committers) })}
          </button>
        </>
      }
    >
      <p className="form-note">
        {action.kind === "publish" ? m.op_launch_publish_note({ supply: formatExact(p.supply), token: p.token }) : m.op_launch_cancel_note()}
      </p>
      <label className="field">
        <span className="field-label">{m.op_reason()}</span>
        <input className="input" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="launch-reason-input" />
      </label>
    </Modal>
  );
}

function CreateDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateLaunch();
  const [f, setF] = useState({
    title: "",
    token: "",
    scale: "8",
    usdt: "",
    btc: "",
    eth: "",
    supply: "",
    cap: "",
    startHours: "0",
    days: "7",
    cliff: "0",
    vest: "30",
    steps: "0",
    note: "",
    reason: "",
  });
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const prices = CURRENCIES.flatMap((c) => {
      const v = f[c.name.toLowerCase() as "usdt" | "btc" | "eth"].trim();
      return v ? [{ currency_id: c.id, price: v }] : [];
    });
    const start = Date.now() + Number(f.startHours || "0") * 3_600_000;
    setBusy(true);
    setError("");
    try {
      await create({
        title: f.title,
        token_name: f.token.trim().toUpperCase(),
        token_scale: Number(f.scale),
        prices,
        supply: f.supply.trim(),
        cap: f.cap.trim(),
        start_at: start,
        end_at: start + Number(f.days || "0") * DAY,
        cliff_days: Number(f.cliff || "0"),
        vest_days: Number(f.vest || "0"),
        vest_steps: Number(f.steps || "0"),
        listing_note: f.note,
        reason: f.reason,
      });
      toast.success(m.op_launch_done());
      onClose();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const field = (k: keyof typeof f, label: string, numeric = true) => (
    <label className="field" key={k}>
      <span className="field-label">{label}</span>
      <input className={`input${numeric ? " num" : ""}`} inputMode={numeric ? "decimal" : "text"} value={f[k]} onChange={set(k)} data-testid={`launch-f-${k}`} />
    </label>
  );
  return (
    <Modal
      title={m.op_launch_new()}
      onClose={onClose}
      busy={busy}
      testId="launch-create"
      actions={
        <>
          <button type="button" className="btn btn-outline" disabled={busy} onClick={onClose}>
            {m.cancel()}
          </button>
          <button type="submit" form="launch-create-form" className="btn btn-primary" disabled={busy} data-testid="launch-create-ok">
            {m.confirm()}
          </button>
        </>
      }
    >
      <form id="launch-create-form" className="form" onSubmit={(e) => void submit(e)} noValidate>
        {field("title", m.op_launch_f_title(), false)}
        {field("token", m.op_launch_f_token(), false)}
        {field("scale", m.op_launch_f_scale())}
        {field("usdt", m.launch_price_in({ currency: "USDT" }))}
        {field("btc", m.launch_price_in({ currency: "BTC" }))}
        {field("eth", m.launch_price_in({ currency: "ETH" }))}
        {field("supply", m.launch_supply())}
        {field("cap", m.op_launch_f_cap())}
        {field("startHours", m.op_launch_f_start())}
        {field("days", m.op_launch_f_days())}
        {field("cliff", m.op_launch_f_cliff())}
        {field("vest", m.op_launch_f_vest())}
        {field("steps", m.op_launch_f_steps())}
        {field("note", m.launch_listing(), false)}
        {field("reason", m.op_reason(), false)}
        {error && (
          <span className="field-error" role="alert">
            {error}
          </span>
        )}
      </form>
    </Modal>
  );
}
