/**
 * Invite friends (/invite, issue #18 §3): one's code and link with a QR of the link, copy buttons,
 * a share button (the Web Share API; copying the link where there is none), the three level rates,
 * one's agent level with the progress to the next, how many people one invited and what one earned.
 * The rule in one sentence sits on top: a share of the fees friends really pay, nothing for a
 * sign-up.
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { copyText } from "../../../lib/clipboard.ts";
import { formatMoney } from "../../../lib/format.ts";
import { formatRate } from "../../../lib/rate.ts";
import { toast } from "../../../lib/toast.ts";
import { Icon } from "../../../components/Icon.tsx";
import { QrImage } from "../../../components/QrImage.tsx";
import { ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { useInviteInfo, type InviteInfo } from "../api.ts";
import { RateRow } from "./RateRow.tsx";
import { agentProgress, canShare, shareData } from "../display.ts";
import acct from "../../../components/account.module.css";
import s from "./invite.module.css";

async function copy(text: string, done: string) {
  if (await copyText(text)) toast.success(done);
  else toast.error(m.invite_copy_failed());
}

async function share(info: InviteInfo) {
  const data = shareData(m.invite_share_title(), m.invite_share_text({ code: info.code }), info.link);
  if (canShare(typeof navigator === "undefined" ? undefined : navigator, data)) {
    try {
      await navigator.share(data);
      return;
    } catch (err) {
      // The user closed the sheet: nothing to do. Anything else: copy instead.
      if (err instanceof DOMException && err.name === "AbortError") return;
    }
  }
  await copy(info.link, m.invite_link_copied_share());
}

export default function InvitePage() {
  const info = useInviteInfo();
  const d = info.data;
  if (info.error && !d) return <ErrorState message={info.error.message} onRetry={info.reload} />;
  if (!d) {
    return (
      <div className={acct.acctPage} aria-busy="true">
        <SkeletonBlock height={110} />
        <SkeletonBlock height={330} />
        <SkeletonBlock height={120} />
      </div>
    );
  }
  const level1 = d.level_rates.find((r) => r.level === 1)?.rate ?? "0";
  return (
    <div className={acct.acctPage} data-testid="invite-page">
      <section className={acct.heroCard}>
        <h2 className={s.heroTitle}>{m.invite_hero_title({ rate: formatRate(level1) })}</h2>
        <p className={s.heroSub}>{m.invite_hero_sub({ months: String(d.months) })}</p>
        <div className={s.stats}>
          <div>
            <span className={s.statLabel}>{m.invite_invitees()}</span>
            <span className={`${s.statValue} num`} data-testid="invite-invitees">{d.invitees.total}</span>
            <span className={s.statNote}>{m.invite_verified_count({ count: String(d.invitees.verified) })}</span>
          </div>
          <div>
            <span className={s.statLabel}>{m.invite_earned()}</span>
            <span className={`${s.statValue} num`} data-testid="invite-earned">
              {formatMoney(d.earned_usdt, "USDT")}
            </span>
            <span className={s.statNote}>USDT</span>
          </div>
        </div>
      </section>

      <section className={`card ${acct.qrCard}`} data-testid="invite-card">
        <QrImage dataUrl={null} text={d.link} alt={m.invite_qr_alt()} size={168} />
        <div className={s.codeBlock}>
          <span className={s.codeLabel}>{m.invite_my_code()}</span>
          <span className={`${s.code} num`} data-testid="invite-code">{d.code}</span>
        </div>
        <div className={acct.addressBox}>
          <code className={acct.addressText} data-testid="invite-link">{d.link}</code>
        </div>
        <div className={s.actions}>
          <button type="button" className="btn btn-outline" onClick={() => void copy(d.code, m.invite_code_copied())} data-testid="invite-copy-code">
            <Icon name="copy" size={16} />
            {m.invite_copy_code()}
          </button>
          <button type="button" className="btn btn-outline" onClick={() => void copy(d.link, m.invite_link_copied())} data-testid="invite-copy-link">
            <Icon name="copy" size={16} />
            {m.invite_copy_link()}
          </button>
          <button type="button" className={`btn btn-primary ${s.shareBtn}`} onClick={() => void share(d)} data-testid="invite-share">
            <Icon name="share" size={16} />
            {m.invite_share()}
          </button>
        </div>
      </section>

      <section className="card" data-testid="invite-rates">
        <h2 className="section-title">{m.invite_rates_title()}</h2>
        <RateRow rates={d.level_rates} />
        <p className="form-note">{m.invite_rates_note({ months: String(d.months) })}</p>
      </section>

      <AgentCard info={d} />

      <nav className={acct.menuList}>
        <Link to="/invite/team" className={acct.menuItem} data-testid="invite-to-team">
          <Icon name="c2c" size={20} />
          <span className={acct.menuItemLabel}>{m.title_invite_team()}</span>
          <span className="muted num">{d.invitees.total}</span>
          <Icon name="chevron" size={16} className={acct.menuChevron} />
        </Link>
        <Link to="/invite/rebates" className={acct.menuItem} data-testid="invite-to-rebates">
          <Icon name="records" size={20} />
          <span className={acct.menuItemLabel}>{m.title_invite_rebates()}</span>
          <Icon name="chevron" size={16} className={acct.menuChevron} />
        </Link>
        <Link to="/invite/terms" className={acct.menuItem} data-testid="invite-to-terms">
          <Icon name="help" size={20} />
          <span className={acct.menuItemLabel}>{m.title_invite_terms()}</span>
          <Icon name="chevron" size={16} className={acct.menuChevron} />
        </Link>
      </nav>
    </div>
  );
}

function AgentCard({ info }: { info: InviteInfo }) {
  const next = info.agent_next;
  const progress = next ? agentProgress(next.fees_30d_usdt, next.threshold_usdt) : null;
  return (
    <section className="card" data-testid="invite-agent">
      <div className={s.agentHead}>
        <h2 className="section-title">{m.invite_agent_title()}</h2>
        <span className={`badge ${info.agent_level > 0 ? "badge-ok" : "badge-none"}`} data-testid="invite-agent-level">
          {info.agent_level > 0 ? m.invite_agent_level({ level: String(info.agent_level) }) : m.invite_agent_none()}
        </span>
      </div>
      {info.agent_level > 0 && <p className="form-note">{m.invite_agent_extra({ rate: formatRate(info.agent_rate) })}</p>}
      <div className={s.kvLine}>
        <span className="muted">{m.invite_fees_30d()}</span>
        <span className="num">{formatMoney(info.fees_30d_usdt, "USDT")} USDT</span>
      </div>
      {next && progress ? (
        <>
          <div className={s.bar} role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={progress.percent} aria-label={m.invite_agent_progress_label({ level: String(next.level) })}>
            <span style={{ width: `${progress.percent}%` }} />
          </div>
          <p className="form-note" data-testid="invite-agent-next">
            {m.invite_agent_next({ missing: formatMoney(progress.missing, "USDT"), level: String(next.level), rate: formatRate(next.extra_rate), threshold: formatMoney(next.threshold_usdt, "USDT") })}
          </p>
        </>
      ) : (
        <p className="form-note">{m.invite_agent_top()}</p>
      )}
    </section>
  );
}
