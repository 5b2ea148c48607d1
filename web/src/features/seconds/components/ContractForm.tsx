/**
 * The contract form (spec §2 /trade order form, §5 validation): up or down, the payable currency,
 * the amount (its choices from micro_numbers, or typed) with the micro account's available
 * balance and a transfer link when it is short, the duration with each option's payout ratio.
 * Before anything is confirmed it shows the fee and, net of it both ways, what a right call wins
 * and a wrong one loses, and the tie rule; the first contract asks for the risk disclosure to be accepted; a confirm dialog
 * repeats the terms. The amounts shown are computed exactly as the server books them (logic.ts).
 */
import { useMemo, useState, type FormEvent } from "react";
import { Link } from "react-router";
import { DEFAULT_SECONDS, SECONDS_FEE_PERCENT } from "../../../../../schemas/seconds.ts";
import { m } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { decimalsOf, sanitizeAmountInput } from "../../../lib/amount.ts";
import { currencyDecimals, formatAmount, formatExact, formatPrice, formatMoneyMoved } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { Icon } from "../../../components/Icon.tsx";
import { Modal } from "../../../components/Modal.tsx";
import { Spinner } from "../../../components/States.tsx";
import { useOptions, usePayable, useScales, useSubmit, type PairRow, type PayableCurrency, type SecondsOrder } from "../api.ts";
import { useRiskAccepted } from "../hooks.ts";
import { checkStake, previewContract, type StakeProblem } from "../logic.ts";
import { newClientOrderId, signedResult } from "../display.ts";
import { RiskDialog } from "./RiskDialog.tsx";
import { loginPath, navigateTo } from "../../../lib/nav.ts";
import { useLoggedIn } from "../../../lib/session.ts";
import s from "./seconds.module.css";

export type Direction = 1 | 2;

/** The message of a stake the form refuses before sending. */
export function stakeProblemText(p: StakeProblem, currency: string): string {
  switch (p.key) {
    case "empty":
      return m.sec_err_amount_empty();
    case "format":
      return m.sec_err_amount_format();
    case "decimals":
      return m.sec_err_amount_decimals({ decimals: p.decimals });
    case "min":
      return m.sec_err_amount_min({ min: formatMoneyMoved(p.min, currency), currency });
    case "max":
      return m.sec_err_amount_max({ max: formatMoneyMoved(p.max, currency), currency });
    case "balance":
      return m.sec_err_balance({ cost: formatMoneyMoved(p.cost, currency), currency });
  }
}

export function ContractForm({
  pair,
  index,
  onPlaced,
  initialDirection = 1,
  onDirection,
  testIdPrefix = "sec",
}: {
  pair: PairRow;
  index: string | null;
  onPlaced: (order: SecondsOrder) => void;
  initialDirection?: Direction;
  onDirection?: (d: Direction) => void;
  testIdPrefix?: string;
}) {
  const options = useOptions();
  const payable = usePayable();
  const scales = useScales();
  const submit = useSubmit();
  const [riskAccepted, acceptRisk] = useRiskAccepted();
  const loggedIn = useLoggedIn();

  const [direction, setDirection] = useState<Direction>(initialDirection);
  const [currencyId, setCurrencyId] = useState<number | null>(null);
  const [amount, setAmount] = useState("");
  const [seconds, setSeconds] = useState<number | null>(null);
  // An error belongs to the inputs it was found for: changing any of them clears it.
  const [failure, setFailure] = useState<{ text: string; inputs: string } | null>(null);
  const [step, setStep] = useState<"form" | "risk" | "confirm">("form");
  const [busy, setBusy] = useState(false);
  /** The server's price_moved refusal, shown on the confirmation with the new index until the user confirms again. */
  const [moved, setMoved] = useState<string | null>(null);
  const tid = (name: string) => `${testIdPrefix}-${name}`;

  const active = useMemo(() => (options.data ?? []).filter((o) => o.status === 1).sort((a, b) => a.seconds - b.seconds), [options.data]);
  const currencies = payable.data ?? [];
  const currency: PayableCurrency | null = currencies.find((c) => c.id === currencyId) ?? currencies[0] ?? null;
  const option = active.find((o) => o.seconds === seconds) ?? active.find((o) => o.seconds === DEFAULT_SECONDS) ?? active[0] ?? null;
  const scale = currency ? (scales.data?.find((c) => c.currency === currency.id)?.decimals ?? Math.max(decimalsOf(currency.user_wallet?.micro_balance ?? ""), 8)) : 8;
  const feePercent = currency?.fee_percent ?? SECONDS_FEE_PERCENT;
  const balance = currency?.user_wallet?.micro_balance ?? null;
  const name = currency?.name ?? "";

  const inputs = `${amount}|${currency?.id}|${option?.seconds}|${direction}`;
  const error = failure && failure.inputs === inputs ? failure.text : "";
  const setError = (text: string) => setFailure({ text, inputs });

  const preview = option && amount ? previewContract(amount, option.profit_ratio, feePercent, scale) : null;
  const netTone = preview ? signedResult(preview.winNet, name).tone : "flat";
  const problem = currency ? checkStake(amount, { min: currency.min_number, max: currency.max_number, scale, feePercent, balance }) : null;
  const short = problem?.key === "balance" || (balance !== null && /^0*(\.0*)?$/.test(balance));

  const choose = (d: Direction) => {
    setDirection(d);
    onDirection?.(d);
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    // Open to guests: buying asks them to log in and brings them back to this screen.
    if (!loggedIn) return navigateTo(loginPath());
    if (!currency || !option) return;
    if (problem) {
      setError(stakeProblemText(problem, name));
      return;
    }
    if (index === null) {
      setError(m.sec_no_index());
      return;
    }
    setStep(riskAccepted ? "confirm" : "risk");
  };

  const send = async () => {
    if (!currency || !option || busy) return;
    setBusy(true);
    try {
      const order = await submit({
        match_id: pair.id,
        currency_id: currency.id,
        type: direction,
        seconds: option.seconds,
        number: amount.trim(),
        client_oid: newClientOrderId(),
        ...(index === null ? {} : { index_price: index }),
      });
      setMoved(null);
      toast.success(m.sec_placed({ direction: direction === 1 ? m.sec_up() : m.sec_down(), seconds: option.seconds }));
      setStep("form");
      onPlaced(order);
    } catch (err) {
      if (err instanceof ApiFailure && err.code === "price_moved") {
        // The confirmation stays, showing the index now (it follows the book) under the server's
        // message: what the user confirms next is the new price. Nothing was held.
        setMoved(err.message);
        return;
      }
      setMoved(null);
      setStep("form");
      // 997/998/999 are handled by the API client (dialog to /verifyed, or log in again).
      if (err instanceof ApiFailure && err.kind !== "998" && err.kind !== "997" && err.kind !== "999") {
        const text = `${m.sec_apitip()}${err.message}`;
        setError(text);
        toast.error(text);
      }
    } finally {
      setBusy(false);
    }
  };

  if ((options.error && !options.data) || (payable.error && !payable.data)) {
    return (
      <div className={s.form}>
        <p className="field-error" role="alert">{(options.error ?? payable.error)?.message}</p>
        <button type="button" className="btn btn-outline btn-small" onClick={() => { options.reload(); payable.reload(); }}>
          {m.retry()}
        </button>
      </div>
    );
  }
  if (!options.data || !payable.data) {
    return (
      <div className={s.form} aria-busy="true">
        <Spinner />
      </div>
    );
  }

  const dirLabel = direction === 1 ? m.sec_up() : m.sec_down();
  return (
    <form className={s.form} onSubmit={onSubmit} noValidate data-testid={tid("form")}>
      <div className={s.dirToggle} role="radiogroup" aria-label={m.sec_direction_label()}>
        <button type="button" role="radio" aria-checked={direction === 1} className={`${direction === 1 ? "active" : ""} ${s.up}`} onClick={() => choose(1)} data-testid={tid("dir-up")}>
          {m.sec_up()}
        </button>
        <button type="button" role="radio" aria-checked={direction === 2} className={`${direction === 2 ? "active" : ""} ${s.down}`} onClick={() => choose(2)} data-testid={tid("dir-down")}>
          {m.sec_down()}
        </button>
      </div>

      <label className={s.field}>
        <span className={s.fieldLabel}>{m.sec_pay_with()}</span>
        <span className={`select-wrap ${s.selectBox}`}>
          <select className={`input ${s.select}`} value={currency?.id ?? ""} onChange={(e) => { setCurrencyId(Number(e.target.value)); setAmount(""); }} data-testid={tid("currency")}>
            {currencies.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          <Icon name="chevronDown" size={18} className="select-caret" />
        </span>
      </label>

      <div className={s.field}>
        <span className={s.fieldLabel} id={tid("amount-label")}>
          {m.sec_amount()}
        </span>
        {currency && currency.micro_numbers.length > 0 && (
          <div className={s.chips} role="group" aria-labelledby={tid("amount-label")}>
            {currency.micro_numbers.map((n) => (
              <button key={n} type="button" className={amount === n ? "active" : ""} aria-pressed={amount === n} onClick={() => setAmount(n)} data-testid={tid("amount-choice")}>
                {formatExact(n)}
              </button>
            ))}
          </div>
        )}
        <span className={s.inputWrap}>
          <input
            className={`input ${s.input}`}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            placeholder={currency ? m.sec_amount_range({ min: formatExact(currency.min_number), max: formatExact(currency.max_number) }) : ""}
            onChange={(e) => setAmount(sanitizeAmountInput(e.target.value, scale))}
            aria-labelledby={tid("amount-label")}
            aria-invalid={error !== "" && problem !== null}
            data-testid={tid("amount")}
          />
          <span className={s.unit}>{name}</span>
        </span>
        <span className={s.available}>
          {m.sec_available()} <span className="num" data-testid={tid("available")}>{balance === null ? "--" : formatAmount(balance, currencyDecimals(name))}</span> {name}
          {short && (
            <Link to="/transfer" className={s.transferLink} data-testid={tid("transfer-link")}>
              {m.sec_transfer_in()}
            </Link>
          )}
        </span>
      </div>

      <div className={s.field}>
        <span className={s.fieldLabel} id={tid("duration-label")}>
          {m.sec_duration()}
        </span>
        {active.length === 0 ? (
          <p className="muted">{m.sec_no_options()}</p>
        ) : (
          <div className={s.durations} role="radiogroup" aria-labelledby={tid("duration-label")}>
            {active.map((o) => (
              <button key={o.seconds} type="button" role="radio" aria-checked={option?.seconds === o.seconds} className={option?.seconds === o.seconds ? "active" : ""} onClick={() => setSeconds(o.seconds)} data-testid={tid("duration")} data-seconds={o.seconds}>
                <span className="num">{m.sec_seconds_short({ seconds: o.seconds })}</span>{" "}
                <small className="num">{m.sec_ratio({ ratio: o.profit_ratio })}</small>
              </button>
            ))}
          </div>
        )}
      </div>

      <dl className={s.facts} data-testid={tid("preview")}>
        <div>
          <dt>{m.sec_fee({ percent: feePercent })}</dt>
          <dd className="num" data-testid={tid("fee")}>{preview ? `${formatMoneyMoved(preview.fee, name)} ${name}` : "--"}</dd>
        </div>
        <div>
          <dt>{m.sec_if_right()}</dt>
          <dd className={`num ${netTone}`} data-testid={tid("win")}>{preview ? `${signedResult(preview.winNet, name).text} ${name}` : "--"}</dd>
        </div>
        <div>
          <dt>{m.sec_worst_case()}</dt>
          <dd className="num down" data-testid={tid("worst")}>{preview ? `${formatMoneyMoved(preview.worst, name)} ${name}` : "--"}</dd>
        </div>
      </dl>
      {preview && (
        <p className={s.note} data-testid={tid("net-note")}>
          {m.sec_net_note({ win: formatMoneyMoved(preview.win, name), stake: formatMoneyMoved(amount, name), fee: formatMoneyMoved(preview.fee, name), currency: name })}
        </p>
      )}
      <p className={s.note} data-testid={tid("tie-rule")}>{m.sec_tie_rule()}</p>

      {error && (
        <p className="field-error" role="alert" data-testid={tid("error")}>
          {error}
        </p>
      )}
      <button type="submit" className={`btn ${s.submit} ${direction === 1 ? s.up : s.down}`} disabled={busy || !option || !currency} data-testid={tid("submit")}>
        {busy && <Spinner size={16} />}
        {option ? m.sec_buy({ direction: dirLabel, seconds: option.seconds }) : dirLabel}
      </button>

      {step === "risk" && (
        <RiskDialog
          onAccept={() => {
            acceptRisk();
            setStep("confirm");
          }}
          onClose={() => setStep("form")}
        />
      )}
      {step === "confirm" && option && preview && (
        <Modal
          title={m.sec_confirm_title()}
          onClose={() => {
            setMoved(null);
            setStep("form");
          }}
          busy={busy}
          testId={tid("confirm")}
          dismiss={{ onClick: () => setStep("form") }}
          actions={
            <button type="button" className={`btn ${s.submit} ${direction === 1 ? s.up : s.down}`} onClick={() => void send()} disabled={busy} data-testid={tid("confirm-go")}>
              {busy && <Spinner size={16} />}
              {m.confirm()}
            </button>
          }
        >
          {moved && (
            <p className={`field-error ${s.confirmMoved}`} role="alert" data-testid={tid("confirm-moved")}>
              {moved}
            </p>
          )}
          <dl className={s.confirmFacts}>
            <div>
              <dt>{m.sec_col_symbol()}</dt>
              <dd>{pair.currency_name}/{pair.legal_name}</dd>
            </div>
            <div>
              <dt>{m.sec_col_direction()}</dt>
              <dd className={direction === 1 ? "up" : "down"}>{dirLabel}</dd>
            </div>
            <div>
              <dt>{m.sec_amount()}</dt>
              <dd className="num">{formatMoneyMoved(amount, name)} {name}</dd>
            </div>
            <div>
              <dt>{m.sec_duration()}</dt>
              <dd className="num">{m.sec_seconds_short({ seconds: option.seconds })} · {m.sec_ratio({ ratio: option.profit_ratio })}</dd>
            </div>
            <div>
              <dt>{m.sec_index_now()}</dt>
              <dd className="num">{formatPrice(index)}</dd>
            </div>
            <div>
              <dt>{m.sec_fee({ percent: feePercent })}</dt>
              <dd className="num" data-testid={tid("confirm-fee")}>{formatMoneyMoved(preview.fee, name)} {name}</dd>
            </div>
            <div>
              <dt>{m.sec_if_right()}</dt>
              <dd className={`num ${netTone}`} data-testid={tid("confirm-win")}>{signedResult(preview.winNet, name).text} {name}</dd>
            </div>
            <div>
              <dt>{m.sec_worst_case()}</dt>
              <dd className="num down" data-testid={tid("confirm-worst")}>{formatMoneyMoved(preview.worst, name)} {name}</dd>
            </div>
          </dl>
          <p className={s.note}>{m.sec_net_note({ win: formatMoneyMoved(preview.win, name), stake: formatMoneyMoved(amount, name), fee: formatMoneyMoved(preview.fee, name), currency: name })}</p>
          <p className={s.note}>{m.sec_tie_rule()}</p>
          <p className={s.note}>{m.sec_entry_note()}</p>
        </Modal>
      )}
    </form>
  );
}
