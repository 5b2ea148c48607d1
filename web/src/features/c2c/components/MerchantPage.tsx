/**
 * /legal/merchant, the merchant centre (issue #10 §1): a verified user applies with a name and
 * puts up the security deposit (frozen in their fiat account until they leave or are rejected);
 * while the application waits, its state; once approved, the merchant's adverts (post, take off
 * the shelf, put back, withdraw) and the orders on them. A merchant with no open advert may leave,
 * which returns the deposit.
 */
import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { formatDateTime, formatExact } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { LoadMoreFoot } from "../../../components/LoadMoreFoot.tsx";
import { EmptyState, ErrorState, SkeletonBlock, SkeletonList, Spinner } from "../../../components/States.tsx";
import {
  useAdvertAction,
  useApplyMerchant,
  useC2cConfig,
  useLeaveMerchant,
  useMerchant,
  useMerchantOrders,
  useMyAdverts,
  type AdvertAction,
  type C2cAdvert,
  type Merchant,
} from "../api.ts";
import { C2cGate, C2cNav, cny, OrderCard, PayKinds } from "./common.tsx";
import s from "./c2c.module.css";

export default function MerchantPage() {
  return (
    <C2cGate>
      <MerchantCentre />
    </C2cGate>
  );
}

function MerchantCentre() {
  const merchant = useMerchant();
  const config = useC2cConfig();
  const body = (() => {
    if (merchant.error && !merchant.data) return <ErrorState message={merchant.error.message} onRetry={merchant.reload} />;
    if (!merchant.data) return <SkeletonBlock height={220} />;
    const mc = merchant.data;
    if (mc.status === 1) return <Approved merchant={mc} />;
    if (mc.status === 0) return <Pending merchant={mc} />;
    return <ApplyForm merchant={mc} deposit={config.data ? `${formatExact(config.data.merchant_deposit)} ${config.data.deposit_currency}` : null} />;
  })();
  return (
    <div className={s.page} data-testid="c2c-merchant">
      <C2cNav here="merchant" />
      {body}
    </div>
  );
}

function ApplyForm({ merchant, deposit }: { merchant: Merchant; deposit: string | null }) {
  const apply = useApplyMerchant();
  const [name, setName] = useState(merchant.name ?? "");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const n = name.trim();
    if (n.length < 2 || n.length > 20 || !/^[\p{L}\p{N} _-]+$/u.test(n)) {
      setError(m.c2c_merchant_name_rule());
      return;
    }
    setBusy(true);
    try {
      await apply(n);
      toast.success(m.c2c_apply_sent());
    } catch {
      // 998 (verification) and other refusals are shown by the API client
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="form card" onSubmit={submit} noValidate data-testid="merchant-apply">
      <h2 className={s.sectionTitle}>{m.c2c_become_merchant()}</h2>
      {merchant.status === 2 && (
        <p className={`${s.notice} ${s.noticeBad}`} data-testid="merchant-rejected">{m.c2c_merchant_rejected({ reason: merchant.reason || "—" })}</p>
      )}
      {merchant.status === 3 && <p className={`${s.notice} ${s.noticeInfo}`}>{m.c2c_merchant_left()}</p>}
      <ul className={s.bullets}>
        <li>{m.c2c_merchant_rule_verified()}</li>
        <li data-testid="merchant-deposit-rule">{deposit ? m.c2c_merchant_rule_deposit({ amount: deposit }) : <Spinner size={14} />}</li>
        <li>{m.c2c_merchant_rule_review()}</li>
      </ul>
      <label className="field">
        <span className="field-label">{m.c2c_merchant_name()}</span>
        <input className="input" value={name} maxLength={20} onChange={(e) => { setName(e.target.value); setError(""); }} aria-invalid={!!error} placeholder={m.c2c_merchant_name_placeholder()} data-testid="merchant-name" />
        {error && <span className="field-error">{error}</span>}
      </label>
      <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy} data-testid="merchant-apply-submit">
        {busy && <Spinner size={16} />}
        {deposit ? m.c2c_apply_with_deposit({ amount: deposit }) : m.c2c_apply()}
      </button>
    </form>
  );
}

function Pending({ merchant }: { merchant: Merchant }) {
  return (
    <section className={`${s.notice} ${s.noticeWarn}`} data-testid="merchant-pending">
      <strong>{m.c2c_merchant_pending({ name: merchant.name ?? "" })}</strong>
      <p>{m.c2c_merchant_deposit_frozen({ amount: `${formatExact(merchant.deposit ?? "0")} ${merchant.deposit_currency}` })}</p>
      {merchant.apply_time !== null && <p className="num">{formatDateTime(merchant.apply_time)}</p>}
    </section>
  );
}

function Approved({ merchant }: { merchant: Merchant }) {
  const [params, setParams] = useSearchParams();
  const tab = params.get("tab") === "orders" ? "orders" : "adverts";
  const leave = useLeaveMerchant();
  const askLeave = () =>
    openConfirm({
      title: m.c2c_leave_title(),
      message: m.c2c_leave_body({ amount: `${formatExact(merchant.deposit ?? "0")} ${merchant.deposit_currency}` }),
      confirmText: m.c2c_leave(),
      cancelText: m.cancel(),
      onConfirm: () => {
        leave()
          .then(() => toast.success(m.c2c_left_done()))
          .catch(() => undefined);
      },
    });
  return (
    <>
      <section className={s.merchantCard} data-testid="merchant-approved">
        <div>
          <strong>{merchant.name}</strong>
          <span className="badge badge-ok">{m.c2c_merchant_badge()}</span>
        </div>
        <span className="muted">{m.c2c_deposit_held({ amount: `${formatExact(merchant.deposit ?? "0")} ${merchant.deposit_currency}` })}</span>
      </section>
      <div className={s.tabs} role="tablist">
        <button type="button" role="tab" aria-selected={tab === "adverts"} className={tab === "adverts" ? "active" : ""} onClick={() => setParams({}, { replace: true })} data-testid="merchant-tab-adverts">
          {m.c2c_my_adverts()}
        </button>
        <button type="button" role="tab" aria-selected={tab === "orders"} className={tab === "orders" ? "active" : ""} onClick={() => setParams({ tab: "orders" }, { replace: true })} data-testid="merchant-tab-orders">
          {m.c2c_merchant_orders()}
        </button>
      </div>
      {tab === "adverts" ? <MyAdverts /> : <MerchantOrders />}
      {merchant.open_adverts === 0 ? (
        <button type="button" className={`btn btn-ghost btn-block ${s.leaveBtn}`} onClick={askLeave} data-testid="merchant-leave">
          {m.c2c_leave()}
        </button>
      ) : (
        <p className="form-note">{m.c2c_leave_needs_withdraw()}</p>
      )}
    </>
  );
}

export function advertStatusText(status: number): string {
  return status === 1 ? m.c2c_ad_on() : status === 2 ? m.c2c_ad_off() : status === 3 ? m.c2c_ad_withdrawn() : m.c2c_ad_abnormal();
}

function MyAdverts() {
  const list = useMyAdverts();
  const act = useAdvertAction();
  const [busyId, setBusyId] = useState<number | null>(null);
  const run = async (ad: C2cAdvert, action: AdvertAction) => {
    setBusyId(ad.id);
    try {
      await act(ad.id, action);
      toast.success(action === "off" ? m.c2c_ad_off_done() : action === "on" ? m.c2c_ad_on_done() : m.c2c_ad_withdrawn_done());
    } catch {
      // shown by the API client
    } finally {
      setBusyId(null);
    }
  };
  const askWithdraw = (ad: C2cAdvert) =>
    openConfirm({
      title: m.c2c_ad_withdraw(),
      message: ad.type === "sell" ? m.c2c_ad_withdraw_body_sell({ amount: `${formatExact(ad.surplus_number)} ${ad.currency_name}` }) : m.c2c_ad_withdraw_body_buy(),
      confirmText: m.c2c_ad_withdraw(),
      cancelText: m.cancel(),
      onConfirm: () => void run(ad, "withdraw"),
    });
  return (
    <>
      <Link to="/legal/advert" className="btn btn-primary btn-block" data-testid="advert-new">
        {m.c2c_post_advert()}
      </Link>
      {list.loading ? (
        <SkeletonList rows={3} />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : list.items.length === 0 ? (
        <EmptyState text={m.c2c_no_my_adverts()} />
      ) : (
        <ul className={s.adverts}>
          {list.items.map((ad) => (
            <li key={ad.id} className={s.advert} data-testid="my-advert" data-id={ad.id} data-status={ad.status}>
              <div className={s.advertHead}>
                <span className={`${s.orderSide} ${ad.type === "sell" ? "down" : "up"}`}>
                  {ad.type === "sell" ? m.c2c_sell_coin({ coin: ad.currency_name }) : m.c2c_buy_coin({ coin: ad.currency_name })}
                </span>
                <span className={s.grow} />
                <span className={`badge badge-${ad.status === 1 ? "ok" : ad.status === 4 ? "bad" : "none"}`} data-testid="my-advert-status">{advertStatusText(ad.status)}</span>
              </div>
              <dl className={s.kv}>
                <div><dt>{m.c2c_price()}</dt><dd className="num">{cny(ad.price)}</dd></div>
                <div><dt>{m.c2c_remaining()}</dt><dd className="num" data-testid="my-advert-remaining">{formatExact(ad.surplus_number)} / {formatExact(ad.total_number)} {ad.currency_name}</dd></div>
                <div><dt>{m.c2c_limits()}</dt><dd className="num">{cny(ad.min_money)} – {cny(ad.max_money)}</dd></div>
                <div><dt>{m.c2c_running_orders()}</dt><dd className="num">{ad.running_orders}</dd></div>
              </dl>
              <PayKinds kinds={ad.pay_kinds} />
              {ad.status !== 3 && (
                <div className={s.actionRow}>
                  {ad.status === 1 && (
                    <button type="button" className="btn btn-outline btn-small" disabled={busyId === ad.id} onClick={() => void run(ad, "off")} data-testid="advert-off">{m.c2c_ad_take_off()}</button>
                  )}
                  {ad.status === 2 && (
                    <button type="button" className="btn btn-outline btn-small" disabled={busyId === ad.id} onClick={() => void run(ad, "on")} data-testid="advert-on">{m.c2c_ad_put_on()}</button>
                  )}
                  {(ad.status === 2 || ad.status === 4) && (
                    <button type="button" className="btn btn-outline btn-small" disabled={busyId === ad.id || ad.running_orders > 0} onClick={() => askWithdraw(ad)} data-testid="advert-withdraw">{m.c2c_ad_withdraw()}</button>
                  )}
                  {ad.status === 2 && <Link to={`/legal/advert?edit=${ad.id}`} state={ad} className="btn btn-outline btn-small" data-testid="advert-edit">{m.c2c_ad_edit()}</Link>}
                  <Link to={`/legal/advert?copy=${ad.id}`} state={ad} className="btn btn-ghost btn-small" data-testid="advert-copy">{m.c2c_ad_copy()}</Link>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <LoadMoreFoot count={list.items.length} hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} loadMore={list.loadMore} />
    </>
  );
}

function MerchantOrders() {
  const list = useMerchantOrders({});
  if (list.loading) return <SkeletonList rows={3} />;
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (list.items.length === 0) return <EmptyState text={m.c2c_no_orders()} />;
  return (
    <>
      <ul className={s.orders}>
        {list.items.map((o) => <OrderCard key={o.id} order={o} />)}
      </ul>
      <LoadMoreFoot count={list.items.length} hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} loadMore={list.loadMore} />
    </>
  );
}
