/**
 * Launches (/launch): every published sale with its price, window (live countdown), supply and
 * how much has been committed; tap one for its terms and the commit sheet.
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { ProductGate } from "../../../components/ProductGate.tsx";
import { formatExact } from "../../../lib/format.ts";
import { fromUnits, toUnits } from "../../../lib/amount.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useProjects, type LaunchProject } from "../api.ts";
import { Clock } from "./Clock.tsx";
import acct from "../../../components/account.module.css";
import s from "./launch.module.css";

/** How much of the supply the commitments so far would buy, as a bar width in tenths of a percent (capped at 100 %). */
function fill(p: LaunchProject): string {
  const supply = toUnits(p.supply, p.token_scale) ?? 0n;
  const demand = toUnits(p.total_demand, p.token_scale) ?? 0n;
  if (supply <= 0n) return "0%";
  const permille = (demand * 1000n) / supply;
  return `${fromUnits(permille > 1000n ? 1000n : permille, 1)}%`;
}

export default function LaunchPage() {
  return (
    <ProductGate product="launch">
      <LaunchPageScreen />
    </ProductGate>
  );
}

function LaunchPageScreen() {
  const q = useProjects();
  return (
    <div className={acct.acctPage} data-testid="launch-page">
      <p className={`form-note ${s.intro}`}>{m.launch_intro()}</p>
      <div className={s.topLink}>
        <Link to="/launch/my" className="btn btn-outline btn-small" data-testid="launch-my-link">
          {m.title_launch_my()}
        </Link>
      </div>
      {q.loading ? (
        <SkeletonList rows={3} />
      ) : q.error ? (
        <ErrorState message={q.error.message} onRetry={q.reload} />
      ) : !q.data || q.data.length === 0 ? (
        <EmptyState text={m.launch_empty()} />
      ) : (
        <ul className={acct.recordList}>
          {q.data.map((p) => (
            <li key={p.id} className={acct.recordCard} data-testid="launch-card">
              <Link to={`/launch/project?id=${p.id}`} className={s.projectCard}>
                <div className={s.projectHead}>
                  <span className={s.projectTitle}>{p.title}</span>
                  <Clock project={p} />
                </div>
                <div className={s.bar} aria-hidden="true">
                  <span style={{ width: fill(p) }} />
                </div>
                <dl className={acct.kv}>
                  <div className={acct.kvRow}>
                    <dt>{m.launch_price()}</dt>
                    <dd className="num">{p.prices.map((x) => `${formatExact(x.price)} ${x.currency}`).join(" · ")}</dd>
                  </div>
                  <div className={acct.kvRow}>
                    <dt>{m.launch_supply()}</dt>
                    <dd className="num">
                      {formatExact(p.supply)} {p.token}
                    </dd>
                  </div>
                  <div className={acct.kvRow}>
                    <dt>{m.launch_total_demand()}</dt>
                    <dd className="num">
                      {formatExact(p.total_demand)} {p.token}
                    </dd>
                  </div>
                </dl>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
