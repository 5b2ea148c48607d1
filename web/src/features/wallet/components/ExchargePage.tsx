/**
 * Flash exchange (spec §2 Conversion, §5): a coin to USDT or USDT to a coin, against the
 * exchange at the coin's last traded price (a coin that never traded cannot be converted).
 * The rate (8 decimals), the fee tier and fee, the amount received (5 decimals) and the
 * USDT min / max are computed live exactly as the server will. Exchanging asks the server for a
 * quote that holds for 10 s: the dialog shows it with a countdown, and confirming executes exactly
 * that quote, or the server refuses it once expired (then a new quote can be asked for).
 */
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { sanitizeAmountInput } from "../../../lib/amount.ts";
import { showMoneyToast, STATEMENT_ROUTE } from "../../../lib/toast.ts";
import { navigateTo } from "../../../lib/nav.ts";
import { CoinAvatar } from "../../../components/CoinAvatar.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { Modal } from "../../../components/Modal.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { requestQuote, USDT_ID, useConversionSettings, useConvert, useUserWallet, type ConversionResult } from "../api.ts";
import { conversionQuote, trimZeros } from "../math.ts";
import acct from "../../../components/account.module.css";
import { formatExact, formatMoney, formatMoneyMoved, formatPrice } from "../../../lib/format.ts";

type Direction = "coin_to_usdt" | "usdt_to_coin";

export default function ExchargePage() {
  const settings = useConversionSettings();
  const wallet = useUserWallet();
  const convert = useConvert();
  const [direction, setDirection] = useState<Direction>("coin_to_usdt");
  const [coin, setCoin] = useState<number | null>(null);
  const [amount, setAmount] = useState("");
  const [error, setError] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ConversionResult | null>(null);
  /** The server's quote being confirmed, and when (by this clock) it stops holding. */
  const [held, setHeld] = useState<{ quote: Awaited<ReturnType<typeof requestQuote>>; until: number } | null>(null);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!held) return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [held]);
  const secondsLeft = held ? Math.max(0, Math.ceil((held.until - now) / 1000)) : 0;

  const s = settings.data;
  const w = wallet.data;
  const coins = s?.prices ?? [];
  // Default coin: the first one that has a price (else the first one).
  const coinId = coin ?? coins.find((c) => c.price !== null)?.currency_id ?? coins[0]?.currency_id ?? null;
  const coinRow = coins.find((c) => c.currency_id === coinId);
  const coinWallet = w?.find((x) => x.currency === coinId);
  const usdtWallet = w?.find((x) => x.currency === USDT_ID);
  const fromId = direction === "coin_to_usdt" ? coinId : USDT_ID;
  const toId = direction === "coin_to_usdt" ? USDT_ID : coinId;
  const fromWallet = direction === "coin_to_usdt" ? coinWallet : usdtWallet;
  const fromName = direction === "coin_to_usdt" ? (coinRow?.currency_name ?? "") : "USDT";
  const toName = direction === "coin_to_usdt" ? "USDT" : (coinRow?.currency_name ?? "");
  const fromScale = fromWallet?.decimals ?? 8;
  const available = fromWallet?.change_balance ?? "0";

  const quote = useMemo(
    () =>
      s && coinRow
        ? conversionQuote({
            direction,
            money: amount,
            price: coinRow.price,
            coinScale: coinWallet?.decimals ?? 8,
            usdtScale: usdtWallet?.decimals ?? 8,
            available,
            terms: s,
          })
        : null,
    [s, coinRow, direction, amount, coinWallet, usdtWallet, available],
  );

  const problemText = (): string => {
    if (!quote?.problem || !s) return "";
    if (quote.problem === "no_price") return errText("no_price", { currency: coinRow?.currency_name ?? "" });
    if (quote.problem === "below_min") return errText("below_min", { min: `${s.shanduiMin} USDT` });
    if (quote.problem === "above_max") return errText("above_max", { max: `${s.shanduiMax} USDT` });
    return errText(quote.problem, { decimals: fromScale });
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!quote) return;
    if (!amount) {
      setError(errText("amount_positive"));
      return;
    }
    if (quote.problem) {
      setError(problemText());
      return;
    }
    void fetchQuote();
  };

  const fetchQuote = async () => {
    if (fromId === null || toId === null || busy) return;
    setBusy(true);
    try {
      const q = await requestQuote({ from_currency: fromId, to_currency: toId, money: amount });
      // Count down from receipt, half a second early, so the server never sees it late.
      setHeld({ quote: q, until: Date.now() + q.ttl_seconds * 1000 - 500 });
      setNow(Date.now());
      setConfirming(true);
    } catch (err) {
      showFailure(err);
    } finally {
      setBusy(false);
    }
  };

  /** A refusal under the form (997/998/999 are handled by the API client's dialogs). */
  const showFailure = (err: unknown) => {
    const f = err instanceof ApiFailure ? err : null;
    if (f && (f.kind === "997" || f.kind === "998" || f.kind === "999")) return;
    setError(f?.message ?? m.request_failed());
    settings.reload();
  };

  const send = async () => {
    if (!held || busy) return;
    setBusy(true);
    try {
      const res = await convert({ quote_id: held.quote.quote_id });
      setResult(res);
      setConfirming(false);
      setHeld(null);
      setAmount("");
      showMoneyToast(m.wallet_convert_done(), { label: m.statement_view(), onTap: () => navigateTo(STATEMENT_ROUTE) });
      wallet.reload();
      settings.reload();
    } catch (err) {
      setConfirming(false);
      setHeld(null);
      showFailure(err);
    } finally {
      setBusy(false);
    }
  };

  if ((settings.error && !s) || (wallet.error && !w)) {
    return <ErrorState message={(settings.error ?? wallet.error)?.message} onRetry={() => { settings.reload(); wallet.reload(); }} />;
  }
  if (!s || !w) return <div className={acct.acctPage}><SkeletonBlock height={420} /></div>;

  const coinSelect = (
    <div className={`select-wrap ${acct.convertSelect}`}>
      <select
        className="input"
        value={coinId ?? ""}
        onChange={(e) => {
          setCoin(Number(e.target.value));
          setAmount("");
          setError("");
          setResult(null);
        }}
        data-testid="convert-coin"
        aria-label={m.wallet_coin()}
      >
        {coins.map((c) => (
          <option key={c.currency_id} value={c.currency_id}>
            {c.currency_name}
          </option>
        ))}
      </select>
      <Icon name="chevronDown" size={18} className="select-caret" />
    </div>
  );
  const usdtBox = (
    <div className={acct.convertFixed}>
      <CoinAvatar symbol="USDT" size={22} /> USDT
    </div>
  );

  return (
    <div className={acct.acctPage} data-testid="excharge-page">
      <form className="form" onSubmit={onSubmit} noValidate>
        <section className={`card ${acct.convertCard}`}>
          <div className={acct.convertSide}>
            <div className={`field-label ${acct.fieldLabelRow}`}>
              <span>{m.wallet_from()}</span>
              <span className={acct.labelActions}>
                <span className="muted num" data-testid="convert-available">
                  {m.wallet_available({ amount: `${formatMoney(available, fromName)} ${fromName}` })}
                </span>
                <button type="button" className="text-btn" onClick={() => { setAmount(trimZeros(available)); setError(""); setResult(null); }} data-testid="convert-all">
                  {m.wallet_all()}
                </button>
              </span>
            </div>
            <div className={acct.convertRow}>
              {direction === "coin_to_usdt" ? coinSelect : usdtBox}
              <input
                className={`input ${acct.convertAmount}`}
                inputMode="decimal"
                autoComplete="off"
                placeholder={m.wallet_amount_placeholder()}
                value={amount}
                onChange={(e) => {
                  setAmount(sanitizeAmountInput(e.target.value, fromScale));
                  setError("");
                  setResult(null);
                }}
                aria-label={m.wallet_amount()}
                aria-invalid={!!error}
                data-testid="convert-amount"
              />
            </div>
          </div>
          <button
            type="button"
            className={acct.swapBtn}
            onClick={() => {
              setDirection(direction === "coin_to_usdt" ? "usdt_to_coin" : "coin_to_usdt");
              setAmount("");
              setError("");
              setResult(null);
            }}
            aria-label={m.wallet_swap()}
            data-testid="convert-swap"
          >
            <Icon name="exchange" size={18} />
          </button>
          <div className={acct.convertSide}>
            <div className="field-label">{m.wallet_to()}</div>
            <div className={acct.convertRow}>
              {direction === "coin_to_usdt" ? usdtBox : coinSelect}
              <div className={`${acct.convertReceive} num`} data-testid="convert-receive">
                {quote && amount ? `≈ ${formatMoney(quote.receivedDisplay, toName)}` : "0"}
              </div>
            </div>
          </div>
        </section>
        {error && <p className="field-error" data-testid="convert-error">{error}</p>}
        {!error && quote?.problem && amount && <p className="field-error">{problemText()}</p>}
        {coinRow && coinRow.price === null && <p className={`${acct.notice} ${acct.noticeWarn}`}>{errText("no_price", { currency: coinRow.currency_name })}</p>}

        <section className={acct.summary} data-testid="convert-summary">
          <div className={acct.kvRow}>
            <span>{m.wallet_rate()}</span>
            <span className="num" data-testid="convert-rate">
              {quote && quote.rate !== "--" ? `1 ${fromName} = ${formatExact(quote.rate)} ${toName}` : "--"}
            </span>
          </div>
          <div className={acct.kvRow}>
            <span>{m.wallet_last_price()}</span>
            <span className="num">{coinRow?.price ? `${formatPrice(coinRow.price)} USDT` : m.wallet_no_price_short()}</span>
          </div>
          <div className={acct.kvRow}>
            <span>{m.wallet_fee_tier()}</span>
            <span className="num" data-testid="convert-tier">
              {m.wallet_fee_tiers({ low: s.shandui_sxf1, high: s.shandui_sxf2, threshold: formatMoney(s.shandui_sxf_money, "USDT") })}
            </span>
          </div>
          <div className={acct.kvRow}>
            <span>{m.wallet_fee()}</span>
            <span className="num" data-testid="convert-fee">
              {quote && amount ? `${formatMoneyMoved(quote.fee, "USDT")} USDT (${quote.feePercent}%)` : "--"}
            </span>
          </div>
          <div className={`${acct.kvRow} muted`}>
            <span>{m.wallet_convert_limits()}</span>
            <span className="num">{formatMoney(s.shanduiMin, "USDT")} – {formatMoney(s.shanduiMax, "USDT")} USDT</span>
          </div>
          {Number(s.shandui_time) > 0 && <p className="form-note">{m.wallet_convert_interval({ minutes: s.shandui_time })}</p>}
          <p className="form-note">{m.wallet_convert_note()}</p>
        </section>

        <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy || !coinRow?.price} data-testid="convert-submit">
          {m.wallet_convert_button()}
        </button>
        <Link to="/excharge/log" className={`text-btn ${acct.centerBtn}`} data-testid="convert-records">
          {m.wallet_convert_records()}
        </Link>
      </form>

      {result && (
        <section className={`card ${acct.resultCard}`} data-testid="convert-result">
          <h2 className="section-title">{m.wallet_convert_result()}</h2>
          <dl className={acct.kv}>
            <div className={acct.kvRow}><dt>{m.wallet_paid()}</dt><dd className="num">{formatMoney(result.money, result.from)} {result.from}</dd></div>
            <div className={acct.kvRow}><dt>{m.wallet_received()}</dt><dd className="num" data-testid="result-received">{formatMoney(result.money2, result.to)} {result.to}</dd></div>
            <div className={acct.kvRow}><dt>{m.wallet_rate()}</dt><dd className="num">{result.huilv}</dd></div>
            <div className={acct.kvRow}><dt>{m.wallet_fee()}</dt><dd className="num">{formatMoneyMoved(result.sxf, "USDT")} USDT ({result.fee_percent}%)</dd></div>
          </dl>
        </section>
      )}

      {confirming && held && (
        <Modal
          title={m.wallet_confirm_convert()}
          onClose={() => { setConfirming(false); setHeld(null); }}
          busy={busy}
          testId="convert-confirm"
          dismiss
          actions={
            <>
              {secondsLeft > 0 ? (
                <button type="button" className="btn btn-primary" onClick={send} disabled={busy} data-testid="convert-confirm-button">
                  {busy && <Spinner size={16} />}
                  {m.confirm()} ({secondsLeft})
                </button>
              ) : (
                <button type="button" className="btn btn-primary" onClick={() => void fetchQuote()} disabled={busy} data-testid="convert-requote">
                  {busy && <Spinner size={16} />}
                  {m.wallet_quote_refresh()}
                </button>
              )}
            </>
          }
        >
          <dl className={acct.kv}>
            <div className={acct.kvRow}><dt>{m.wallet_paid()}</dt><dd className="num">{formatMoney(held.quote.money, held.quote.from)} {held.quote.from}</dd></div>
            <div className={acct.kvRow}><dt>{m.wallet_rate()}</dt><dd className="num">{held.quote.huilv}</dd></div>
            <div className={acct.kvRow}><dt>{m.wallet_fee()}</dt><dd className="num">{formatMoneyMoved(held.quote.sxf, "USDT")} USDT ({held.quote.fee_percent}%)</dd></div>
            <div className={`${acct.kvRow} ${acct.strong}`}><dt>{m.wallet_received()}</dt><dd className="num" data-testid="quote-received">{formatMoney(held.quote.money2, held.quote.to)} {held.quote.to}</dd></div>
          </dl>
          <p className={secondsLeft > 0 ? "form-note" : "field-error"} role="status" data-testid="quote-countdown">
            {secondsLeft > 0 ? m.wallet_quote_holds({ seconds: secondsLeft }) : m.wallet_quote_expired()}
          </p>
        </Modal>
      )}
    </div>
  );
}
