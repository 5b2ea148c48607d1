/**
 * Contract-asset cover (/insurance, issue #19 §4): what the cover is and its rule, the published
 * running totals (premiums collected, claims paid, cover reserved now), and the plans on sale with
 * the premium and cover of each insured amount. Buying opens a confirmation that states every term
 * before any money moves: the premium and where it comes from, the cover the exchange reserves now
 * and where it is paid, T+1 (the next UTC day), when a claim pays, when the cover ends, the limit of
 * two payouts a day, and that there is no early exit (the premium is not refunded).
 */
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { ProductGate } from "../../../components/ProductGate.tsx";
import { formatDayStart, formatMoney, formatMoneyMoved } from "../../../lib/format.ts";
import { useSession } from "../../../lib/session.ts";
import { toast } from "../../../lib/toast.ts";
import { ConfirmSheet, useSheetAction } from "../../../components/ConfirmSheet.tsx";
import { EmptyState, ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { useBuyCover, usePlans, type InsurancePlan, type InsurancePlans } from "../api.ts";
import { nextUtcDay, utcDay } from "../display.ts";
import acct from "../../../components/account.module.css";
import s from "./insurance.module.css";

type Quote = InsurancePlan["quotes"][number];

function Rules({ t }: { t: InsurancePlans }) {
  return (
    <section className="card" data-testid="ins-rules">
      <h2 className="section-title">{m.ins_rules_title()}</h2>
      <ol className={s.rules}>
        <li>{m.ins_rule_buy()}</li>
        <li>{m.ins_rule_t1()}</li>
        <li>{m.ins_rule_value()}</li>
        <li>{m.ins_rule_claim({ percent: t.claim_at_percent })}</li>
        <li>{m.ins_rule_end({ percent: t.end_at_percent })}</li>
        <li>{m.ins_rule_day({ count: String(t.payouts_per_day) })}</li>
        <li>{m.ins_rule_reserved()}</li>
      </ol>
    </section>
  );
}

function Totals({ t }: { t: InsurancePlans }) {
  if (t.totals.length === 0) return null;
  return (
    <section className="card" data-testid="ins-totals">
      <h2 className="section-title">{m.ins_totals_title()}</h2>
      {t.totals.map((x) => (
        <div key={x.currency_id} className={s.stats}>
          <div>
            <span className={s.statLabel}>{m.ins_totals_premiums()}</span>
            <span className={s.statValue} data-testid="ins-total-premiums">{formatMoney(x.premiums_collected, x.currency)}</span>
            <span className={s.statNote}>{x.currency} · {m.ins_totals_sold({ count: String(x.covers_sold) })}</span>
          </div>
          <div>
            <span className={s.statLabel}>{m.ins_totals_paid()}</span>
            <span className={s.statValue} data-testid="ins-total-paid">{formatMoney(x.claims_paid, x.currency)}</span>
            <span className={s.statNote}>{x.currency} · {m.ins_totals_claims({ count: String(x.claims_count) })}</span>
          </div>
          <div className={s.wide}>
            <span className={s.statLabel}>{m.ins_totals_reserved()}</span>
            <span className={s.statValue}>{formatMoney(x.reserved, x.currency)} <small>{x.currency}</small></span>
          </div>
        </div>
      ))}
    </section>
  );
}

function PlanCard({ plan, onBuy }: { plan: InsurancePlan; onBuy: (q: Quote) => void }) {
  const [picked, setPicked] = useState(0);
  const quote = plan.quotes[picked] ?? plan.quotes[0]!;
  return (
    <li className={acct.recordCard} data-testid="ins-plan">
      <div className={acct.recordHead}>
        <span className={acct.recordTitle}>{plan.name}</span>
        <span className="badge badge-ok">{m.ins_plan_badge({ premium: plan.premium_percent, cover: plan.cover_percent })}</span>
      </div>
      <div className={acct.chips} role="radiogroup" aria-label={m.ins_amount()}>
        {plan.quotes.map((q, i) => (
          <button key={q.amount} type="button" role="radio" aria-checked={i === picked} className={i === picked ? "active" : ""} onClick={() => setPicked(i)} data-testid="ins-amount">
            {formatMoneyMoved(q.amount, plan.currency)}
          </button>
        ))}
      </div>
      <dl className={acct.kv}>
        <div className={acct.kvRow}>
          <dt>{m.ins_amount()}</dt>
          <dd className="num">{formatMoneyMoved(quote.amount, plan.currency)} {plan.currency}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.ins_premium()}</dt>
          <dd className="num" data-testid="ins-plan-premium">{formatMoneyMoved(quote.premium, plan.currency)} {plan.currency}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.ins_cover()}</dt>
          <dd className="num" data-testid="ins-plan-cover">{formatMoneyMoved(quote.cover, plan.currency)} {plan.currency}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.ins_term()}</dt>
          <dd>{m.ins_days({ days: String(plan.days) })}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.ins_left()}</dt>
          <dd className="num">{formatMoney(plan.available, plan.currency)} {plan.currency}</dd>
        </div>
      </dl>
      <button type="button" className="btn btn-primary" onClick={() => onBuy(quote)} data-testid="ins-buy">
        {m.ins_buy()}
      </button>
    </li>
  );
}

/** The confirmation: every term stated before the premium moves. */
function BuySheet({ plan, quote, onClose }: { plan: InsurancePlan; quote: Quote; onClose: () => void }) {
  const buy = useBuyCover();
  const navigate = useNavigate();
  const { busy, error, setError, run } = useSheetAction();
  const start = nextUtcDay(Date.now());
  const end = start + plan.days * 86_400_000;
  const c = plan.currency;
  const half = halfOf(quote.amount);
  const go = async () => {
    setError("");
    await run(async () => {
      await buy(plan.id, quote.amount);
      toast.success(m.ins_bought({ day: formatDayStart(start) }));
      onClose();
      navigate("/insurance/my");
    }, (e) => setError((e as Error).message));
  };
  return (
    <ConfirmSheet title={m.ins_confirm_title()} onClose={onClose} onConfirm={() => void go()} confirmText={m.ins_confirm_pay({ amount: formatMoneyMoved(quote.premium, c), currency: c })} busy={busy} testId="ins-confirm" confirmTestId="ins-confirm-go">
      {error && (
        <p className="field-error" role="alert" data-testid="ins-confirm-error">
          {error}
        </p>
      )}
      <dl className={acct.kv} data-testid="ins-confirm-terms">
        <div className={acct.kvRow}>
          <dt>{m.ins_plan()}</dt>
          <dd>{plan.name}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.ins_amount()}</dt>
          <dd className="num">{formatMoneyMoved(quote.amount, c)} {c}</dd>
        </div>
        <div className={`${acct.kvRow} ${acct.strong}`}>
          <dt>{m.ins_premium()}</dt>
          <dd className="num" data-testid="ins-confirm-premium">{formatMoneyMoved(quote.premium, c)} {c}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.ins_cover()}</dt>
          <dd className="num" data-testid="ins-confirm-cover">{formatMoneyMoved(quote.cover, c)} {c}</dd>
        </div>
        <div className={acct.kvRow}>
          <dt>{m.ins_in_force()}</dt>
          <dd className="num" data-testid="ins-confirm-start">{m.ins_in_force_value({ start: utcDay(start), end: utcDay(end) })}</dd>
        </div>
      </dl>
      <ul className={s.terms} data-testid="ins-confirm-rules">
        <li>{m.ins_term_source({ premium: formatMoneyMoved(quote.premium, c), currency: c })}</li>
        <li>{m.ins_term_reserve({ cover: formatMoneyMoved(quote.cover, c), currency: c })}</li>
        <li>{m.ins_term_t1({ day: formatDayStart(start) })}</li>
        <li>{m.ins_term_claim({ value: formatMoneyMoved(half, c), currency: c, cover: formatMoneyMoved(quote.cover, c) })}</li>
        <li>{m.ins_term_end({ value: formatMoneyMoved(doubleOf(quote.amount), c), currency: c, day: formatDayStart(end) })}</li>
        <li>{m.ins_term_day()}</li>
        <li>{m.ins_term_exit()}</li>
      </ul>
    </ConfirmSheet>
  );
}

/** Half of a decimal amount, exactly ("1000" → "500", "1" → "0.5"). */
function halfOf(amount: string): string {
  const [i = "0", f = ""] = amount.split(".");
  const scale = f.length + 1;
  const units = BigInt(i + f) * 10n / 2n;
  return unitsToDecimal(units, scale);
}

function doubleOf(amount: string): string {
  const [i = "0", f = ""] = amount.split(".");
  return unitsToDecimal(BigInt(i + f) * 2n, f.length);
}

function unitsToDecimal(units: bigint, scale: number): string {
  const s = units.toString().padStart(scale + 1, "0");
  const int = s.slice(0, s.length - scale);
  const frac = s.slice(s.length - scale).replace(/0+$/, "");
  return frac ? `${int}.${frac}` : int;
}

function Plans() {
  const plans = usePlans();
  const loggedIn = useSession().token !== "";
  const navigate = useNavigate();
  const [buying, setBuying] = useState<{ plan: InsurancePlan; quote: Quote } | null>(null);
  const t = plans.data;
  return (
    <div className={acct.acctPage} data-testid="insurance-page">
      <section className={acct.heroCard}>
        <h2 className={s.heroTitle}>{m.ins_heading()}</h2>
        <p className={s.heroSub}>{m.ins_intro()}</p>
        {loggedIn && (
          <Link to="/insurance/my" className="btn btn-outline btn-small" data-testid="ins-my-link">
            {m.ins_my()}
          </Link>
        )}
      </section>
      {plans.error && !t ? (
        <ErrorState message={plans.error.message} onRetry={plans.reload} />
      ) : !t ? (
        <>
          <SkeletonBlock height={140} />
          <SkeletonBlock height={220} />
        </>
      ) : (
        <>
          <h2 className="section-title">{m.ins_plans_title()}</h2>
          {t.plans.length === 0 ? (
            <EmptyState text={m.ins_no_plans()} />
          ) : (
            <ul className={acct.recordList}>
              {t.plans.map((p) => (
                <PlanCard key={p.id} plan={p} onBuy={(quote) => (loggedIn ? setBuying({ plan: p, quote }) : navigate("/login?redirect=%2Finsurance"))} />
              ))}
            </ul>
          )}
          <Rules t={t} />
          <Totals t={t} />
        </>
      )}
      {buying && <BuySheet plan={buying.plan} quote={buying.quote} onClose={() => setBuying(null)} />}
    </div>
  );
}

/** Shown only where the deployment has the product on (PRODUCT_INSURANCE); otherwise "not open here". */
export default function InsurancePage() {
  return (
    <ProductGate product="insurance">
      <Plans />
    </ProductGate>
  );
}
