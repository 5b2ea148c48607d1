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
import { Modal } from "../../../components/Modal.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useCloseEarnProduct, useCreateEarnProduct, useEarnCurrencies, useEarnProducts } from "../earnApi.ts";
import { Kv } from "./common.tsx";
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
      <label className="field">
        <span className="field-label">{m.wallet_currency()}</span>
        <select className="input" value={f.currency_id} onChange={(e) => set({ currency_id: Number(e.target.value) })} data-testid="earn-new-currency">
          {(currencies.data ?? [{ currency: 3, currency_name: "USDT" }]).map((c) => (
            <option key={c.currency} value={c.currency}>
              {c.currency_name}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="field-label">{m.op_earn_term()}</span>
        <select className="input" value={f.term_days} onChange={(e) => set({ term_days: Number(e.target.value) as Term })} data-testid="earn-new-term">
          {TERMS.map((t) => (
            <option key={t} value={t}>
              {termText(t)}
            </option>
          ))}
        </select>
      </label>
      {(
        [
          ["apr", m.op_earn_apr(), "earn-new-apr"],
          ["min_amount", m.op_earn_min(), "earn-new-min"],
          ["max_amount", m.op_earn_max(), "earn-new-max"],
          ["budget", m.op_earn_budget(), "earn-new-budget"],
        ] as const
      ).map(([key, label, testId]) => (
        <label className="field" key={key}>
          <span className="field-label">{label}</span>
          <input className="input num" inputMode="decimal" autoComplete="off" value={f[key]} onChange={(e) => set({ [key]: e.target.value.replace(/[^\d.]/g, "") })} data-testid={testId} />
        </label>
      ))}
      <label className="field">
        <span className="field-label">{m.op_reason()}</span>
        <input className="input" value={f.reason} maxLength={500} onChange={(e) => set({ reason: e.target.value })} data-testid="earn-new-reason" />
      </label>
      {error && <span className="field-error" data-testid="earn-new-error">{error}</span>}
      <button type="submit" className="btn btn-primary btn-block" disabled={!ready || busy} data-testid="earn-new-submit">
        {m.op_earn_publish()}
      </button>
      {confirming && (
        <Modal
          title={m.op_earn_new()}
          onClose={() => setConfirming(false)}
          busy={busy}
          actions={
            <>
              <button type="button" className="btn btn-ghost" onClick={() => setConfirming(false)} disabled={busy}>
                {m.cancel()}
              </button>
              <button type="button" className="btn btn-primary" onClick={send} disabled={busy} data-testid="earn-new-confirm">
                {busy && <Spinner size={16} />}
                {m.op_earn_publish()}
              </button>
            </>
          }
        >
          <p className={s.dialogSummary}>{m.op_earn_publish_confirm({ budget: formatExact(f.budget), currency })}</p>
          <dl className={acct.kv}>
            <Kv label={m.op_earn_term()}>{termText(f.term_days)}</Kv>
            <Kv label={m.op_earn_apr()}>{f.apr}%</Kv>
            <Kv label={m.earn_limits()}>
              {f.min_amount} – {f.max_amount} {currency}
            </Kv>
            <Kv label={m.op_reason()}>{f.reason}</Kv>
          </dl>
        </Modal>
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
    <Modal
      title={`${m.op_earn_close()} #${product.id}`}
      onClose={onClose}
      busy={busy}
      testId="earn-close-dialog"
      actions={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={busy}>
            {m.go_back()}
          </button>
          <button type="button" className={`btn ${acct.btnDanger}`} onClick={send} disabled={busy} data-testid="earn-close-confirm">
            {busy && <Spinner size={16} />}
            {m.op_earn_close_do()}
          </button>
        </>
      }
    >
      <p className={s.dialogSummary}>
        {product.currency} · {termText(product.term_days)} · {product.apr}%
      </p>
      <p className="form-note">{m.op_earn_close_note({ remaining: formatExact(product.remaining), currency: product.currency })}</p>
      <label className={`field ${s.decisionField}`}>
        <span className="field-label">{m.op_reason()}</span>
        <input className="input" value={reason} maxLength={500} onChange={(e) => { setReason(e.target.value); setError(null); }} data-testid="earn-close-reason" />
      </label>
      {error && <span className="field-error">{error}</span>}
    </Modal>
  );
}

export function EarnConsole() {
  const products = useEarnProducts();
  const [closing, setClosing] = useState<Parameters<typeof CloseDialog>[0]["product"] | null>(null);
  return (
    <section data-testid="admin-earn">
      <NewProduct />
      <h3 className={s.adminSubtitle}>{m.op_earn_title()}</h3>
      {products.loading ? (
        <SkeletonList rows={3} />
      ) : products.error ? (
        <ErrorState message={products.error.message} onRetry={products.reload} />
      ) : (products.data ?? []).length === 0 ? (
        <EmptyState text={m.op_earn_empty()} />
      ) : (
        <ul className={acct.recordList}>
          {products.data!.map((p) => (
            <li key={p.id} className={acct.recordCard} data-testid="earn-admin-row">
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>
                  #{p.id} {p.currency} · {termText(p.term_days)} · <span className="num">{p.apr}%</span>
                </span>
                <span className={`badge ${p.status === "open" ? "badge-ok" : "badge-none"}`}>{p.status === "open" ? m.op_earn_status_open() : m.op_earn_status_closed()}</span>
              </div>
              <dl className={acct.kv}>
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
              </dl>
              {p.status === "open" && (
                <button type="button" className="btn btn-outline btn-small" onClick={() => setClosing(p)} data-testid="earn-close">
                  {m.op_earn_close()}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {closing && <CloseDialog product={closing} onClose={() => setClosing(null)} />}
    </section>
  );
}
