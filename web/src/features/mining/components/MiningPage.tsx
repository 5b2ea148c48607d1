/**
 * Mining plans (/mining, issue #20 §1): shares of named, existing hashrate. Each plan shows its
 * pool and worker, the hashrate, the shares left, the price, the term, the stated fee and what the
 * pool actually paid per share over the last 30 days. Nothing is promised; the plan's page has the
 * payout history with its evidence, a break-even calculator and the purchase.
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { ProductGate } from "../../../components/ProductGate.tsx";
import { formatExact } from "../../../lib/format.ts";
import { useSession } from "../../../lib/session.ts";
import { EmptyState, ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { usePlans, type MiningPlan } from "../api.ts";
import acct from "../../../components/account.module.css";
import s from "./mining.module.css";
import { KvRow } from "../../../components/KvRow.tsx";


function PlanCard({ p }: { p: MiningPlan }) {
  return (
    <li className={acct.recordCard} data-testid="mining-plan">
      <Link to={`/mining/plan?id=${p.id}`} className={s.planLink}>
        <div className={`${acct.recordHead} ${s.head}`}>
          <span className={acct.recordTitle}>{p.name}</span>
          <span className="badge badge-ok">{p.hashrate}</span>
        </div>
        <dl className={acct.kv}>
          <KvRow label={m.mining_pool()}>{p.pool}</KvRow>
          <KvRow label={m.mining_price()}>
            {formatExact(p.price)} {p.price_currency} / {m.mining_share()}
          </KvRow>
          <KvRow label={m.mining_shares_left()} testId="mining-plan-left">
            {m.mining_shares_of({ left: String(p.shares_left), total: String(p.shares) })}
          </KvRow>
          <KvRow label={m.mining_term()}>{m.mining_days({ days: String(p.days) })}</KvRow>
          <KvRow label={m.mining_fee()}>{m.mining_fee_value({ percent: p.fee_percent })}</KvRow>
          <KvRow label={m.mining_paid_30d()} testId="mining-plan-30d">
            {formatExact(p.paid_30d_per_share)} {p.payout_currency} / {m.mining_share()}
          </KvRow>
        </dl>
      </Link>
    </li>
  );
}

function Plans() {
  const plans = usePlans();
  const loggedIn = useSession().token !== "";
  return (
    <div className={acct.acctPage} data-testid="mining-page">
      <section className={acct.heroCard}>
        <h2 className={s.heroTitle}>{m.mining_heading()}</h2>
        <p className={s.heroSub}>{m.mining_intro()}</p>
        {loggedIn && (
          <Link to="/mining/my" className="btn btn-outline btn-small" data-testid="mining-my-link">
            {m.title_mining_my()}
          </Link>
        )}
      </section>
      {plans.error && !plans.data ? (
        <ErrorState message={plans.error.message} onRetry={plans.reload} />
      ) : !plans.data ? (
        <>
          <SkeletonBlock height={200} />
          <SkeletonBlock height={200} />
        </>
      ) : plans.data.length === 0 ? (
        <EmptyState text={m.mining_no_plans()} />
      ) : (
        <ul className={acct.recordList}>
          {plans.data.map((p) => (
            <PlanCard key={p.id} p={p} />
          ))}
        </ul>
      )}
      <section className="card">
        <h2 className="section-title">{m.mining_how_title()}</h2>
        <ol className={s.terms}>
          <li>{m.mining_how_1()}</li>
          <li>{m.mining_how_2()}</li>
          <li>{m.mining_how_3()}</li>
          <li>{m.mining_how_4()}</li>
        </ol>
      </section>
    </div>
  );
}

/** Shown only where the deployment has the product on (PRODUCT_MINING); otherwise "not open here". */
export default function MiningPage() {
  return (
    <ProductGate product="mining">
      <Plans />
    </ProductGate>
  );
}
