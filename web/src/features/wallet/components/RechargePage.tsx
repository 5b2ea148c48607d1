/**
 * Deposit (spec §2, §3, §4): pick a currency and one of the exchange's receiving addresses (the
 * first is pre-selected unless the deployment shows its tips first, userchongbi_type 2), see
 * the QR code and copy the address, then claim the deposit with the amount, a proof picture and
 * optionally the transaction hash. An operator checks the claim before anything is credited.
 */
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { getAppLocale, m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { copyText } from "../../../lib/clipboard.ts";
import { toast } from "../../../lib/toast.ts";
import type { UploadInfo } from "../../../lib/upload.ts";
import { checkAmount } from "../../../../../schemas/wallet.ts";
import { AmountInput, ExactInput, Field } from "../../../components/Field.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { PhotoPicker } from "../../../components/PhotoPicker.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { USDT_ID, useDepositAddresses, useSubmitDeposit, useUserWallet, type DepositAddress } from "../api.ts";
import { QrImage } from "../../../components/QrImage.tsx";
import acct from "../../../components/account.module.css";
import { withProvenContact } from "../../../components/ContactGate.tsx";

/** The screen: the form once the account's e-mail or phone is proven, else why not and where to enter the code. */
export default withProvenContact(RechargeForm, m.contact_gate_deposit);

function RechargeForm() {
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const currency = Number(params.get("currency")) || USDT_ID;
  const wallets = useUserWallet();
  const submitDeposit = useSubmitDeposit();
  const addresses = useDepositAddresses(currency, getAppLocale());
  const [selected, setSelected] = useState<DepositAddress | null>(null);
  const [amount, setAmount] = useState("");
  const [hash, setHash] = useState("");
  const [pic, setPic] = useState<UploadInfo | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const scale = useMemo(() => wallets.data?.find((w) => w.currency === currency)?.decimals ?? 8, [wallets.data, currency]);
  const currencyName = wallets.data?.find((w) => w.currency === currency)?.currency_name ?? addresses.data?.list[0]?.currency ?? "";

  // Spec §4: the first address is pre-selected unless the tips are to be shown first.
  useEffect(() => {
    const d = addresses.data;
    setSelected(d && d.userchongbi_type !== 2 ? (d.list[0] ?? null) : null);
  }, [addresses.data]);

  const chooseCurrency = (id: number) => {
    setParams({ currency: String(id) }, { replace: true });
    setAmount("");
    setErrors({});
  };

  const copy = async (address = selected?.address) => {
    if (!address) return;
    if (await copyText(address)) toast.success(m.wallet_copied());
    else toast.error(m.wallet_copy_failed());
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy || !selected) return;
    const next: Record<string, string> = {};
    const check = checkAmount(amount, scale);
    if (!check.ok) next.amount = errText(check.key, check.params);
    if (!pic) next.pic = m.wallet_proof_required();
    if (hash && !/^[A-Za-z0-9]{1,128}$/.test(hash)) next.hash = m.wallet_hash_invalid();
    setErrors(next);
    if (Object.keys(next).length > 0 || !pic) return;
    setBusy(true);
    try {
      await submitDeposit({ currency, type: selected.network, acc: selected.address, amount, pic: pic.id, ...(hash ? { hash } : {}) });
      toast.success(m.wallet_deposit_submitted());
      navigate("/recharge/log");
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={acct.acctPage} data-testid="recharge-page">
      <label className="field">
        <span className="field-label">{m.wallet_currency()}</span>
        <div className="select-wrap">
          <select className="input" value={currency} onChange={(e) => chooseCurrency(Number(e.target.value))} data-testid="deposit-currency" disabled={!wallets.data}>
            {(wallets.data ?? [{ currency, currency_name: currencyName || "USDT" }]).map((w) => (
              <option key={w.currency} value={w.currency}>
                {w.currency_name}
              </option>
            ))}
          </select>
          <Icon name="chevronDown" size={18} className="select-caret" />
        </div>
      </label>

      {addresses.error && !addresses.data ? (
        <ErrorState message={addresses.error.message} onRetry={addresses.reload} />
      ) : !addresses.data ? (
        <SkeletonBlock height={300} />
      ) : (
        <>
          {addresses.data.list.length > 1 || addresses.data.userchongbi_type === 2 ? (
            <div className="field">
              <span className="field-label">{m.wallet_deposit_network()}</span>
              <div className={acct.chips} role="radiogroup" aria-label={m.wallet_deposit_network()}>
                {addresses.data.list.map((a) => (
                  <button
                    key={a.address}
                    type="button"
                    role="radio"
                    aria-checked={selected?.address === a.address}
                    className={selected?.address === a.address ? "active" : ""}
                    onClick={() => setSelected(a)}
                    data-testid={`deposit-network-${a.network || a.title}`}
                  >
                    {a.title}
                  </button>
                ))}
              </div>
            </div>
          ) : null}

          {addresses.data.userchongbi_type === 2 && addresses.data.tips && <p className={`${acct.notice} ${acct.noticeInfo}`}>{addresses.data.tips}</p>}

          {selected ? (
            <section className={`card ${acct.qrCard}`} data-testid="deposit-address-card">
              <QrImage dataUrl={selected.qrcode} text={selected.address} alt={m.wallet_qr_alt({ currency: selected.currency })} />
              <div className={acct.qrNetwork}>
                {selected.currency}
                {selected.network ? ` · ${selected.network}` : ""}
              </div>
              <div className={acct.addressBox}>
                <code className={acct.addressText} data-testid="deposit-address">{selected.address}</code>
                <button type="button" className="btn btn-outline btn-small" onClick={() => copy()} data-testid="copy-address">
                  {m.wallet_copy()}
                </button>
              </div>
              {selected.tips && <p className={`${acct.notice} ${acct.noticeWarn}`}>{selected.tips}</p>}
            </section>
          ) : (
            <p className={`${acct.notice} ${acct.noticeInfo}`}>{m.wallet_pick_address()}</p>
          )}

          {addresses.data.internal && (
            <section className={`card ${acct.qrCard}`} data-testid="internal-address-card">
              <h2 className="section-title">{m.wallet_internal_title()}</h2>
              <QrImage dataUrl={addresses.data.internal.qrcode} text={addresses.data.internal.address} alt={m.wallet_internal_title()} />
              <div className={acct.addressBox}>
                <code className={acct.addressText} data-testid="internal-address">{addresses.data.internal.address}</code>
                <button type="button" className="btn btn-outline btn-small" onClick={() => copy(addresses.data?.internal?.address)} data-testid="copy-internal-address">
                  {m.wallet_copy()}
                </button>
              </div>
              <p className={`${acct.notice} ${acct.noticeInfo}`}>{addresses.data.internal.tips}</p>
              <p className="form-note">{m.wallet_internal_note()}</p>
            </section>
          )}

          <form className="form card" onSubmit={submit} noValidate>
            <h2 className="section-title">{m.wallet_claim_title()}</h2>
            <p className="form-note">{m.wallet_claim_note()}</p>
            <Field label={m.wallet_amount()} error={errors.amount}>
              <AmountInput
                value={amount}
                onChange={(v) => {
                  setAmount(v);
                  setErrors((er) => ({ ...er, amount: "" }));
                }}
                scale={scale}
                unit={currencyName}
                invalid={!!errors.amount}
                testId="deposit-amount"
              />
            </Field>
            <PhotoPicker
              label={m.wallet_proof()}
              hint={m.wallet_proof_hint()}
              onChange={(info) => {
                setPic(info);
                if (info) setErrors((er) => ({ ...er, pic: "" }));
              }}
              invalid={!!errors.pic}
              testId="deposit-proof"
            />
            {errors.pic && <span className="field-error">{errors.pic}</span>}
            <Field
              label={
                <>
                  {m.wallet_hash()} <span className="muted">({m.wallet_optional()})</span>
                </>
              }
              error={errors.hash}
            >
              <ExactInput
                placeholder={m.wallet_hash_placeholder()}
                value={hash}
                onChange={(e) => {
                  setHash(e.target.value.trim());
                  setErrors((er) => ({ ...er, hash: "" }));
                }}
                aria-invalid={!!errors.hash}
                data-testid="deposit-hash"
              />
            </Field>
            <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy || !selected} data-testid="deposit-submit">
              {busy && <Spinner size={16} />}
              {m.wallet_submit()}
            </button>
            <button type="button" className={`text-btn ${acct.centerBtn}`} onClick={() => navigate("/recharge/log")}>
              {m.wallet_view_records()}
            </button>
          </form>
        </>
      )}
    </div>
  );
}
