/**
 * Launches in the console (/admin/launch): the projects (drafts, open, finished) with publish and
 * cancel, each asking for a reason (audited); and a form to create a draft: a new token (created
 * unlisted) or an existing currency, prices in USDT/BTC/ETH, supply, per-user cap, window,
 * vesting and listing note. Publishing needs the supply in the treasury (fund it with an
 * adjustment first); cancelling refunds every commitment in full.
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { ConfirmSheet, useSheetAction } from "../../../components/ConfirmSheet.tsx";
import { useCancelLaunch, useCreateLaunch, useLaunchProjects, usePublishLaunch, type LaunchProject } from "../launchApi.ts";
import { Kv } from "./common.tsx";
import { Field, FormDialog, ReasonField, RecordActions, RecordCard, SectionHead, RecordList } from "./kit.tsx";

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
      <SectionHead title={m.op_nav_launch()} action={m.op_launch_new()} onAction={() => setCreating(true)} actionTestId="launch-new" />
      <RecordList q={q} rows={3}>
        {(p) => (
        <RecordCard
          key={p.id}
          title={`#${p.id} ${p.title} · ${p.token}`}
          badge={
            <span className="badge badge-none" data-testid="launch-admin-status">
              {p.status}
            </span>
          }
          testId="launch-admin-row"
          actions={
            <RecordActions>
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
            </RecordActions>
          }
        >
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
        </RecordCard>
        )}
      </RecordList>
      {action && <ReasonDialog action={action} onClose={() => setAction(null)} />}
      {creating && <CreateDialog onClose={() => setCreating(false)} />}
    </section>
  );
}

function ReasonDialog({ action, onClose }: { action: { kind: "publish" | "cancel"; project: LaunchProject }; onClose: () => void }) {
  const publish = usePublishLaunch();
  const cancel = useCancelLaunch();
  const [reason, setReason] = useState("");
  const { busy, run } = useSheetAction();
  const p = action.project;
  const go = () => {
    if (!reason.trim()) return toast.error(m.op_reason_required());
    void run(async () => {
      await (action.kind === "publish" ? publish(p.id, reason.trim()) : cancel(p.id, reason.trim()));
      toast.success(m.op_launch_done());
      onClose();
    });
  };
  return (
    <ConfirmSheet
      title={action.kind === "publish" ? m.op_launch_publish() : m.op_launch_cancel()}
      onClose={onClose}
      onConfirm={go}
      confirmText={action.kind === "publish" ? m.op_launch_publish_do({ amount: `${formatExact(p.supply)} ${p.token}` }) : m.op_launch_cancel_do({ count: String(p.committers) })}
      busy={busy}
      testId="launch-reason"
      confirmTestId="launch-reason-ok"
      danger={action.kind === "cancel"}
      back
      cancelStyle="btn-outline"
      cancelTestId="launch-reason-back"
    >
      <p className="form-note">
        {action.kind === "publish" ? m.op_launch_publish_note({ supply: formatExact(p.supply), token: p.token }) : m.op_launch_cancel_note()}
      </p>
      <ReasonField value={reason} onChange={setReason} testId="launch-reason-input" />
    </ConfirmSheet>
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
  const { busy, error, setError, run } = useSheetAction();
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = async () => {
    const prices = CURRENCIES.flatMap((c) => {
      const v = f[c.name.toLowerCase() as "usdt" | "btc" | "eth"].trim();
      return v ? [{ currency_id: c.id, price: v }] : [];
    });
    const start = Date.now() + Number(f.startHours || "0") * 3_600_000;
    setError("");
    await run(async () => {
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
    }, (err) => setError((err as Error).message));
  };
  const field = (k: keyof typeof f, label: string, numeric = true) => (
    <Field label={label} key={k}>
      <input className={`input${numeric ? " num" : ""}`} inputMode={numeric ? "decimal" : "text"} value={f[k]} onChange={set(k)} data-testid={`launch-f-${k}`} />
    </Field>
  );
  return (
    <FormDialog title={m.op_launch_new()} testId="launch-create" onClose={onClose} onSave={() => void submit()} saveText={m.confirm()} saveTestId="launch-create-ok" busy={busy} error={error} spaced>
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
    </FormDialog>
  );
}
