/**
 * Withdrawal address book: saved addresses per currency (and network for USDT) with a label and
 * memo; add and delete. Addresses never contain spaces; labels and memos are letters and
 * digits only (spec §5).
 */
import { useMemo, useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { toast } from "../../../lib/toast.ts";
import { Icon } from "../../../components/Icon.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useAddAddress, useAddresses, useDeleteAddress, useFeeTable } from "../api.ts";
import acct from "../../../components/account.module.css";

const LABEL_RE = /^[A-Za-z0-9]*$/;

export default function AddressesPage() {
  const list = useAddresses();
  const deleteAddress = useDeleteAddress();
  const fees = useFeeTable();
  const [adding, setAdding] = useState(false);

  const remove = (id: number, address: string) =>
    openConfirm({
      title: m.sec_address_delete_title(),
      message: m.sec_address_delete_body({ address }),
      confirmText: m.sec_address_delete(),
      cancelText: m.cancel(),
      onConfirm: () => {
        void deleteAddress(id)
          .then(() => {
            toast.success(m.sec_address_deleted());
            list.reload();
          })
          .catch(() => undefined);
      },
    });

  return (
    <div className={acct.acctPage} data-testid="addresses-page">
      {adding ? (
        <AddForm
          fees={fees.data ?? []}
          onCancel={() => setAdding(false)}
          onAdded={() => {
            setAdding(false);
            list.reload();
          }}
        />
      ) : (
        <button type="button" className="btn btn-primary btn-block" onClick={() => setAdding(true)} data-testid="address-add">
          {m.sec_address_add()}
        </button>
      )}
      {list.error && !list.data ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : !list.data ? (
        <SkeletonList rows={3} />
      ) : list.data.length === 0 ? (
        <EmptyState text={m.wallet_no_saved_addresses()} />
      ) : (
        <ul className={acct.recordList}>
          {list.data.map((a) => (
            <li key={a.id} className={acct.recordCard} data-testid="address-row">
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>
                  {a.label || m.wallet_unnamed()} · {a.currency_name ?? a.currency_id}
                  {a.network_name && <span className="badge badge-none">{a.network_name}</span>}
                </span>
                <button type="button" className={`icon-btn ${acct.danger}`} onClick={() => remove(a.id, a.address)} aria-label={m.sec_address_delete()} data-testid="address-delete">
                  <Icon name="close" size={18} />
                </button>
              </div>
              <code className={acct.monoBreak}>{a.address}</code>
              {a.memo && <span className="muted">{m.sec_memo()}: {a.memo}</span>}
              {a.usable_from && <span className="badge badge-pending" data-testid="address-cooling">{m.sec_address_opens({ time: a.usable_from })}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function AddForm({ fees, onCancel, onAdded }: { fees: { currency_id: number; currency: string; network: number; network_name: string }[]; onCancel: () => void; onAdded: () => void }) {
  const addAddress = useAddAddress();
  const currencies = useMemo(() => {
    const seen = new Map<number, string>();
    for (const f of fees) if (!seen.has(f.currency_id)) seen.set(f.currency_id, f.currency);
    return [...seen.entries()].map(([id, name]) => ({ id, name }));
  }, [fees]);
  const [currency, setCurrency] = useState<number>(3);
  const networks = fees.filter((f) => f.currency_id === currency && f.network >= 0);
  const [network, setNetwork] = useState<number>(1);
  const [address, setAddress] = useState("");
  const [label, setLabel] = useState("");
  const [memo, setMemo] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const next: Record<string, string> = {};
    if (!address) next.address = m.wallet_address_required();
    else if (/\s/.test(address)) next.address = errText("address_invalid");
    if (!LABEL_RE.test(label)) next.label = errText("label_invalid");
    if (!LABEL_RE.test(memo)) next.memo = errText("label_invalid");
    setErrors(next);
    if (Object.keys(next).length) return;
    setBusy(true);
    try {
      await addAddress({ currency, address, ...(label ? { label } : {}), ...(memo ? { memo } : {}), ...(networks.length > 0 ? { type: network } : {}) });
      toast.success(m.sec_address_added());
      onAdded();
    } catch {
      // shown by the API client (already saved …)
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form card" onSubmit={submit} noValidate data-testid="address-form">
      <label className="field">
        <span className="field-label">{m.wallet_currency()}</span>
        <div className="select-wrap">
          <select className="input" value={currency} onChange={(e) => setCurrency(Number(e.target.value))} data-testid="address-currency">
            {(currencies.length ? currencies : [{ id: 3, name: "USDT" }]).map((c) => (
              <option key={c.id} value={c.id}>{c.name}</option>
            ))}
          </select>
          <Icon name="chevronDown" size={18} className="select-caret" />
        </div>
      </label>
      {networks.length > 0 && (
        <div className="field">
          <span className="field-label">{m.wallet_network()}</span>
          <div className={`${acct.chips} ${acct.chips2}`} role="radiogroup" aria-label={m.wallet_network()}>
            {networks.map((n) => (
              <button key={n.network} type="button" role="radio" aria-checked={network === n.network} className={network === n.network ? "active" : ""} onClick={() => setNetwork(n.network)} data-testid={`address-network-${n.network_name}`}>
                {n.network_name}
              </button>
            ))}
          </div>
        </div>
      )}
      <label className="field">
        <span className="field-label">{m.wallet_address()}</span>
        <input className="input" autoCapitalize="off" autoComplete="off" spellCheck={false} value={address} placeholder={m.wallet_address_placeholder()} onChange={(e) => { setAddress(e.target.value); setErrors((er) => ({ ...er, address: "" })); }} aria-invalid={!!errors.address} data-testid="address-input" />
        {errors.address && <span className="field-error">{errors.address}</span>}
      </label>
      <label className="field">
        <span className="field-label">{m.sec_label()} <span className="muted">({m.wallet_optional()})</span></span>
        <input className="input" maxLength={32} value={label} placeholder={m.sec_label_placeholder()} onChange={(e) => { setLabel(e.target.value); setErrors((er) => ({ ...er, label: "" })); }} aria-invalid={!!errors.label} data-testid="address-label" />
        {errors.label && <span className="field-error">{errors.label}</span>}
      </label>
      <label className="field">
        <span className="field-label">{m.sec_memo()} <span className="muted">({m.wallet_optional()})</span></span>
        <input className="input" maxLength={32} value={memo} placeholder={m.sec_memo_placeholder()} onChange={(e) => { setMemo(e.target.value); setErrors((er) => ({ ...er, memo: "" })); }} aria-invalid={!!errors.memo} data-testid="address-memo" />
        {errors.memo && <span className="field-error">{errors.memo}</span>}
      </label>
      <div className={acct.btnRow}>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>{m.cancel()}</button>
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="address-save">
          {busy && <Spinner size={16} />}
          {m.sec_address_save()}
        </button>
      </div>
    </form>
  );
}
