/**
 * /legal/advert: a merchant posts an advert (spec §5 "merchant advert needs minimum, maximum and
 * type"): sell or buy, coin, fixed CNY price (2 decimals), total amount, per-order CNY limits
 * (min ≤ max ≤ amount × price) and accepted receiving methods. It goes on the shelf at once; a
 * sell advert freezes its whole amount from the fiat account. "Post a copy" of an advert opens this
 * form filled with it; "Edit" of an advert that is off the shelf (?edit=id) changes its price,
 * limits, methods and terms only (side, coin and amount are fixed: its coins move only through
 * the shelf, orders and withdrawal).
 */
import { useState, type FormEvent } from "react";
import { useLocation, useNavigate } from "react-router";
import { C2C_FIAT, parseCents, payKinds, type C2cAdvert } from "../../../../../schemas/c2c.ts";
import { m } from "../../../i18n/index.ts";
import { sanitizeAmountInput } from "../../../lib/amount.ts";
import { toast } from "../../../lib/toast.ts";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useCreateAdvert, useEditAdvert, useLegalCoins, usePayMethods, type C2cType, type PayKind } from "../api.ts";
import { qtyDecimals, totalOf } from "../math.ts";
import { C2cGate, cny, payKindText } from "./common.tsx";
import s from "./c2c.module.css";

export default function AdvertFormPage() {
  return (
    <C2cGate>
      <AdvertForm />
    </C2cGate>
  );
}

type Errors = Partial<Record<"price" | "total_number" | "min_money" | "max_money" | "pay_kinds", string>>;

function AdvertForm() {
  const navigate = useNavigate();
  const location = useLocation();
  const copy = (location.state ?? null) as C2cAdvert | null;
  const editing = copy && copy.status === 2 && new URLSearchParams(location.search).get("edit") === String(copy.id) ? copy : null;
  const edit = useEditAdvert();
  const coins = useLegalCoins();
  const methods = usePayMethods();
  const create = useCreateAdvert();
  const [type, setType] = useState<C2cType>(copy?.type ?? "sell");
  const [coinId, setCoinId] = useState<number | null>(copy?.currency_id ?? null);
  const [price, setPrice] = useState(copy?.price ?? "");
  const [amount, setAmount] = useState((editing ? editing.surplus_number : copy?.total_number) ?? "");
  const [min, setMin] = useState(copy?.min_money ?? "");
  const [max, setMax] = useState(copy?.max_money ?? "");
  const [kinds, setKinds] = useState<PayKind[]>(copy?.pay_kinds ?? []);
  const [remark, setRemark] = useState(copy?.remark ?? "");
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  if (coins.error && !coins.data) return <ErrorState message={coins.error.message} onRetry={coins.reload} />;
  if (!coins.data) return <div className={s.page}><SkeletonBlock height={400} /></div>;
  const coin = coins.data.find((c) => c.id === coinId) ?? coins.data[0];
  if (!coin) return <ErrorState />;
  const scale = qtyDecimals(coin.scale);
  const value = totalOf(amount, price, scale);
  // A bank card in another name than the verified one is no C2C receiving method (name_mismatch).
  const owned = new Set(methods.data?.lists.filter((p) => !p.name_mismatch).map((p) => p.kind) ?? []);

  const check = (): Errors => {
    const e: Errors = {};
    const p = parseCents(price);
    if (p === null || p === 0n) e.price = m.c2c_err_price();
    if (!amount || value === null || /^0*\.?0*$/.test(amount)) e.total_number = m.c2c_err_amount_positive();
    const lo = parseCents(min);
    const hi = parseCents(max);
    if (lo === null || lo === 0n) e.min_money = m.c2c_err_limit();
    if (hi === null || hi === 0n) e.max_money = m.c2c_err_limit();
    else if (lo !== null && lo > hi) e.max_money = m.c2c_err_min_above_max();
    else if (value !== null && hi > (parseCents(value) ?? 0n)) e.max_money = m.c2c_err_max_above_value({ value: cny(value) });
    if (kinds.length === 0) e.pay_kinds = m.c2c_err_pay_kinds();
    else if (type === "sell" && methods.data && kinds.some((k) => !owned.has(k))) e.pay_kinds = m.c2c_err_pay_kinds_missing();
    return e;
  };

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    if (busy) return;
    const e = check();
    setErrors(e);
    if (Object.keys(e).length > 0) return;
    setBusy(true);
    try {
      if (editing) {
        await edit(editing.id, { price, min_money: min, max_money: max, pay_kinds: kinds, remark: remark.trim() });
        toast.success(m.c2c_ad_saved());
      } else {
        await create({ type, currency_id: coin.id, price, total_number: amount, min_money: min, max_money: max, pay_kinds: kinds, remark: remark.trim() });
        toast.success(m.c2c_ad_posted());
      }
      navigate("/legal/merchant", { replace: true });
    } catch {
      // shown by the API client
    } finally {
      setBusy(false);
    }
  };

  const field = (key: keyof Errors, label: string, val: string, set: (v: string) => void, decimals: number, unit: string, testId: string, disabled = false) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <div className="input-wrap">
        <input
          className="input num"
          inputMode="decimal"
          value={val}
          onChange={(e) => {
            set(sanitizeAmountInput(e.target.value, decimals));
            setErrors((er) => ({ ...er, [key]: undefined }));
          }}
          aria-invalid={!!errors[key]}
          disabled={disabled}
          data-testid={testId}
        />
        <span className={`input-addon ${s.inputAddon}`}><span className="muted">{unit}</span></span>
      </div>
      {errors[key] && <span className="field-error">{errors[key]}</span>}
    </label>
  );

  return (
    <form className={`${s.page} form`} onSubmit={submit} noValidate data-testid="advert-form">
      {copy && <p className={`${s.notice} ${s.noticeInfo}`} data-testid={editing ? "advert-edit-note" : undefined}>{editing ? m.c2c_ad_edit_note() : m.c2c_ad_copy_note()}</p>}
      <fieldset className={s.chipSet}>
        <legend className="field-label">{m.c2c_ad_type()}</legend>
        <div className={s.chips} role="radiogroup" aria-label={m.c2c_ad_type()}>
          {(["sell", "buy"] as const).map((t) => (
            <button key={t} type="button" role="radio" aria-checked={type === t} className={type === t ? "active" : ""} disabled={!!editing && type !== t} onClick={() => setType(t)} data-testid={`advert-type-${t}`}>
              {t === "sell" ? m.c2c_ad_type_sell() : m.c2c_ad_type_buy()}
            </button>
          ))}
        </div>
      </fieldset>
      <fieldset className={s.chipSet}>
        <legend className="field-label">{m.c2c_coin()}</legend>
        <div className={s.chips} role="radiogroup" aria-label={m.c2c_coin()}>
          {coins.data.map((c) => (
            <button key={c.id} type="button" role="radio" aria-checked={c.id === coin.id} className={c.id === coin.id ? "active" : ""} disabled={!!editing && c.id !== coin.id} onClick={() => setCoinId(c.id)}>
              {c.name}
            </button>
          ))}
        </div>
      </fieldset>
      {field("price", m.c2c_ad_price({ fiat: C2C_FIAT, coin: coin.name }), price, setPrice, 2, C2C_FIAT, "advert-price")}
      {field("total_number", m.c2c_ad_amount(), amount, setAmount, scale, coin.name, "advert-amount", !!editing)}
      <div className={s.formGrid}>
        {field("min_money", m.c2c_ad_min(), min, setMin, 2, C2C_FIAT, "advert-min")}
        {field("max_money", m.c2c_ad_max(), max, setMax, 2, C2C_FIAT, "advert-max")}
      </div>
      <p className="form-note" data-testid="advert-value">{m.c2c_ad_value({ value: value ? cny(value) : "--" })}</p>
      <fieldset className={s.chipSet}>
        <legend className="field-label">{m.c2c_ad_methods()}</legend>
        <div className={s.chips} role="group" aria-label={m.c2c_ad_methods()}>
          {payKinds.map((k) => {
            const on = kinds.includes(k);
            return (
              <button
                key={k}
                type="button"
                aria-pressed={on}
                className={on ? "active" : ""}
                onClick={() => {
                  setKinds((all) => (on ? all.filter((x) => x !== k) : [...all, k]));
                  setErrors((er) => ({ ...er, pay_kinds: undefined }));
                }}
                data-testid={`advert-kind-${k}`}
              >
                {payKindText(k)}
                {type === "sell" && methods.data && !owned.has(k) && <small>{m.c2c_not_set()}</small>}
              </button>
            );
          })}
        </div>
        {errors.pay_kinds && <span className="field-error">{errors.pay_kinds}</span>}
      </fieldset>
      <label className="field">
        <span className="field-label">{m.c2c_ad_remark()} <span className="muted">({m.wallet_optional()})</span></span>
        <textarea className={`input ${s.textarea}`} rows={3} maxLength={200} value={remark} onChange={(e) => setRemark(e.target.value)} data-testid="advert-remark" />
      </label>
      {type === "sell" && !editing && <p className={`${s.notice} ${s.noticeWarn}`}>{m.c2c_ad_sell_escrow({ amount: amount ? `${amount} ${coin.name}` : coin.name })}</p>}
      <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="advert-submit">
        {busy && <Spinner size={16} />}
        {editing ? m.c2c_ad_save() : m.c2c_post_advert()}
      </button>
    </form>
  );
}
