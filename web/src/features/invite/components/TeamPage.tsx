/**
 * My team (/invite/team): the people one invited, by invite level (1: invited by one, 2: by them,
 * 3: by those), each with a masked account, when they joined, whether their identity is verified
 * at which level (rebates need level 2), the fees they paid on settled days and the part of them
 * that counts for one's rebates, both valued at the day's reference price (the index, not the last trade).
 */
import { useStore } from "@nanostores/react";
import { m } from "../../../i18n/index.ts";
import { formatMoney, formatDay } from "../../../lib/format.ts";
import { PagedList } from "../../../components/ListFooter.tsx";
import { useInviteInfo, useTeam, type InviteeStatus, type InviteLevel } from "../api.ts";
import { $teamLevel } from "../stores.ts";
import acct from "../../../components/account.module.css";
import s from "./invite.module.css";

const levels: InviteLevel[] = [1, 2, 3];

const statusBadge: Record<InviteeStatus, { text: () => string; tone: string }> = {
  eligible: { text: m.invite_status_eligible, tone: "ok" },
  unverified: { text: m.invite_status_unverified, tone: "pending" },
  same_identity: { text: m.invite_status_same_identity, tone: "bad" },
  expired: { text: m.invite_status_expired, tone: "none" },
};

export default function TeamPage() {
  const level = useStore($teamLevel);
  const info = useInviteInfo();
  const list = useTeam(level);
  const counts = info.data ? { 1: info.data.invitees.level1, 2: info.data.invitees.level2, 3: info.data.invitees.level3 } : null;
  return (
    <div className={acct.acctPage} data-testid="invite-team">
      <div className={acct.chips} role="tablist" aria-label={m.invite_team_levels()}>
        {levels.map((l) => (
          <button key={l} type="button" role="tab" aria-selected={level === l} className={level === l ? "active" : ""} onClick={() => $teamLevel.set(l)} data-testid={`team-level-${l}`}>
            {m.invite_level({ level: String(l) })}
            <small>{counts ? m.invite_people({ count: String(counts[l]) }) : " "}</small>
          </button>
        ))}
      </div>
      <p className="form-note">{level === 1 ? m.invite_level_1_who() : level === 2 ? m.invite_level_2_who() : m.invite_level_3_who()}</p>
      <PagedList list={list} emptyText={level === 1 ? m.invite_team_empty() : m.invite_team_empty_level()}>
        {(r) => {
          const badge = statusBadge[r.status];
          // Verified below the level rebates need: say which level they have and which is needed.
          const badgeText = r.status === "unverified" && r.kyc_level > 0 ? m.invite_status_needs_level({ level: String(r.kyc_level_needed) }) : badge.text();
          return (
            <li key={`${r.level}-${r.account}-${r.joined_at}`} className={acct.recordCard} data-testid="team-member">
              <div className={acct.recordHead}>
                <span className={s.account} data-testid="team-account">{r.account}</span>
                <span className={`badge badge-${badge.tone}`} data-testid="team-status">{badgeText}</span>
              </div>
              <dl className={acct.kv}>
                <div className={acct.kvRow}>
                  <dt>{m.invite_joined()}</dt>
                  <dd className="num">{formatDay(r.joined_at)}</dd>
                </div>
                <div className={acct.kvRow}>
                  <dt>{m.invite_verification()}</dt>
                  <dd data-testid="team-kyc">
                    {r.kyc_level > 0 ? m.invite_kyc_level({ level: String(r.kyc_level) }) : m.invite_kyc_none()}
                    {!r.verified && <span className="muted"> · {m.invite_kyc_needed({ level: String(r.kyc_level_needed) })}</span>}
                  </dd>
                </div>
                <div className={acct.kvRow}>
                  <dt>{m.invite_fees_paid()}</dt>
                  <dd className="num" data-testid="team-fees-paid">{formatMoney(r.fees_paid_usdt, "USDT")} USDT</dd>
                </div>
                <div className={acct.kvRow}>
                  <dt>{m.invite_fees_counted()}</dt>
                  <dd className="num" data-testid="team-fees-counted">{formatMoney(r.fees_counted_usdt, "USDT")} USDT</dd>
                </div>
              </dl>
            </li>
          );
        }}
      </PagedList>
    </div>
  );
}
