/**
 * Savings products in the console (/admin/earn, issue #19 §1, §5): every product with its terms,
 * budget, reserved, paid, returned and remaining amounts and its open positions; a form to publish
 * a product (coin, flexible or 7/30/90 days, APR in percent with at most 2 decimals, per-user
 * limits, the interest budget frozen from the treasury at once), and "close" for an open one (no
 * new subscriptions; open positions run to their end, the unpromised budget goes back). Both are
 * confirmed, need a reason, and are audited by the server.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { formatDateTime, formatExact } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { ConfirmSheet } from "../../../components/ConfirmSheet.tsx";
import { useCloseEarnProduct, useCreateEarnProduct, useEarnCurrencies, useEarnProducts } from "../earnApi.ts";
import { Kv } from "./common.tsx";
import { Field, OnOff, RecordCard, RecordList } from "./kit.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

const TERMS = [0, 7, 30, 90] as const;
type Term = (typeof TERMS)[number];
const termText = (t: number) => (t === 0 ? m.earn_flexible() : m.earn_fixed_days({ days: String(t) }));

type Form = { currency_id: number; term_days: Term; apr: string; min_amount: string; max_amount: string; budget: string; reason: string };
const EMPTY: Form = { currency_id: 3, term_days: 30, apr: "", min_amount: "", max_amount: "", budget: "", reason: "" };

function NewProduct() {
  const currencies = useEarnCurrencies();
  const create = useCreateEarnProduct();
  const [f, setF] = useState<Form>(EMPTY);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (patch: Partial<Form>) => {
    setF((x) => ({ ...x, ...patch }));
    setError(null);
  };
  const currency = (currencies.data ?? []).find((c) => c.currency === f.currency_id)?.currency_name ?? "USDT";
  const ready = f.apr !== "" && f.min_amount !== "" && f.max_amount !== "" && f.budget !== "";

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (f.reason.trim() === "") setError(m.op_reason_required());
    else setConfirming(true);
  };
  const send = async () => {
    setBusy(true);
    try {
      await create({ ...f, reason: f.reason.trim() });
      toast.success(m.op_earn_published());
      setF(EMPTY);
    } catch (err) {
      const fail = err instanceof ApiFailure ? err : null;
      if (fail && fail.kind !== "997" && fail.kind !== "998" && fail.kind !== "999") setError(fail.message);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  return (
    <form className={`card form ${s.secForm}`} onSubmit={submit} noValidate data-testid="earn-new">
      <h3 className={s.adminSubtitle}>{m.op_earn_new()}</h3>
      <Field label={m.wallet_currency()}>
        <select className="input" value={f.currency_id} onChange={(e) => set({ currency_id: Number(e.target.value) })} data-testid="earn-new-currency">
          {(currencies.data ?? [{ currency: 3, currency_name: "USDT" }]).map((c) => (
            <option key={c.currency} value={c.currency}>
              {c.currency_name}
            </option>
          ))}
        </select>
      </Field>
      <Field label={m.op_earn_term()}>
        <select className="input" value={f.term_days} onChange={(e) => set({ term_days: Number(e.target.value) as Term })} data-testid="earn-new-term">
          {TERMS.map((t) => (
            <option key={t} value={t}>
              {termText(t)}
            </option>
          ))}
        </select>
      </Field>
      {(
        [
          ["apr", m.op_earn_apr(), "earn-new-apr"],
          ["min_amount", m.op_earn_min(), "earn-new-min"],
          ["max_amount", m.op_earn_max(), "earn-new-max"],
          ["budget", m.op_earn_budget(), "earn-new-budget"],
        ] as const
      ).map(([key, label, testId]) => (
        <Field label={label} key={key}>
          <input className="input num" inputMode="decimal" autoComplete="off" value={f[key]} onChange={(e) => set({ [key]: e.target.value.replace(/[^\d.]/g, "") })} data-testid={testId} />
        </Field>
      ))}
      <Field label={m.op_reason()}>
        <input className="input" value={f.reason} maxLength={500} onChange={(e) => set({ reason: e.target.value })} data-testid="earn-new-reason" />
      </Field>
      {error && <span className="field-error" data-testid="earn-new-error">{error}</span>}
      <button type="submit" className="btn btn-primary btn-block" disabled={!ready || busy} data-testid="earn-new-submit">
        {m.op_earn_publish()}
      </button>
      {confirming && (
        <ConfirmSheet title={m.op_earn_new()} onClose={() => setConfirming(false)} onConfirm={() => void send()} confirmText={m.op_earn_publish()} busy={busy} confirmTestId="earn-new-confirm">
          <p className={s.dialogSummary}>{m.op_earn_publish_confirm({ budget: formatExact(f.budget), currency })}</p>
          <dl className={acct.kv}>
            <Kv label={m.op_earn_term()}>{termText(f.term_days)}</Kv>
            <Kv label={m.op_earn_apr()}>{f.apr}%</Kv>
            <Kv label={m.earn_limits()}>
              {f.min_amount} – {f.max_amount} {currency}
            </Kv>
            <Kv label={m.op_reason()}>{f.reason}</Kv>
          </dl>
        </ConfirmSheet>
      )}
    </form>
  );
}

function CloseDialog({ product, onClose }: { product: { id: number; currency: string; term_days: number; apr: string; remaining: string }; onClose: () => void }) {
  const close = useCloseEarnProduct();
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = async () => {
    if (reason.trim() === "") {
      setError(m.op_reason_required());
      return;
    }
    setBusy(true);
    try {
      await close(product.id, reason.trim());
      toast.success(m.op_earn_closed());
      onClose();
    } catch (err) {
      const fail = err instanceof ApiFailure ? err : null;
      if (fail && fail.kind !== "997" && fail.kind !== "998" && fail.kind !== "999") setError(fail.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <ConfirmSheet title={`${m.op_earn_close()} #${product.id}`} onClose={onClose} onConfirm={() => void send()} confirmText={m.op_earn_close_do()} busy={busy} testId="earn-close-dialog" confirmTestId="earn-close-confirm" danger back>
      <p className={s.dialogSummary}>
        {product.currency} · {termText(product.term_days)} · {product.apr}%
      </p>
      <p className="form-note">{m.op_earn_close_note({ remaining: formatExact(product.remaining), currency: product.currency })}</p>
      <label className={`field ${s.decisionField}`}>
        <span className="field-label">{m.op_reason()}</span>
        <input className="input" value={reason} maxLength={500} onChange={(e) => { setReason(e.target.value); setError(null); }} data-testid="earn-close-reason" />
      </label>
      {error && <span className="field-error">{error}</span>}
    </ConfirmSheet>
  );
}

export function EarnConsole() {
  const products = useEarnProducts();
  const [closing, setClosing] = useState<Parameters<typeof CloseDialog>[0]["product"] | null>(null);
  return (
    <section data-testid="admin-earn">
      <NewProduct />
      <h3 className={s.adminSubtitle}>{m.op_earn_title()}</h3>
      <RecordList q={products} rows={3} emptyText={m.op_earn_empty()}>
        {(p) => (
          <RecordCard
            key={p.id}
            title={
              <>
                #{p.id} {p.currency} · {termText(p.term_days)} · <span className="num">{p.apr}%</span>
              </>
            }
            badge={<OnOff on={p.status === "open"} onText={m.op_earn_status_open()} offText={m.op_earn_status_closed()} />}
            testId="earn-admin-row"
            actions={
              p.status === "open" && (
                <button type="button" className="btn btn-outline btn-small" onClick={() => setClosing(p)} data-testid="earn-close">
                  {m.op_earn_close()}
                </button>
              )
            }
          >
            <Kv label={m.earn_limits()}>
              <span className="num">
                {formatExact(p.min_amount)} – {formatExact(p.max_amount)} {p.currency}
              </span>
            </Kv>
            <Kv label={m.op_earn_budget_line()}>
              <span className="num">{formatExact(p.budget)}</span>
            </Kv>
            <Kv label={m.op_earn_reserved()}>
              <span className="num">{formatExact(p.reserved)}</span>
            </Kv>
            <Kv label={m.op_earn_paid()}>
              <span className="num">{formatExact(p.paid)}</span>
            </Kv>
            <Kv label={m.op_earn_released()}>
              <span className="num">{formatExact(p.released)}</span>
            </Kv>
            <Kv label={m.op_earn_remaining()} testId="earn-admin-remaining">
              <span className="num">
                {formatExact(p.remaining)} {p.currency}
              </span>
            </Kv>
            <Kv label={m.op_earn_positions()}>
              <span className="num">
                {p.open_positions} · {formatExact(p.open_principal)} {p.currency}
              </span>
            </Kv>
            <Kv label="">
              <span className="muted num">{formatDateTime(p.closed_at ?? p.created_at)}</span>
            </Kv>
          </RecordCard>
        )}
      </RecordList>
      {closing && <CloseDialog product={closing} onClose={() => setClosing(null)} />}
    </section>
  );
}
