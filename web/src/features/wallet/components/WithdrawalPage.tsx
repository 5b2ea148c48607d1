/**
 * Withdrawal (spec §2, §4, §5; DESIGN §1): every coin of the published fee table, on its networks
 * (USDT: ERC20 / TRC20, the cheaper one pre-selected; no bank card needed for a coin). The fee, the
 * amount received, the total that is frozen and the network's min / max come from the one
 * published fee table and are shown live, before anything is sent; a confirm dialog repeats
 * them. No other deduction exists. The fund password (and the authenticator code once
 * enabled, or one of the account's passkeys instead) authorises the request; an operator reviews
 * it before it goes to the chain.
 */
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { decimalsOf } from "../../../lib/amount.ts";
import { showMoneyToast, STATEMENT_ROUTE, toast } from "../../../lib/toast.ts";
import { navigateTo } from "../../../lib/nav.ts";
import { confirmWithPasskey, PasskeyCancelled } from "../../../lib/passkey.ts";
import { AmountInput, ExactInput, Field } from "../../../components/Field.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { Modal } from "../../../components/Modal.tsx";
import { FundPasswordField, TotpField } from "../../../components/SecondFactors.tsx";
import { EmptyState, ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { USDT_ID, useFeeTable, useSavedAddresses, useSubmitWithdrawal, useWithdrawInfo, type SavedAddress } from "../api.ts";
import { withdrawAll, withdrawalPreview, withdrawalTerms } from "../math.ts";
import { INTERNAL_ADDRESS_RE } from "../../../../../schemas/wallet.ts";
import acct from "../../../components/account.module.css";
import { formatMoney, formatMoneyMoved } from "../../../lib/format.ts";
import { withProvenContact } from "../../../components/ContactGate.tsx";

type Errors = Partial<Record<"address" | "amount" | "password" | "totp", string>>;

/** The screen: the form once the account's e-mail or phone is proven, else why not and where to enter the code. */
export default withProvenContact(WithdrawalForm, m.contact_gate_withdraw);

function WithdrawalForm() {
  const navigate = useNavigate();
  const feeTable = useFeeTable();
  const [currency, setCurrency] = useState<number>(USDT_ID);
  const info = useWithdrawInfo(currency);
  const submitWithdrawal = useSubmitWithdrawal();
  const [network, setNetwork] = useState<number | null>(null);
  const [address, setAddress] = useState("");
  const [amount, setAmount] = useState("");
  const [password, setPassword] = useState("");
  const [totp, setTotp] = useState("");
  const [withPasskey, setWithPasskey] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [book, setBook] = useState(false);
  const [showTable, setShowTable] = useState(false);

  // The info of the coin chosen (the previous coin's stays in `info.data` while the next loads).
  const d = info.data?.currency === currency ? info.data : undefined;
  // A passkey confirms instead of the authenticator code: always when the account has no
  // authenticator, by choice when it has both.
  const passkeyChosen = !!d?.has_passkey && (!d.totp_enabled || withPasskey);
  /** Every coin that the fee table lists, once each, in its order. */
  const coins = useMemo(() => [...new Map((feeTable.data ?? []).map((r) => [r.currency_id, r.currency])).entries()], [feeTable.data]);
  // Default to the first network of the answer: the server lists the cheaper one first.
  useEffect(() => {
    if (d && network === null && d.networks.length > 0) setNetwork(d.networks[0]?.type ?? null);
  }, [d, network]);
  const chooseCoin = (id: number) => {
    setCurrency(id);
    setNetwork(null);
    setAddress("");
    setAmount("");
    setErrors({});
  };

  const scale = d ? decimalsOf(d.change_balance) : 8;
  // An in-site address ('HX' + 30 hex): no chain, no fee (the fee table is for chain withdrawals).
  // Only a hint: the server decides, and refuses an unknown one or the user's own.
  const inSite = INTERNAL_ADDRESS_RE.test(address.trim());
  const terms = useMemo(() => {
    if (!d) return null;
    const t = withdrawalTerms(d, d.networks.length > 0 ? network : null);
    return inSite ? { ...t, fee: "0" } : t;
  }, [d, network, inSite]);
  const preview = d && terms ? withdrawalPreview(amount, terms, d.change_balance, scale) : null;
  const unit = d?.currency_name ?? "USDT";
  /** A coin without a network choice goes out on its own chain (the general row of its fees: "Bitcoin"). */
  const ownChain = d && d.networks.length === 0 ? (d.fees.find((f) => f.type === -1)?.network_name ?? "") : "";
  const ready = !!d && d.has_fund_password;

  const clearError = (k: keyof Errors) => setErrors((e) => ({ ...e, [k]: undefined }));

  const validate = (): boolean => {
    const next: Errors = {};
    if (!address) next.address = m.wallet_address_required();
    else if (/\s/.test(address)) next.address = errText("address_invalid");
    if (!amount) next.amount = errText("invalid_amount");
    else if (preview?.problem) {
      next.amount =
        preview.problem === "below_min"
          ? errText("below_min", { min: `${formatMoney(terms?.min, unit)} ${unit}` })
          : preview.problem === "above_max"
            ? errText("above_max", { max: `${formatMoney(terms?.max, unit)} ${unit}` })
            : errText(preview.problem, { decimals: scale });
    }
    if (!/^\d{6}$/.test(password)) next.password = errText("fund_password_rule");
    if (d?.totp_enabled && !passkeyChosen && !/^\d{6}$/.test(totp)) next.totp = errText("totp_required");
    setErrors(next);
    return Object.keys(next).length === 0;
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!d || !ready) return;
    if (validate()) setConfirming(true);
  };

  const send = async () => {
    if (!d || !terms || busy) return;
    setBusy(true);
    try {
      const factor = passkeyChosen ? { passkey: await confirmWithPasskey() } : d.totp_enabled ? { totp_code: totp } : {};
      const res = await submitWithdrawal({
        currency: d.currency,
        address: address.trim(),
        number: amount,
        ...(d.networks.length > 0 && network !== null ? { type: network } : {}),
        password,
        charge: terms.fee,
        ...factor,
      });
      setConfirming(false);
      if (res.in_site) showMoneyToast(m.wallet_in_site_done({ total: `${formatMoneyMoved(res.total, unit)} ${unit}` }), { label: m.statement_view(), onTap: () => navigateTo(STATEMENT_ROUTE) });
      else toast.success(m.wallet_withdraw_submitted({ total: `${formatMoneyMoved(res.total, unit)} ${unit}` }));
      navigate("/withdrawal/log");
    } catch (err) {
      setConfirming(false);
      if (err instanceof PasskeyCancelled) {
        toast.error(err.message);
        return;
      }
      const f = err instanceof ApiFailure ? err : null;
      if (f?.kind === "997" || f?.kind === "998" || f?.kind === "999") return; // handled by the API client
      if (f?.code === "fund_password_wrong" || f?.code === "fund_password_rule") setErrors({ password: f.message });
      else if (f?.code === "totp_wrong" || f?.code === "totp_required") setErrors({ totp: f.message });
      else if (f?.code === "address_invalid" || f?.code === "self_transfer") setErrors({ address: f.message });
      else if (f?.code === "below_min" || f?.code === "above_max" || f?.code === "insufficient_balance") setErrors({ amount: f.message });
      else toast.error(f?.message ?? m.request_failed());
      // The fee table changed under us: show the new terms before the user tries again.
      if (f?.code === "fee_mismatch" || f?.code === "insufficient_balance") info.reload();
    } finally {
      setBusy(false);
    }
  };

  if (info.error && !d) return <ErrorState message={info.error.message} onRetry={info.reload} />;
  if (!d || !terms || !preview) return <div className={acct.acctPage}><SkeletonBlock height={420} /></div>;

  return (
    <div className={acct.acctPage} data-testid="withdrawal-page">
      {!d.has_fund_password && (
        <div className={`${acct.notice} ${acct.noticeWarn} ${acct.noticeAction}`} data-testid="need-fund-password">
          <span>{m.wallet_need_fund_password()}</span>
          <Link to="/security/fund-password" className="btn btn-primary btn-small">{m.wallet_go_set()}</Link>
        </div>
      )}

      <form className="form" onSubmit={onSubmit} noValidate>
        <div className="field">
          <span className="field-label">{m.wallet_currency()}</span>
          <div className="select-wrap">
            <select className="input" value={currency} onChange={(e) => chooseCoin(Number(e.target.value))} aria-label={m.wallet_currency()} data-testid="withdraw-coin">
              {(coins.length > 0 ? coins : [[currency, unit] as const]).map(([id, name]) => (
                <option key={id} value={id}>
                  {name}
                </option>
              ))}
            </select>
            <Icon name="chevronDown" size={18} className="select-caret" />
          </div>
        </div>

        {d.networks.length === 0 && ownChain && (
          <div className="field">
            <span className="field-label">{m.wallet_network()}</span>
            <div className={`${acct.chips} ${acct.chips2}`} role="radiogroup" aria-label={m.wallet_network()}>
              <button type="button" role="radio" aria-checked className="active" data-testid="withdraw-network">
                <span>{ownChain}</span>
                <small className="num">{m.wallet_fee_short({ fee: `${formatMoney(terms?.fee, unit)} ${unit}` })}</small>
              </button>
            </div>
          </div>
        )}
        {d.networks.length > 0 && (
          <div className="field">
            <span className="field-label">{m.wallet_network()}</span>
            <div className={`${acct.chips} ${acct.chips2}`} role="radiogroup" aria-label={m.wallet_network()}>
              {d.networks.map((n) => {
                const t = withdrawalTerms(d, n.type);
                return (
                  <button
                    key={n.type}
                    type="button"
                    role="radio"
                    aria-checked={network === n.type}
                    className={network === n.type ? "active" : ""}
                    onClick={() => setNetwork(n.type)}
                    data-testid={`network-${n.network_name}`}
                  >
                    <span>{n.network_name}</span>
                    <small className="num">{m.wallet_fee_short({ fee: `${formatMoney(t.fee, unit)} ${unit}` })}</small>
                  </button>
                );
              })}
            </div>
          </div>
        )}

        <label className="field">
          <span className="field-label">{m.wallet_address()}</span>
          <div className="input-wrap">
            <ExactInput
              className="input input-with-icon"
              placeholder={m.wallet_address_placeholder()}
              value={address}
              onChange={(e) => {
                setAddress(e.target.value);
                clearError("address");
              }}
              aria-invalid={!!errors.address}
              data-testid="withdraw-address"
            />
            <button type="button" className="input-addon icon-btn" onClick={() => setBook(true)} aria-label={m.wallet_address_book()} data-testid="open-address-book">
              <Icon name="records" size={20} />
            </button>
          </div>
          {errors.address && <span className="field-error">{errors.address}</span>}
          {inSite && !errors.address && (
            <span className={`${acct.notice} ${acct.noticeInfo}`} data-testid="in-site-notice">
              {m.wallet_in_site_notice()}
            </span>
          )}
        </label>

        <Field
          label={m.wallet_amount()}
          extra={
            <span className="muted num" data-testid="withdraw-available">
              {m.wallet_available({ amount: `${formatMoney(d.change_balance, unit)} ${unit}` })}
            </span>
          }
          error={errors.amount}
        >
          <AmountInput
            value={amount}
            onChange={(v) => {
              setAmount(v);
              clearError("amount");
            }}
            scale={scale}
            unit={unit}
            onAll={() => {
              setAmount(withdrawAll(d.change_balance, terms, scale));
              clearError("amount");
            }}
            allTestId="withdraw-all"
            placeholder={m.wallet_withdraw_amount_placeholder({ min: formatMoney(terms.min, unit) })}
            invalid={!!errors.amount}
            testId="withdraw-amount"
          />
        </Field>

        <section className={acct.summary} aria-live="polite" data-testid="withdraw-summary">
          <div className={acct.kvRow}>
            <span>{m.wallet_fee()}</span>
            <span className="num" data-testid="withdraw-fee">{formatMoneyMoved(preview.fee, unit)} {unit}</span>
          </div>
          <div className={acct.kvRow}>
            <span>{m.wallet_received()}</span>
            <span className="num" data-testid="withdraw-received">{formatMoneyMoved(preview.received, unit)} {unit}</span>
          </div>
          <div className={`${acct.kvRow} ${acct.strong}`}>
            <span>{m.wallet_total_frozen()}</span>
            <span className="num" data-testid="withdraw-total">{formatMoneyMoved(preview.total, unit)} {unit}</span>
          </div>
          <div className={`${acct.kvRow} muted`}>
            <span>{m.wallet_limits()}</span>
            <span className="num" data-testid="withdraw-limits">{formatMoney(terms.min, unit)} – {formatMoney(terms.max, unit)} {unit}</span>
          </div>
          <p className="form-note">{m.wallet_fee_note()}</p>
          <button type="button" className={`text-btn ${acct.tableToggle}`} onClick={() => setShowTable((v) => !v)} aria-expanded={showTable} data-testid="fee-table-toggle">
            {m.wallet_fee_table()} <Icon name="chevronDown" size={14} />
          </button>
          {showTable && (
            <table className={acct.feeTable} data-testid="fee-table">
              <thead>
                <tr>
                  <th>{m.wallet_network()}</th>
                  <th className="right">{m.wallet_fee()}</th>
                  <th className="right">{m.wallet_min()}</th>
                  <th className="right">{m.wallet_max()}</th>
                </tr>
              </thead>
              <tbody>
                {d.fees.map((f) => (
                  <tr key={f.type}>
                    <td>{f.network_name || m.wallet_network_default()}</td>
                    <td className="right num">{formatMoney(f.fee, unit)}</td>
                    <td className="right num">{formatMoney(f.min, unit)}</td>
                    <td className="right num">{formatMoney(f.max, unit)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>

        <FundPasswordField
          value={password}
          onChange={(v) => {
            setPassword(v);
            clearError("password");
          }}
          error={errors.password}
          disabled={!d.has_fund_password}
          testId="withdraw-password"
        />

        {passkeyChosen ? (
          <p className="form-note" data-testid="withdraw-passkey-note">{m.sec_passkey_will_confirm()}</p>
        ) : d.totp_enabled && (
          <TotpField
            value={totp}
            onChange={(v) => {
              setTotp(v);
              clearError("totp");
            }}
            error={errors.totp}
            testId="withdraw-totp"
          />
        )}
        {d.has_passkey && d.totp_enabled && (
          <button type="button" className="text-btn" onClick={() => setWithPasskey((v) => !v)} data-testid="withdraw-factor-switch">
            {withPasskey ? m.sec_passkey_use_code() : m.sec_passkey_use()}
          </button>
        )}

        <button type="submit" className="btn btn-primary btn-block btn-large" disabled={!ready || busy} data-testid="withdraw-submit">
          {m.wallet_withdraw_button()}
        </button>
        <Link to="/withdrawal/log" className={`text-btn ${acct.centerBtn}`}>
          {m.wallet_view_records()}
        </Link>
      </form>

      {confirming && (
        <Modal
          title={m.wallet_confirm_withdraw()}
          onClose={() => setConfirming(false)}
          busy={busy}
          testId="withdraw-confirm"
          dismiss
          actions={
            <button type="button" className="btn btn-primary" onClick={send} disabled={busy} data-testid="withdraw-confirm-button">
              {busy && <Spinner size={16} />}
              {m.confirm()}
            </button>
          }
        >
          <dl className={acct.kv}>
            {(d.networks.length > 0 || ownChain) && !inSite && (
              <div className={acct.kvRow}>
                <dt>{m.wallet_network()}</dt>
                <dd data-testid="confirm-network">{d.networks.length > 0 ? d.networks.find((n) => n.type === network)?.network_name : ownChain}</dd>
              </div>
            )}
            <div className={acct.kvRow}>
              <dt>{m.wallet_address()}</dt>
              <dd className={acct.monoBreak}>{address}</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.wallet_received()}</dt>
              <dd className="num">{formatMoneyMoved(preview.received, unit)} {unit}</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.wallet_fee()}</dt>
              <dd className="num">{formatMoneyMoved(preview.fee, unit)} {unit}</dd>
            </div>
            <div className={`${acct.kvRow} ${acct.strong}`}>
              <dt>{m.wallet_total_frozen()}</dt>
              <dd className="num" data-testid="confirm-total">{formatMoneyMoved(preview.total, unit)} {unit}</dd>
            </div>
          </dl>
          {inSite && <p className={`${acct.notice} ${acct.noticeInfo}`} data-testid="confirm-in-site">{m.wallet_in_site_notice()}</p>}
          <p className="form-note">{m.wallet_confirm_note()}</p>
        </Modal>
      )}

      {book && (
        <AddressBook
          currency={currency}
          network={d.networks.length > 0 ? network : null}
          onClose={() => setBook(false)}
          onPick={(a) => {
            setAddress(a.address);
            if (d.networks.some((n) => n.type === a.network)) setNetwork(a.network);
            clearError("address");
            setBook(false);
          }}
        />
      )}
    </div>
  );
}

function AddressBook({ currency, network, onClose, onPick }: { currency: number; network: number | null; onClose: () => void; onPick: (a: SavedAddress) => void }) {
  const list = useSavedAddresses(currency);
  const rows = list.data ?? [];
  return (
    <Modal
      title={m.wallet_address_book()}
      onClose={onClose}
      testId="address-book"
      dismiss={{ text: m.close() }}
      actions={
        <Link to="/security/addresses" className="btn btn-outline">
          {m.wallet_manage_addresses()}
        </Link>
      }
    >
      {list.error && !list.data ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : !list.data ? (
        <Spinner />
      ) : rows.length === 0 ? (
        <EmptyState text={m.wallet_no_saved_addresses()} />
      ) : (
        <ul className={acct.pickList}>
          {rows.map((a) => (
            <li key={a.id}>
              <button type="button" className={`${acct.pickItem} ${network !== null && a.network !== network ? acct.dim : ""}`} onClick={() => onPick(a)} data-testid="saved-address">
                <span className={acct.pickTitle}>
                  {a.label || m.wallet_unnamed()} {a.network_name && <span className="badge badge-none">{a.network_name}</span>}
                </span>
                <span className={`${acct.monoBreak} muted`}>{a.address}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Modal>
  );
}
