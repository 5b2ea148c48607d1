/**
 * Seconds contracts in the console (/admin/seconds): the duration options (seconds, payout ratio,
 * offered or withdrawn) and the payable currencies (amount choices, smallest and largest stake,
 * fee, the house's exposure limits per pair and per user, on or off). Every edit carries a reason
 * and is audited by the server; it applies to contracts accepted afterwards. Nothing here names a
 * contract, a user or an outcome: there is no such setting.
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { compareDecimal } from "../../../lib/amount.ts";
import { useSaveSecondsCurrency, useSaveSecondsOption, useSecondsCurrencies, useSecondsOptions, type AdminPayableCurrency, type AdminSecondsOption } from "../api.ts";
import { Kv } from "./common.tsx";
import { CheckField, FormDialog, Loaded, OnOff, ReasonField, RecordActions, RecordCard, SectionHead, TextField, useFormSave, RecordList } from "./kit.tsx";
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
  const onOff = (status: number) => <OnOff on={status === 1} onText={m.op_sec_on()} offText={m.op_sec_off()} />;

  return (
    <section data-testid="admin-seconds">
      <p className="form-note">{m.op_sec_note()}</p>
      <SectionHead title={m.op_sec_options()} action={m.op_sec_add()} onAction={() => setEditOption("new")} actionTestId="sec-option-add" />
      <Loaded q={options} rows={3} empty={(d) => d.length === 0}>
        {(list) => (
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
              {[...list]
                .sort((a, b) => a.seconds - b.seconds)
                .map((o) => (
                  <tr key={o.seconds} data-testid="sec-option-row">
                    <td className="num">{m.sec_seconds_short({ seconds: o.seconds })}</td>
                    <td className="right num">{o.profit_ratio}%</td>
                    <td>{onOff(o.status)}</td>
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
      </Loaded>

      <h3 className={s.adminSubtitle}>{m.op_sec_currencies()}</h3>
      <RecordList q={currencies} rows={2}>
        {(c) => (
        <RecordCard
          key={c.id}
          title={c.name}
          badge={onOff(c.status)}
          testId="sec-currency-row"
          actions={
            <RecordActions>
              <button type="button" className="btn btn-outline btn-small" onClick={() => setEditCurrency(c)} data-testid="sec-currency-edit">
                {m.op_sec_edit()}
              </button>
            </RecordActions>
          }
        >
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
        </RecordCard>
        )}
      </RecordList>

      {editOption && <OptionDialog option={editOption === "new" ? null : editOption} onClose={() => setEditOption(null)} />}
      {editCurrency && <CurrencyDialog currency={editCurrency} onClose={() => setEditCurrency(null)} />}
    </section>
  );
}

function OptionDialog({ option, onClose }: { option: AdminSecondsOption | null; onClose: () => void }) {
  const saveOption = useSaveSecondsOption();
  const [seconds, setSeconds] = useState(option ? String(option.seconds) : "");
  const [ratio, setRatio] = useState(option?.profit_ratio ?? "");
  const [on, setOn] = useState(option ? option.status === 1 : true);
  const [reason, setReason] = useState("");
  const { busy, error, save } = useFormSave(onClose, m.op_sec_saved);
  const go = () => save(optionProblem({ seconds, ratio, reason }), () => saveOption({ seconds: Number(seconds), profit_ratio: ratio, status: on ? 1 : 0, reason: reason.trim() }));
  return (
    <FormDialog title={option ? m.op_sec_edit_option({ seconds: option.seconds }) : m.op_sec_new_option()} testId="sec-option-dialog" onClose={onClose} onSave={go} saveText={m.op_sec_save()} saveTestId="sec-option-save" busy={busy} error={error}>
      <TextField label={m.op_sec_seconds()} mode="numeric" value={seconds} disabled={option !== null} onChange={(v) => setSeconds(v.replace(/\D/g, ""))} testId="sec-option-seconds" />
      <TextField label={m.op_sec_ratio()} mode="decimal" value={ratio} onChange={(v) => setRatio(v.trim())} testId="sec-option-ratio" />
      <CheckField label={m.op_sec_offered()} checked={on} onChange={setOn} testId="sec-option-on" />
      <ReasonField value={reason} onChange={setReason} testId="sec-option-reason" />
    </FormDialog>
  );
}

function CurrencyDialog({ currency, onClose }: { currency: AdminPayableCurrency; onClose: () => void }) {
  const saveCurrency = useSaveSecondsCurrency();
  const [numbers, setNumbers] = useState(currency.micro_numbers.join(", "));
  const [min, setMin] = useState(currency.min_number);
  const [max, setMax] = useState(currency.max_number);
  const [fee, setFee] = useState(currency.fee_percent);
  const [pair, setPair] = useState(currency.pair_exposure);
  const [user, setUser] = useState(currency.user_exposure);
  const [on, setOn] = useState(currency.status === 1);
  const [reason, setReason] = useState("");
  const { busy, error, save } = useFormSave(onClose, m.op_sec_saved);
  const go = () => {
    const list = splitNumbers(numbers);
    save(currencyProblem({ numbers: list, min, max, fee, pair, user, reason }), () =>
      saveCurrency({ currency_id: currency.id, micro_numbers: list, min_number: min, max_number: max, fee_percent: fee, pair_exposure: pair, user_exposure: user, status: on ? 1 : 0, reason: reason.trim() }),
    );
  };
  const field = (label: string, value: string, set: (v: string) => void, id: string, hint?: string) => <TextField label={label} mode="decimal" value={value} onChange={(v) => set(v.trim())} testId={id} hint={hint} />;
  return (
    <FormDialog title={m.op_sec_edit_currency({ name: currency.name })} testId="sec-currency-dialog" onClose={onClose} onSave={go} saveText={m.op_sec_save()} saveTestId="sec-currency-save" busy={busy} error={error}>
      <TextField label={m.op_sec_numbers()} value={numbers} onChange={setNumbers} testId="sec-currency-numbers" hint={m.op_sec_numbers_hint()} />
      {field(m.op_sec_min(), min, setMin, "sec-currency-min")}
      {field(m.op_sec_max(), max, setMax, "sec-currency-max")}
      {field(m.op_sec_fee(), fee, setFee, "sec-currency-fee")}
      {field(m.op_sec_pair_exposure(), pair, setPair, "sec-currency-pair", m.op_sec_exposure_hint())}
      {field(m.op_sec_user_exposure(), user, setUser, "sec-currency-user")}
      <CheckField label={m.op_sec_accepted()} checked={on} onChange={setOn} testId="sec-currency-on" />
      <ReasonField value={reason} onChange={setReason} testId="sec-currency-reason" />
    </FormDialog>
  );
}
