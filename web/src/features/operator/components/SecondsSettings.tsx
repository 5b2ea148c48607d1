/**
 * Seconds contracts in the console (/admin/seconds): the duration options (seconds, payout ratio,
 * offered or withdrawn) and the payable currencies (amount choices, smallest and largest stake,
 * fee, the house's exposure limits per pair and per user, on or off). Every edit carries a reason
 * and is audited by the server; it applies to contracts accepted afterwards. Nothing here names a
 * contract, a user or an outcome: there is no such setting.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { compareDecimal } from "../../../lib/amount.ts";
import { toast } from "../../../lib/toast.ts";
import { Icon } from "../../../components/Icon.tsx";
import { Modal } from "../../../components/Modal.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useSaveSecondsCurrency, useSaveSecondsOption, useSecondsCurrencies, useSecondsOptions, type AdminPayableCurrency, type AdminSecondsOption } from "../api.ts";
import { Kv } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";
import { formatExact } from "../../../lib/format.ts";

const DECIMAL = /^\d{1,20}(\.\d{1,8})?$/;
const PERCENT = /^\d{1,3}(\.\d{1,2})?$/;

/** Checks of the option form, as the server's schema makes them; null when it may be sent. */
export function optionProblem(v: { seconds: string; ratio: string; reason: string }): string | null {
  const n = Number(v.seconds);
  if (!/^\d+$/.test(v.seconds) || n < 1 || n > 86_400) return m.op_sec_err_seconds();
  if (!PERCENT.test(v.ratio) || compareDecimal(v.ratio, "0") !== 1 || compareDecimal(v.ratio, "100") === 1) return m.op_sec_err_ratio();
  if (!v.reason.trim()) return m.op_reason_required();
  return null;
}

/** Checks of the currency form; null when it may be sent. */
export function currencyProblem(v: { numbers: string[]; min: string; max: string; fee: string; pair: string; user: string; reason: string }): string | null {
  if (v.numbers.length < 1 || v.numbers.length > 12 || v.numbers.some((x) => !DECIMAL.test(x) || compareDecimal(x, "0") !== 1)) return m.op_sec_err_numbers();
  if (![v.min, v.max, v.pair, v.user].every((x) => DECIMAL.test(x))) return m.op_sec_err_amount();
  if (compareDecimal(v.min, "0") !== 1 || compareDecimal(v.min, v.max) === 1) return m.op_sec_err_bounds();
  if (!PERCENT.test(v.fee) || compareDecimal(v.fee, "10") === 1) return m.op_sec_err_fee();
  if (!v.reason.trim()) return m.op_reason_required();
  return null;
}

/** "10, 50 100" → ["10", "50", "100"] */
export const splitNumbers = (text: string) => text.split(/[\s,;]+/).filter((x) => x !== "");

export function SecondsSettings() {
  const options = useSecondsOptions();
  const currencies = useSecondsCurrencies();
  const [editOption, setEditOption] = useState<AdminSecondsOption | "new" | null>(null);
  const [editCurrency, setEditCurrency] = useState<AdminPayableCurrency | null>(null);

  return (
    <section data-testid="admin-seconds">
      <p className="form-note">{m.op_sec_note()}</p>
      <div className={s.secHead}>
        <h3 className={s.adminSubtitle}>{m.op_sec_options()}</h3>
        <button type="button" className="btn btn-outline btn-small" onClick={() => setEditOption("new")} data-testid="sec-option-add">
          {m.op_sec_add()}
        </button>
      </div>
      {options.error && !options.data ? (
        <ErrorState message={options.error.message} onRetry={options.reload} />
      ) : !options.data ? (
        <SkeletonList rows={3} />
      ) : options.data.length === 0 ? (
        <EmptyState />
      ) : (
        <table className={`${acct.feeTable} ${s.adminTable}`} data-testid="sec-options">
          <thead>
            <tr>
              <th>{m.op_sec_seconds()}</th>
              <th className="right">{m.op_sec_ratio()}</th>
              <th>{m.op_sec_state()}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {[...options.data]
              .sort((a, b) => a.seconds - b.seconds)
              .map((o) => (
                <tr key={o.seconds} data-testid="sec-option-row">
                  <td className="num">{m.sec_seconds_short({ seconds: o.seconds })}</td>
                  <td className="right num">{o.profit_ratio}%</td>
                  <td>
                    <span className={`badge ${o.status === 1 ? "badge-ok" : "badge-none"}`}>{o.status === 1 ? m.op_sec_on() : m.op_sec_off()}</span>
                  </td>
                  <td className="right">
                    <button type="button" className="text-btn" onClick={() => setEditOption(o)} data-testid="sec-option-edit">
                      {m.op_sec_edit()}
                    </button>
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
      )}

      <h3 className={s.adminSubtitle}>{m.op_sec_currencies()}</h3>
      {currencies.error && !currencies.data ? (
        <ErrorState message={currencies.error.message} onRetry={currencies.reload} />
      ) : !currencies.data ? (
        <SkeletonList rows={2} />
      ) : currencies.data.length === 0 ? (
        <EmptyState />
      ) : (
        <ul className={acct.recordList}>
          {currencies.data.map((c) => (
            <li key={c.id} className={acct.recordCard} data-testid="sec-currency-row">
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>{c.name}</span>
                <span className={`badge ${c.status === 1 ? "badge-ok" : "badge-none"}`}>{c.status === 1 ? m.op_sec_on() : m.op_sec_off()}</span>
              </div>
              <dl className={acct.kv}>
                <Kv label={m.op_sec_numbers()}>{c.micro_numbers.map((n) => formatExact(n)).join(" · ")}</Kv>
                <Kv label={m.op_sec_bounds()}>
                  {formatExact(c.min_number)} – {formatExact(c.max_number)} {c.name}
                </Kv>
                <Kv label={m.op_sec_fee()}>{c.fee_percent}%</Kv>
                <Kv label={m.op_sec_pair_exposure()}>
                  {formatExact(c.pair_exposure)} {c.name}
                </Kv>
                <Kv label={m.op_sec_user_exposure()}>
                  {formatExact(c.user_exposure)} {c.name}
                </Kv>
              </dl>
              <div className={acct.btnRow}>
                <button type="button" className="btn btn-outline btn-small" onClick={() => setEditCurrency(c)} data-testid="sec-currency-edit">
                  {m.op_sec_edit()}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}

      {editOption && <OptionDialog option={editOption === "new" ? null : editOption} onClose={() => setEditOption(null)} />}
      {editCurrency && <CurrencyDialog currency={editCurrency} onClose={() => setEditCurrency(null)} />}
    </section>
  );
}

function OptionDialog({ option, onClose }: { option: AdminSecondsOption | null; onClose: () => void }) {
  const save = useSaveSecondsOption();
  const [seconds, setSeconds] = useState(option ? String(option.seconds) : "");
  const [ratio, setRatio] = useState(option?.profit_ratio ?? "");
  const [on, setOn] = useState(option ? option.status === 1 : true);
  const [reason, setReason] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const go = async (e?: FormEvent) => {
    e?.preventDefault();
    const problem = optionProblem({ seconds, ratio, reason });
    if (problem) {
      setError(problem);
      return;
    }
    setBusy(true);
    try {
      await save({ seconds: Number(seconds), profit_ratio: ratio, status: on ? 1 : 0, reason: reason.trim() });
      toast.success(m.op_sec_saved());
      onClose();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={option ? m.op_sec_edit_option({ seconds: option.seconds }) : m.op_sec_new_option()}
      onClose={onClose}
      busy={busy}
      testId="sec-option-dialog"
      actions={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={busy}>
            {m.cancel()}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void go()} disabled={busy} data-testid="sec-option-save">
            {busy && <Spinner size={16} />}
            {m.op_sec_save()}
          </button>
        </>
      }
    >
      <form className={`form ${s.secForm}`} onSubmit={(e) => void go(e)} noValidate>
        <label className="field">
          <span className="field-label">{m.op_sec_seconds()}</span>
          <input className="input" inputMode="numeric" value={seconds} disabled={option !== null} onChange={(e) => setSeconds(e.target.value.replace(/\D/g, ""))} data-testid="sec-option-seconds" />
        </label>
        <label className="field">
          <span className="field-label">{m.op_sec_ratio()}</span>
          <input className="input" inputMode="decimal" value={ratio} onChange={(e) => setRatio(e.target.value.trim())} data-testid="sec-option-ratio" />
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={on} onChange={(e) => setOn(e.target.checked)} data-testid="sec-option-on" />
          <span className="checkbox-box" aria-hidden="true">
            <Icon name="check" size={14} />
          </span>
          <span>{m.op_sec_offered()}</span>
        </label>
        <label className="field">
          <span className="field-label">{m.op_reason()}</span>
          <input className="input" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="sec-option-reason" />
        </label>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </Modal>
  );
}

function CurrencyDialog({ currency, onClose }: { currency: AdminPayableCurrency; onClose: () => void }) {
  const save = useSaveSecondsCurrency();
  const [numbers, setNumbers] = useState(currency.micro_numbers.join(", "));
  const [min, setMin] = useState(currency.min_number);
  const [max, setMax] = useState(currency.max_number);
  const [fee, setFee] = useState(currency.fee_percent);
  const [pair, setPair] = useState(currency.pair_exposure);
  const [user, setUser] = useState(currency.user_exposure);
  const [on, setOn] = useState(currency.status === 1);
  const [reason, setReason] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const go = async (e?: FormEvent) => {
    e?.preventDefault();
    const list = splitNumbers(numbers);
    const problem = currencyProblem({ numbers: list, min, max, fee, pair, user, reason });
    if (problem) {
      setError(problem);
      return;
    }
    setBusy(true);
    try {
      await save({ currency_id: currency.id, micro_numbers: list, min_number: min, max_number: max, fee_percent: fee, pair_exposure: pair, user_exposure: user, status: on ? 1 : 0, reason: reason.trim() });
      toast.success(m.op_sec_saved());
      onClose();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  const field = (label: string, value: string, set: (v: string) => void, id: string, hint?: string) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <input className="input" inputMode="decimal" value={value} onChange={(e) => set(e.target.value.trim())} data-testid={id} />
      {hint && <span className="form-note">{hint}</span>}
    </label>
  );
  return (
    <Modal
      title={m.op_sec_edit_currency({ name: currency.name })}
      onClose={onClose}
      busy={busy}
      testId="sec-currency-dialog"
      actions={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={busy}>
            {m.cancel()}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void go()} disabled={busy} data-testid="sec-currency-save">
            {busy && <Spinner size={16} />}
            {m.op_sec_save()}
          </button>
        </>
      }
    >
      <form className={`form ${s.secForm}`} onSubmit={(e) => void go(e)} noValidate>
        <label className="field">
          <span className="field-label">{m.op_sec_numbers()}</span>
          <input className="input" value={numbers} onChange={(e) => setNumbers(e.target.value)} data-testid="sec-currency-numbers" />
          <span className="form-note">{m.op_sec_numbers_hint()}</span>
        </label>
        {field(m.op_sec_min(), min, setMin, "sec-currency-min")}
        {field(m.op_sec_max(), max, setMax, "sec-currency-max")}
        {field(m.op_sec_fee(), fee, setFee, "sec-currency-fee")}
        {field(m.op_sec_pair_exposure(), pair, setPair, "sec-currency-pair", m.op_sec_exposure_hint())}
        {field(m.op_sec_user_exposure(), user, setUser, "sec-currency-user")}
        <label className="checkbox">
          <input type="checkbox" checked={on} onChange={(e) => setOn(e.target.checked)} data-testid="sec-currency-on" />
          <span className="checkbox-box" aria-hidden="true">
            <Icon name="check" size={14} />
          </span>
          <span>{m.op_sec_accepted()}</span>
        </label>
        <label className="field">
          <span className="field-label">{m.op_reason()}</span>
          <input className="input" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="sec-currency-reason" />
        </label>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </Modal>
  );
}
