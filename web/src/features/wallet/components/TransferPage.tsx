/**
 * Transfer between own accounts (spec §2, §5): from and to account selectors with a swap
 * button, the currency, the amount with what is available in the source account, and the
 * same-account message. Money only moves between the user's own accounts, one ledger movement.
 * A link may pick the accounts: `/transfer?from=change&to=lever` (e.g. "Transfer USDT in" on the
 * leverage screen); a name that is not an account, or an account of a product that is off, is
 * ignored.
 */
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { compareDecimal, decimalsOf } from "../../../lib/amount.ts";
import { showMoneyToast, STATEMENT_ROUTE } from "../../../lib/toast.ts";
import { navigateTo } from "../../../lib/nav.ts";
import { useSession } from "../../../lib/session.ts";
import { checkAmount } from "../../../../../schemas/wallet.ts";
import { AmountInput, Field } from "../../../components/Field.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { isAccountName } from "../../../../../schemas/products.ts";
import { accountLabel, transferChoices, useProducts } from "../../../lib/products.ts";
import { availableIn, USDT_ID, useTransfer, useUserWallet, useWalletList, type AccountName } from "../api.ts";
import { trimZeros } from "../math.ts";
import acct from "../../../components/account.module.css";
import { formatMoney } from "../../../lib/format.ts";

/** An account named in the link, or null for anything else. */
const accountParam = (v: string | null): AccountName | null => (isAccountName(v) ? v : null);

export default function TransferPage() {
  const session = useSession();
  if (!session.token) {
    // The route carries no auth flag (spec §2); without a login there is nothing to move.
    return (
      <div className={acct.acctPage}>
        <div className={`${acct.notice} ${acct.noticeInfo} ${acct.noticeAction}`}>
          <span>{m.wallet_login_to_transfer()}</span>
          <Link to="/login?redirect=%2Ftransfer" className="btn btn-primary btn-small">{m.login()}</Link>
        </div>
      </div>
    );
  }
  return <TransferForm />;
}

function TransferForm() {
  const list = useWalletList();
  const currencies = useUserWallet();
  const transfer = useTransfer();
  const [params] = useSearchParams();
  const [from, setFrom] = useState<AccountName>(() => accountParam(params.get("from")) ?? "change");
  const [to, setTo] = useState<AccountName>(() => accountParam(params.get("to")) ?? (params.get("from") === "micro" ? "change" : "micro"));
  // Only accounts of products that are switched on (schemas/products.ts); the target falls back to
  // another one of them. The account of a product declared `drainWhenOff` (leverage) can still be
  // emptied when it is switched off (the server allows it), so no money is trapped there: it
  // stays a source, never a target.
  const products = useProducts();
  const { sources, targets: accounts } = transferChoices(products);
  useEffect(() => {
    if (!products) return; // still loading: keep the choice
    const { sources: fromOn, targets: on } = transferChoices(products);
    if (!fromOn.includes(from)) setFrom("change");
    if (!on.includes(to)) setTo(on.find((a) => a !== "change") ?? "change");
  }, [products, from, to]);
  const [currency, setCurrency] = useState<number>(USDT_ID);
  const [amount, setAmount] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const rows = list.data?.change_wallet.balance.filter((r) => Number(r.show) === 1) ?? [];
  const name = rows.find((r) => r.currency === currency)?.currency_name ?? "";
  const available = list.data ? availableIn(list.data, from, currency) : "0";
  const scale = useMemo(() => currencies.data?.find((c) => c.currency === currency)?.decimals ?? decimalsOf(available), [currencies.data, currency, available]);
  const same = from === to;

  const swap = () => {
    setFrom(to);
    setTo(from);
    setError("");
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (same) {
      setError(errText("same_account"));
      return;
    }
    const check = checkAmount(amount, scale);
    if (!check.ok) {
      setError(errText(check.key, check.params));
      return;
    }
    if (compareDecimal(amount, available) === 1) {
      setError(errText("insufficient_balance"));
      return;
    }
    setBusy(true);
    try {
      await transfer({ number: amount, from_field: from, to_field: to, currency_id: currency });
      showMoneyToast(m.wallet_transfer_done({ amount: `${amount} ${name}`, from: accountLabel(from), to: accountLabel(to) }), { label: m.statement_view(), onTap: () => navigateTo(STATEMENT_ROUTE) });
      setAmount("");
      list.reload();
    } catch {
      // the API client showed the server's message (spec §8: fund transfer failed)
    } finally {
      setBusy(false);
    }
  };

  if (list.error && !list.data) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (!list.data) return <div className={acct.acctPage}><SkeletonBlock height={360} /></div>;

  return (
    <div className={acct.acctPage} data-testid="transfer-page">
      <form className="form" onSubmit={submit} noValidate>
        <section className={`card ${acct.transferCard}`}>
          <div className={acct.transferSides}>
            <label className={acct.transferSide}>
              <span className="field-label">{m.wallet_from()}</span>
              <div className="select-wrap">
                <select className="input" value={from} onChange={(e) => { setFrom(e.target.value as AccountName); setError(""); }} data-testid="transfer-from">
                  {sources.map((a) => (
                    <option key={a} value={a}>{accountLabel(a)}</option>
                  ))}
                </select>
                <Icon name="chevronDown" size={18} className="select-caret" />
              </div>
            </label>
            <label className={acct.transferSide}>
              <span className="field-label">{m.wallet_to()}</span>
              <div className="select-wrap">
                <select className="input" value={to} onChange={(e) => { setTo(e.target.value as AccountName); setError(""); }} data-testid="transfer-to">
                  {accounts.map((a) => (
                    <option key={a} value={a}>{accountLabel(a)}</option>
                  ))}
                </select>
                <Icon name="chevronDown" size={18} className="select-caret" />
              </div>
            </label>
          </div>
          <button type="button" className={acct.swapBtn} onClick={swap} aria-label={m.wallet_swap()} data-testid="transfer-swap">
            <Icon name="transfer" size={18} />
          </button>
        </section>
        {same && <p className="field-error" data-testid="same-account">{errText("same_account")}</p>}

        <label className="field">
          <span className="field-label">{m.wallet_currency()}</span>
          <div className="select-wrap">
            <select className="input" value={currency} onChange={(e) => { setCurrency(Number(e.target.value)); setAmount(""); setError(""); }} data-testid="transfer-currency">
              {rows.map((r) => (
                <option key={r.currency} value={r.currency}>{r.currency_name}</option>
              ))}
            </select>
            <Icon name="chevronDown" size={18} className="select-caret" />
          </div>
        </label>

        <Field
          label={m.wallet_amount()}
          extra={
            <span className="muted num" data-testid="transfer-available">
              {m.wallet_available({ amount: `${formatMoney(available, name)} ${name}` })}
            </span>
          }
          error={error}
          errorTestId="transfer-error"
        >
          <AmountInput
            value={amount}
            onChange={(v) => {
              setAmount(v);
              setError("");
            }}
            scale={scale}
            unit={name}
            onAll={() => {
              setAmount(trimZeros(available));
              setError("");
            }}
            allTestId="transfer-all"
            invalid={!!error}
            testId="transfer-amount"
          />
        </Field>

        <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy || same} data-testid="transfer-submit">
          {busy && <Spinner size={16} />}
          {m.wallet_transfer_button()}
        </button>
        <p className={`form-note ${acct.center}`}>{m.wallet_transfer_note()}</p>
      </form>
    </div>
  );
}
