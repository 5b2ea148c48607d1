/**
 * Listing votes (/vote, issue #19 §3): the rules and the advisory note first, then each round with
 * its window, the minimum balance held per voter, the public voter count and a tally bar per
 * candidate. Voting opens a confirmation sheet that states the hold (its amount, that it comes
 * from one's own spot account, when it is released, that it cannot be taken back earlier, no fee)
 * before anything moves. Readable without logging in; voting needs a login and verified identity.
 */
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { m, useLocale } from "../../../i18n/index.ts";
import { formatDateTime } from "../../../lib/format.ts";
import { useSession } from "../../../lib/session.ts";
import { toast } from "../../../lib/toast.ts";
import { ConfirmSheet } from "../../../components/ConfirmSheet.tsx";
import { ProductGate } from "../../../components/ProductGate.tsx";
import { EmptyState, ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { useCastVote, useRounds, type VoteCandidate, type VoteRound, type VoteRoundPhase } from "../api.ts";
import { sharePercent } from "../share.ts";
import { loginPath } from "../../../lib/nav.ts";
import acct from "../../../components/account.module.css";
import s from "./vote.module.css";

const phaseText: Record<VoteRoundPhase, () => string> = {
  upcoming: m.vote_phase_upcoming,
  voting: m.vote_phase_voting,
  ended: m.vote_phase_ended,
  closed: m.vote_phase_closed,
  cancelled: m.vote_phase_cancelled,
};
const phaseTone: Record<VoteRoundPhase, string> = { upcoming: "pending", voting: "ok", ended: "none", closed: "none", cancelled: "bad" };

function Rules() {
  return (
    <section className="card" data-testid="vote-rules">
      <h2 className="section-title">{m.vote_rules_title()}</h2>
      <ul className={s.rules}>
        <li>{m.vote_rule_one()}</li>
        <li>{m.vote_rule_hold()}</li>
        <li>{m.vote_rule_release()}</li>
        <li>{m.vote_rule_public()}</li>
      </ul>
      <p className={`${acct.notice} ${acct.noticeInfo} ${s.advisory}`} data-testid="vote-advisory">
        <strong>{m.vote_advisory_title()}</strong> {m.vote_advisory()}
      </p>
    </section>
  );
}

function VoteSheet({ round, candidate, onClose }: { round: VoteRound; candidate: VoteCandidate; onClose: () => void }) {
  const cast = useCastVote();
  const [busy, setBusy] = useState(false);
  const firstVote = (round.mine?.held ?? "0") === "0";
  const go = async () => {
    setBusy(true);
    try {
      await cast(candidate.id);
      toast.success(m.vote_done());
      onClose();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  return (
    <ConfirmSheet title={m.vote_confirm_title({ name: candidate.name, symbol: candidate.symbol })} onClose={onClose} onConfirm={() => void go()} confirmText={m.vote_confirm_button()} busy={busy} testId="vote-confirm" confirmTestId="vote-confirm-button">
      <dl className={s.terms}>
        <div>
          <dt>{m.vote_confirm_round()}</dt>
          <dd>{round.title}</dd>
        </div>
        <div>
          <dt>{m.vote_confirm_ends()}</dt>
          <dd className="num">{formatDateTime(round.ends_at)}</dd>
        </div>
        <div>
          <dt>{m.vote_confirm_hold()}</dt>
          <dd className="num" data-testid="vote-confirm-amount">
            {firstVote ? `${round.min_balance} ${round.currency}` : "0"}
          </dd>
        </div>
        <div>
          <dt>{m.vote_confirm_source()}</dt>
          <dd>{m.vote_confirm_source_spot()}</dd>
        </div>
        <div>
          <dt>{m.vote_confirm_fee()}</dt>
          <dd>{m.vote_confirm_fee_none()}</dd>
        </div>
      </dl>
      <p className={`${acct.notice} ${acct.noticeWarn}`} data-testid="vote-confirm-hold">
        {firstVote ? m.vote_confirm_hold_first({ amount: round.min_balance, currency: round.currency }) : m.vote_confirm_hold_covered({ amount: round.mine?.held ?? "0", currency: round.currency })}
      </p>
      <p className={`form-note ${s.sheetNote}`}>{m.vote_confirm_final()}</p>
      <p className="form-note">{m.vote_advisory()}</p>
    </ConfirmSheet>
  );
}

function CandidateRow({ round, c, onVote }: { round: VoteRound; c: VoteCandidate; onVote: (c: VoteCandidate) => void }) {
  const session = useSession();
  const navigate = useNavigate();
  const mine = round.mine?.candidate_ids.includes(c.id) ?? false;
  const pct = sharePercent(c.votes, round.votes);
  const action = (() => {
    if (mine) return <span className="badge badge-ok" data-testid="vote-voted">{m.vote_voted()}</span>;
    if (round.phase !== "voting") return null;
    if (session.token === "") {
      return (
        <button type="button" className="btn btn-outline btn-small" onClick={() => navigate(loginPath())} data-testid="vote-login">
          {m.vote_cast()}
        </button>
      );
    }
    return (
      <button type="button" className="btn btn-primary btn-small" onClick={() => onVote(c)} data-testid={`vote-cast-${c.symbol}`}>
        {m.vote_cast()}
      </button>
    );
  })();
  return (
    <li className={s.candidate} data-testid={`vote-candidate-${c.symbol}`}>
      <div className={s.candidateHead}>
        <div className={s.candidateName}>
          <strong>{c.symbol}</strong> <span className="muted">{c.name}</span>
        </div>
        {action}
      </div>
      {c.description && <p className={s.candidateDesc}>{c.description}</p>}
      {c.link && (
        <a className={`link-muted ${s.candidateLink}`} href={c.link} target="_blank" rel="noopener noreferrer nofollow">
          {m.vote_link()}
        </a>
      )}
      <div className={s.tally}>
        <div className={s.bar} role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Number(pct)} aria-label={`${c.symbol} ${pct} %`}>
          <span style={{ width: `${pct}%` }} />
        </div>
        <span className={`num ${s.count}`} data-testid="vote-tally">
          {m.vote_votes({ count: String(c.votes) })} · {pct} %
        </span>
      </div>
    </li>
  );
}

function RoundCard({ round, onVote }: { round: VoteRound; onVote: (r: VoteRound, c: VoteCandidate) => void }) {
  const session = useSession();
  const needsVerify = session.token !== "" && session.verified !== "2" && round.phase === "voting";
  return (
    <section className="card" data-testid={`vote-round-${round.id}`}>
      <div className={s.roundHead}>
        <h2 className="section-title">{round.title}</h2>
        <span className={`badge badge-${phaseTone[round.phase]}`} data-testid="vote-phase">
          {phaseText[round.phase]()}
        </span>
      </div>
      <p className={`num ${s.meta}`}>{m.vote_window({ start: formatDateTime(round.starts_at), end: formatDateTime(round.ends_at) })}</p>
      <div className={s.stats}>
        <div>
          <span className={s.statLabel}>{m.vote_min_balance()}</span>
          <span className={`num ${s.statValue}`} data-testid="vote-min-balance">
            {round.min_balance} {round.currency}
          </span>
        </div>
        <div>
          <span className={s.statLabel}>{m.vote_voters_label()}</span>
          <span className={`num ${s.statValue}`} data-testid="vote-voters">
            {round.voters}
          </span>
        </div>
      </div>
      {round.mine && round.mine.held !== "0" && (
        <p className={`${acct.notice} ${round.mine.released ? acct.noticeOk : acct.noticeInfo}`} data-testid="vote-my-hold">
          {round.mine.released ? m.vote_my_hold_released({ amount: round.mine.held, currency: round.currency }) : m.vote_my_hold({ amount: round.mine.held, currency: round.currency })}
        </p>
      )}
      {round.phase === "cancelled" && <p className={`${acct.notice} ${acct.noticeBad}`}>{m.vote_cancelled_note()}</p>}
      {needsVerify && (
        <p className={`${acct.notice} ${acct.noticeWarn}`}>
          {m.vote_verify_to_vote()} <Link to="/verifyed">{m.menu_verify()}</Link>
        </p>
      )}
      <ul className={s.candidates}>
        {round.candidates.map((c) => (
          <CandidateRow key={c.id} round={round} c={c} onVote={(cand) => onVote(round, cand)} />
        ))}
      </ul>
    </section>
  );
}

function Rounds() {
  useLocale();
  const rounds = useRounds();
  const [picked, setPicked] = useState<{ roundId: number; candidateId: number } | null>(null);
  const list = rounds.data?.data;
  const round = picked ? list?.find((r) => r.id === picked.roundId) : undefined;
  const candidate = round?.candidates.find((c) => c.id === picked?.candidateId);
  return (
    <div className={acct.acctPage} data-testid="vote-page">
      <section className={acct.heroCard}>
        <h2 className={s.heroTitle}>{m.vote_heading()}</h2>
        <p className={s.heroSub}>{m.vote_intro()}</p>
      </section>
      <Rules />
      {rounds.error && !list ? (
        <ErrorState message={rounds.error.message} onRetry={rounds.reload} />
      ) : !list ? (
        <div aria-busy="true">
          <SkeletonBlock height={220} />
        </div>
      ) : list.length === 0 ? (
        <EmptyState text={m.vote_empty()} />
      ) : (
        list.map((r) => <RoundCard key={r.id} round={r} onVote={(rr, c) => setPicked({ roundId: rr.id, candidateId: c.id })} />)
      )}
      {round && candidate && <VoteSheet round={round} candidate={candidate} onClose={() => setPicked(null)} />}
    </div>
  );
}

export default function VotePage() {
  return (
    <ProductGate product="vote">
      <Rounds />
    </ProductGate>
  );
}
