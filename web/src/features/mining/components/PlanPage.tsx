/**
 * A mining plan (/mining/plan?id=): the pool, the pool account and worker, the hashrate, shares left,
 * the price, the term and the stated fees; what the pool actually paid per share over the last 30
 * days (paid hours only) and every recorded hour with its evidence; a break-even calculator whose
 * assumptions the user may edit (prefilled with the 30-day average and the last traded price), which
 * says plainly that past payouts do not predict future ones; and the purchase, whose sheet states the
 * cost, where the money goes, when the shares count and that nothing is promised, before anything moves.
 */
import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { ProductGate } from "../../../components/ProductGate.tsx";
import { formatDateTime, formatExact, formatMinute } from "../../../lib/format.ts";
import { useSession } from "../../../lib/session.ts";
import { toast } from "../../../lib/toast.ts";
import { ConfirmSheet, useSheetAction } from "../../../components/ConfirmSheet.tsx";
import { EmptyState, ErrorState, SkeletonBlock, SkeletonList } from "../../../components/States.tsx";
import { breakEven, DAY_MS } from "../../../../../schemas/mining-calc.ts";
import { useBuyShares, usePayouts, usePlans, type MiningPlan } from "../api.ts";
import { firstHour, payoutTone } from "../display.ts";
import { KvRow } from "../../../components/KvRow.tsx";
import acct from "../../../components/account.module.css";
import s from "./mining.module.css";
import { EvidenceRow } from "./EvidenceRow.tsx";

/** Decimals the calculator shows: the payout currency's (BTC 8) and the price currency's (USDT 2). */
const PAYOUT_DECIMALS = 8;
const PRICE_DECIMALS = 2;

export default function PlanPage() {
  return (
    <ProductGate product="mining">
      <PlanScreen />
    </ProductGate>
  );
}

function PlanScreen() {
  const [params] = useSearchParams();
  const id = Number(params.get("id"));
  const q = usePlans();
  const loggedIn = useSession().token !== "";
  const navigate = useNavigate();
  const [shares, setShares] = useState("1");
  const [sheet, setSheet] = useState(false);
  if (q.error && !q.data) return <ErrorState message={q.error.message} onRetry={q.reload} />;
  if (!q.data) return <div className={acct.acctPage}><SkeletonBlock height={360} /></div>;
  const p = q.data.find((x) => x.id === id);
  if (!p) return <EmptyState text={m.mining_not_found()} />;
  return (
    <div className={acct.acctPage} data-testid="mining-plan-page">
      <section className="card">
        <div className={`${acct.recordHead} ${s.head}`}>
          <h2 className={s.heroTitle}>{p.name}</h2>
          <span className="badge badge-ok">{p.hashrate}</span>
        </div>
        <dl className={acct.kv}>
          <KvRow label={m.mining_pool()} testId="mining-pool">{p.pool}</KvRow>
          <KvRow label={m.mining_pool_account()}>{p.pool_account}</KvRow>
          <KvRow label={m.mining_worker()} testId="mining-worker">{p.worker}</KvRow>
          <KvRow label={m.mining_hashrate()}>{m.mining_hashrate_value({ hashrate: p.hashrate, shares: String(p.shares) })}</KvRow>
          <KvRow label={m.mining_shares_left()} testId="mining-left">
            {m.mining_shares_of({ left: String(p.shares_left), total: String(p.shares) })}
          </KvRow>
          <KvRow label={m.mining_price()} testId="mining-price">
            {formatExact(p.price)} {p.price_currency} / {m.mining_share()}
          </KvRow>
          <KvRow label={m.mining_term()}>{m.mining_days({ days: String(p.days) })}</KvRow>
          <KvRow label={m.mining_fee()} testId="mining-fee">{m.mining_fee_value({ percent: p.fee_percent })}</KvRow>
          <KvRow label={m.mining_other_fees()}>{p.other_fees || m.mining_none()}</KvRow>
          <KvRow label={m.mining_payout_currency()}>{p.payout_currency}</KvRow>
        </dl>
      </section>
      <Paid30 p={p} />
      <Calculator p={p} shares={shares} setShares={setShares} />
      <section className="card">
        <h3 className={s.cardTitle}>{m.mining_terms_title()}</h3>
        <Terms p={p} />
      </section>
      {loggedIn && (
        <p className="form-note">
          <Link to="/mining/my">{m.title_mining_my()}</Link>
        </p>
      )}
      <button
        type="button"
        className="btn btn-primary btn-block btn-large"
        disabled={p.shares_left === 0}
        onClick={() => (loggedIn ? setSheet(true) : navigate(`/login?redirect=${encodeURIComponent(`/mining/plan?id=${p.id}`)}`))}
        data-testid="mining-buy-open"
      >
        {p.shares_left === 0 ? m.mining_sold_out() : m.mining_buy()}
      </button>
      <History p={p} />
      {sheet && <BuySheet p={p} initial={shares} onClose={() => setSheet(false)} />}
    </div>
  );
}

function Paid30({ p }: { p: MiningPlan }) {
  const days = p.series_30d.filter((d) => d.per_share !== "0");
  return (
    <section className="card" data-testid="mining-30d">
      <h3 className={s.cardTitle}>{m.mining_30d_title()}</h3>
      <dl className={acct.kv}>
        <KvRow label={m.mining_paid_30d()} testId="mining-30d-total">
          {formatExact(p.paid_30d_per_share)} {p.payout_currency} / {m.mining_share()}
        </KvRow>
        <KvRow label={m.mining_hours_paid()}>{p.paid_30d_hours}</KvRow>
        <KvRow label={m.mining_avg_day()} testId="mining-30d-avg">
          {formatExact(p.avg_day_per_share)} {p.payout_currency}
        </KvRow>
      </dl>
      <p className="form-note">{m.mining_30d_note({ days: String(p.days_30d) })}</p>
      {days.length === 0 ? (
        <p className="form-note">{m.mining_30d_none()}</p>
      ) : (
        <ul className={s.days}>
          {days.map((d) => (
            <li key={d.day}>
              <span className="muted">{d.day}</span>
              <span className="num">{formatExact(d.per_share)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Calculator({ p, shares, setShares }: { p: MiningPlan; shares: string; setShares: (v: string) => void }) {
  const [pps, setPps] = useState(p.avg_day_per_share);
  const [coin, setCoin] = useState(p.reference_price);
  const r = breakEven({ shares, price: p.price, fee_bps: p.fee_bps, days: p.days, per_share_day: pps, coin_price: coin, payout_decimals: PAYOUT_DECIMALS, price_decimals: PRICE_DECIMALS });
  const field = (label: string, value: string, set: (v: string) => void, testId: string, unit: string) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <div className="input-wrap">
        <input className="input" inputMode="decimal" autoComplete="off" value={value} onChange={(e) => set(e.target.value.trim())} data-testid={testId} />
        <span className={`input-addon ${acct.inputAddonRow}`}>
          <span className={acct.inputUnit}>{unit}</span>
        </span>
      </div>
    </label>
  );
  const cur = p.payout_currency;
  const pc = p.price_currency;
  return (
    <section className="card" data-testid="mining-calc">
      <h3 className={s.cardTitle}>{m.mining_calc_title()}</h3>
      <p className={s.warn} data-testid="mining-calc-warning">{m.mining_calc_warning()}</p>
      <div className={s.calcGrid}>
        {field(m.mining_calc_shares(), shares, setShares, "mining-calc-shares", m.mining_share())}
        {field(m.mining_calc_pps(), pps, setPps, "mining-calc-pps", cur)}
        {field(m.mining_calc_coin({ currency: cur }), coin, setCoin, "mining-calc-coin", pc)}
      </div>
      {r === null ? (
        <p className="field-error" role="alert">{m.mining_calc_invalid()}</p>
      ) : (
        <dl className={acct.kv} data-testid="mining-calc-result">
          <KvRow label={m.mining_calc_cost()} testId="mining-calc-cost">{formatExact(r.cost)} {pc}</KvRow>
          <KvRow label={m.mining_calc_net_day()}>
            {formatExact(r.net_day)} {cur} <span className="muted">({m.mining_calc_fee_day({ fee: formatExact(r.fee_day), currency: cur })})</span>
          </KvRow>
          <KvRow label={m.mining_calc_net_term({ days: String(p.days) })}>{formatExact(r.net_term)} {cur}</KvRow>
          <KvRow label={m.mining_calc_value_term()}>{formatExact(r.value_term)} {pc}</KvRow>
          <KvRow label={m.mining_calc_result()} testId="mining-calc-result-term">{r.result_term} {pc}</KvRow>
          <KvRow label={m.mining_calc_break_even_price({ currency: cur })} testId="mining-calc-be-price">
            {r.break_even_price === null ? m.mining_calc_never() : `${formatExact(r.break_even_price)} ${pc}`}
          </KvRow>
          <KvRow label={m.mining_calc_break_even_days()} testId="mining-calc-be-days">
            {r.break_even_days === null ? m.mining_calc_never() : r.within_term ? m.mining_days({ days: String(r.break_even_days) }) : m.mining_calc_beyond({ days: String(r.break_even_days) })}
          </KvRow>
        </dl>
      )}
    </section>
  );
}

function Terms({ p }: { p: MiningPlan }) {
  return (
    <ol className={s.terms} data-testid="mining-terms">
      <li>{m.mining_term_1()}</li>
      <li>{m.mining_term_2({ fee: p.fee_percent, currency: p.payout_currency })}</li>
      <li>{m.mining_term_3({ days: String(p.days) })}</li>
      <li>{m.mining_term_4()}</li>
      <li>{m.mining_term_5()}</li>
    </ol>
  );
}

function History({ p }: { p: MiningPlan }) {
  const q = usePayouts(p.id);
  return (
    <section className="card" data-testid="mining-history">
      <h3 className={s.cardTitle}>{m.mining_history_title()}</h3>
      <p className="form-note">{m.mining_history_note()}</p>
      {q.error && !q.data ? (
        <ErrorState message={q.error.message} onRetry={q.reload} />
      ) : !q.data ? (
        <SkeletonList rows={3} />
      ) : q.data.data.length === 0 ? (
        <EmptyState text={m.mining_history_empty()} />
      ) : (
        <ul className={acct.recordList}>
          {q.data.data.map((x) => (
            <li key={x.id} className={acct.recordCard} data-testid="mining-history-row">
              <div className={`${acct.recordHead} ${s.head}`}>
                <span className={acct.recordTitle}>{formatMinute(x.hour)}</span>
                <span className={`badge badge-${payoutTone(x.status)}`}>{statusText(x.status)}</span>
              </div>
              <dl className={acct.kv}>
                <KvRow label={m.mining_pool_paid()}>{formatExact(x.amount)} {x.currency}</KvRow>
                <KvRow label={m.mining_per_share()}>{formatExact(x.per_share)} {x.currency}</KvRow>
                {x.status === "paid" && (
                  <KvRow label={m.mining_to_users()}>
                    {formatExact(x.paid_to_users)} {x.currency} <span className="muted">({m.mining_fees_kept({ fees: formatExact(x.fees) })})</span>
                  </KvRow>
                )}
                <EvidenceRow evidence={x.evidence} />
              </dl>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function statusText(s: "pending" | "approved" | "paid" | "rejected"): string {
  return s === "paid" ? m.mining_status_paid() : s === "approved" ? m.mining_status_approved() : s === "rejected" ? m.mining_status_rejected() : m.mining_status_pending();
}

function BuySheet({ p, initial, onClose }: { p: MiningPlan; initial: string; onClose: () => void }) {
  const buy = useBuyShares();
  const navigate = useNavigate();
  const [shares, setShares] = useState(/^\d{1,9}$/.test(initial) && Number(initial) >= 1 ? initial : "1");
  const { busy, error, setError, run } = useSheetAction();
  const n = /^\d{1,9}$/.test(shares) ? Number(shares) : 0;
  const valid = n >= 1 && n <= p.shares_left;
  const r = breakEven({ shares: valid ? shares : "1", price: p.price, fee_bps: p.fee_bps, days: p.days, per_share_day: "0", coin_price: "0", payout_decimals: PAYOUT_DECIMALS, price_decimals: PRICE_DECIMALS });
  const cost = r ? formatExact(r.cost) : "";
  const start = firstHour(Date.now());
  const end = Date.now() + p.days * DAY_MS;
  const go = async () => {
    if (!valid) {
      setError(m.mining_shares_invalid({ left: String(p.shares_left) }));
      return;
    }
    setError("");
    await run(async () => {
      await buy(p.id, n);
      toast.success(m.mining_bought_toast({ shares: String(n) }));
      onClose();
      navigate("/mining/my");
    }, (e) => setError((e as Error).message));
  };
  return (
    <ConfirmSheet title={m.mining_confirm_title()} onClose={onClose} onConfirm={() => void go()} confirmText={m.mining_confirm_pay({ amount: cost, currency: p.price_currency })} busy={busy} testId="mining-confirm" confirmTestId="mining-confirm-go" confirmDisabled={!valid}>
      <label className="field">
        <span className="field-label">{m.mining_calc_shares()}</span>
        <input className="input" inputMode="numeric" value={shares} onChange={(e) => setShares(e.target.value.trim())} data-testid="mining-confirm-shares" />
      </label>
      {error && (
        <p className="field-error" role="alert" data-testid="mining-confirm-error">
          {error}
        </p>
      )}
      <dl className={acct.kv} data-testid="mining-confirm-terms">
        <KvRow label={m.mining_plan()}>{p.name}</KvRow>
        <KvRow label={m.mining_calc_cost()} testId="mining-confirm-cost">{cost} {p.price_currency}</KvRow>
        <KvRow label={m.mining_counts()}>{m.mining_counts_value({ start: formatDateTime(start), end: formatDateTime(end) })}</KvRow>
        <KvRow label={m.mining_fee()}>{m.mining_fee_value({ percent: p.fee_percent })}</KvRow>
      </dl>
      <ul className={`${s.terms} ${s.bullets}`} data-testid="mining-confirm-rules">
        <li>{m.mining_confirm_source({ amount: cost, currency: p.price_currency })}</li>
        <li>{m.mining_confirm_counts()}</li>
        <li>{m.mining_confirm_paid({ fee: p.fee_percent, currency: p.payout_currency })}</li>
        <li>{m.mining_confirm_nothing_promised()}</li>
        <li>{m.mining_confirm_no_exit()}</li>
      </ul>
    </ConfirmSheet>
  );
}
