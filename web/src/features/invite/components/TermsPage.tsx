/**
 * The public invitation terms (/invite/terms, issue #18 §2): the level rates, the agent levels
 * with their thresholds and extra shares, the 12 months, what counts (fees really paid by verified
 * invitees, valued at the day's close, settled daily) and what is refused (self-invites,
 * unverified accounts, zero-fee trades, pay for headcount). Rates an operator set for a later day
 * are announced with the day they start. Readable without logging in.
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatMoney } from "../../../lib/format.ts";
import { formatRate } from "../../../lib/rate.ts";
import { useSession } from "../../../lib/session.ts";
import { ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { useInviteTerms, type InviteTerms } from "../api.ts";
import { productLabel } from "../labels.ts";
import { RateRow } from "./RateRow.tsx";
import acct from "../../../components/account.module.css";
import s from "./invite.module.css";

function AgentTable({ rows, testId }: { rows: InviteTerms["agent_levels"]; testId: string }) {
  return (
    <table className={acct.feeTable} data-testid={testId}>
      <thead>
        <tr>
          <th>{m.invite_terms_agent_level()}</th>
          <th className="right">{m.invite_terms_agent_threshold()}</th>
          <th className="right">{m.invite_terms_agent_extra()}</th>
        </tr>
      </thead>
      <tbody>
        {[...rows]
          .sort((a, b) => a.level - b.level)
          .map((r) => (
            <tr key={r.level}>
              <td>{m.invite_agent_level({ level: String(r.level) })}</td>
              <td className="right num">≥ {formatMoney(r.threshold_usdt, "USDT")}</td>
              <td className="right num">+{formatRate(r.extra_rate)}</td>
            </tr>
          ))}
      </tbody>
    </table>
  );
}

export default function TermsPage() {
  const terms = useInviteTerms();
  const loggedIn = useSession().token !== "";
  const t = terms.data;
  if (terms.error && !t) return <ErrorState message={terms.error.message} onRetry={terms.reload} />;
  if (!t) {
    return (
      <div className={acct.acctPage} aria-busy="true">
        <SkeletonBlock height={160} />
        <SkeletonBlock height={220} />
      </div>
    );
  }
  return (
    <div className={`${acct.acctPage} ${s.terms}`} data-testid="invite-terms">
      <section className={acct.heroCard}>
        <h2 className={s.heroTitle}>{m.invite_terms_heading()}</h2>
        <p className={s.heroSub}>{m.invite_terms_intro()}</p>
      </section>

      <section className="card" data-testid="terms-rates">
        <h2 className="section-title">{m.invite_rates_title()}</h2>
        <RateRow rates={t.level_rates} />
        <p className="form-note">{m.invite_terms_max({ rate: formatRate(t.max_total_rate) })}</p>
        {/* The seeded defaults (migrations/0022) are dated 2000-01-01: they hold since the programme began, so no date is shown for them. */}
        {t.effective_from > "2000-01-01" && <p className="form-note" data-testid="terms-effective">{m.invite_terms_effective({ day: t.effective_from })}</p>}
      </section>

      {t.next && (
        <section className={`${acct.notice} ${acct.noticeInfo}`} data-testid="terms-next">
          <strong>{m.invite_terms_next({ day: t.next.effective_from })}</strong>
          <RateRow rates={t.next.level_rates} />
          <AgentTable rows={t.next.agent_levels} testId="terms-next-agents" />
        </section>
      )}

      <section className="card">
        <h2 className="section-title">{m.invite_agent_title()}</h2>
        <p className="form-note">{m.invite_terms_agent_intro()}</p>
        <AgentTable rows={t.agent_levels} testId="terms-agents" />
      </section>

      <section className="card">
        <h2 className="section-title">{m.invite_terms_duration_title()}</h2>
        <p className="form-note" data-testid="terms-months">{m.invite_terms_duration({ months: String(t.months) })}</p>
      </section>

      <section className="card">
        <h2 className="section-title">{m.invite_terms_counts_title()}</h2>
        <ul>
          <li>{m.invite_terms_counts_fees()}</li>
          <li>{m.invite_terms_counts_products({ products: t.products.map(productLabel).join(m.invite_list_sep()) })}</li>
          <li>{m.invite_terms_counts_close()}</li>
          <li>{m.invite_terms_counts_paid()}</li>
        </ul>
      </section>

      <section className="card" data-testid="terms-refused">
        <h2 className="section-title">{m.invite_terms_refused_title()}</h2>
        <ul>
          <li>{m.invite_terms_refused_self()}</li>
          <li>{m.invite_terms_refused_unverified()}</li>
          <li>{m.invite_terms_refused_zero_fee()}</li>
          <li>{m.invite_terms_refused_headcount()}</li>
        </ul>
      </section>

      <Link to={loggedIn ? "/invite" : "/register"} className="btn btn-primary btn-block btn-large">
        {loggedIn ? m.invite_terms_to_invite() : m.invite_terms_to_register()}
      </Link>
    </div>
  );
}
