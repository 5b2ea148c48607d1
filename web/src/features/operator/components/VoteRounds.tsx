/**
 * The console's listing-vote rounds (/admin/vote, issue #19 §3): open a round (title, candidates,
 * window, the minimum balance each voter holds in a stated currency), and close (the tally stands)
 * or cancel (void) an open one. Every action asks for a reason and is audited; closing or
 * cancelling releases the voters' holds at once.
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, parseBeijingInput, timeHeading, toBeijingInput } from "../../../lib/format.ts";
import { useCurrencies } from "../api.ts";
import { useCreateVoteRound, useEndVoteRound, useVoteRounds, type VoteRound } from "../voteApi.ts";
import { useDecisionDialog } from "./common.tsx";
import { CurrencySelect, Field, FormDialog, Loaded, ReasonField, SectionHead, TextField, useFormSave } from "./kit.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";
import v from "./VoteRounds.module.css";

const phaseLabel: Record<VoteRound["phase"], () => string> = {
  upcoming: m.vote_phase_upcoming,
  voting: m.vote_phase_voting,
  ended: m.vote_phase_ended,
  closed: m.vote_phase_closed,
  cancelled: m.vote_phase_cancelled,
};

interface CandidateForm {
  name: string;
  symbol: string;
  description: string;
  link: string;
}
const emptyCandidate = (): CandidateForm => ({ name: "", symbol: "", description: "", link: "" });

/** The datetime-local inputs are read and filled in UTC+8, the zone their labels state. */
const msToBeijingInput = (ms: number) => toBeijingInput(ms, "T");

function CreateDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateVoteRound();
  const currencies = useCurrencies();
  const now = Date.now();
  const [title, setTitle] = useState("");
  const [currency, setCurrency] = useState(3);
  const [min, setMin] = useState("10");
  const [starts, setStarts] = useState(msToBeijingInput(now));
  const [ends, setEnds] = useState(msToBeijingInput(now + 7 * 24 * 3600_000));
  const [candidates, setCandidates] = useState<CandidateForm[]>([emptyCandidate(), emptyCandidate()]);
  const [reason, setReason] = useState("");
  const { busy, error, save } = useFormSave(onClose, m.op_vote_created);
  const setCand = (i: number, patch: Partial<CandidateForm>) => setCandidates((cs) => cs.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  const go = () => {
    const startsAt = parseBeijingInput(starts);
    const endsAt = parseBeijingInput(ends);
    const filled = candidates.filter((c) => c.name.trim() || c.symbol.trim());
    const incomplete = !title.trim() || !min.trim() || startsAt === null || endsAt === null || filled.length < 2 || filled.some((c) => !c.name.trim() || !c.symbol.trim());
    save(incomplete ? m.op_vote_err_fields() : !reason.trim() ? m.op_reason_required() : null, () =>
      create({
        title: title.trim(),
        currency_id: currency,
        min_balance: min.trim(),
        starts_at: startsAt!,
        ends_at: endsAt!,
        candidates: filled.map((c) => ({ name: c.name.trim(), symbol: c.symbol.trim(), description: c.description.trim(), link: c.link.trim() })),
        reason: reason.trim(),
      }),
    );
  };
  return (
    <FormDialog title={m.op_vote_new()} testId="vote-create-dialog" onClose={onClose} onSave={go} saveText={m.op_vote_create()} saveTestId="vote-create-confirm" busy={busy} error={error} note={<p className="form-note">{m.op_audit_note()}</p>}>
        <Field label={m.op_vote_title_label()}>
          <input className="input" value={title} maxLength={120} onChange={(e) => setTitle(e.target.value)} data-testid="vote-create-title" />
        </Field>
        <div className={v.grid2}>
          <CurrencySelect value={currency} onChange={setCurrency} currencies={currencies.data} testId="vote-create-currency" />
          <TextField label={m.op_vote_min()} mode="decimal" value={min} onChange={(x) => setMin(x.trim())} testId="vote-create-min" />
        </div>
        <div className={v.times}>
          <Field label={timeHeading(m.op_vote_starts())}>
            <input className="input" type="datetime-local" value={starts} onChange={(e) => setStarts(e.target.value)} data-testid="vote-create-starts" />
          </Field>
          <Field label={timeHeading(m.op_vote_ends())}>
            <input className="input" type="datetime-local" value={ends} onChange={(e) => setEnds(e.target.value)} data-testid="vote-create-ends" />
          </Field>
        </div>
        <p className="form-note">{m.op_vote_min_note()}</p>
        <h3 className={s.adminSubtitle}>{m.op_vote_candidates()}</h3>
        {candidates.map((c, i) => (
          <fieldset key={i} className={v.candidate} data-testid={`vote-create-candidate-${i}`}>
            <div className={v.grid2}>
              <input className="input" placeholder={m.op_vote_cand_name()} aria-label={m.op_vote_cand_name()} value={c.name} maxLength={60} onChange={(e) => setCand(i, { name: e.target.value })} data-testid={`vote-cand-name-${i}`} />
              <input className="input" placeholder={m.op_vote_cand_symbol()} aria-label={m.op_vote_cand_symbol()} value={c.symbol} maxLength={12} autoCapitalize="characters" onChange={(e) => setCand(i, { symbol: e.target.value.toUpperCase().trim() })} data-testid={`vote-cand-symbol-${i}`} />
            </div>
            <input className="input" placeholder={m.op_vote_cand_desc()} aria-label={m.op_vote_cand_desc()} value={c.description} maxLength={500} onChange={(e) => setCand(i, { description: e.target.value })} />
            <input className="input" placeholder={m.op_vote_cand_link()} aria-label={m.op_vote_cand_link()} value={c.link} maxLength={300} inputMode="url" onChange={(e) => setCand(i, { link: e.target.value.trim() })} />
            {candidates.length > 2 && (
              <button type="button" className="text-btn" onClick={() => setCandidates((cs) => cs.filter((_, j) => j !== i))}>
                {m.op_vote_remove()}
              </button>
            )}
          </fieldset>
        ))}
        {candidates.length < 20 && (
          <button type="button" className="btn btn-outline btn-small" onClick={() => setCandidates((cs) => [...cs, emptyCandidate()])} data-testid="vote-create-add">
            {m.op_vote_add_cand()}
          </button>
        )}
        <ReasonField value={reason} onChange={setReason} testId="vote-create-reason" />
    </FormDialog>
  );
}

function RoundRow({ round, onEnd }: { round: VoteRound; onEnd: (r: VoteRound, action: "close" | "cancel") => void }) {
  const open = round.phase === "upcoming" || round.phase === "voting" || round.phase === "ended";
  return (
    <li className={v.round} data-testid={`op-vote-round-${round.id}`}>
      <div className={v.roundHead}>
        <strong>{round.title}</strong>
        <span className="badge badge-none">{phaseLabel[round.phase]()}</span>
      </div>
      <p className="form-note num">
        {formatDateTime(round.starts_at)} – {formatDateTime(round.ends_at)} · {round.min_balance} {round.currency} · {m.op_vote_tally({ voters: String(round.voters), votes: String(round.votes) })}
      </p>
      <p className="form-note">{round.candidates.map((c) => `${c.symbol} ${c.votes}`).join(" · ")}</p>
      {open && (
        <div className={v.actions}>
          <button type="button" className="btn btn-outline btn-small" onClick={() => onEnd(round, "close")} data-testid="op-vote-close">
            {m.op_vote_close()}
          </button>
          <button type="button" className={`btn btn-small ${acct.btnDanger}`} onClick={() => onEnd(round, "cancel")} data-testid="op-vote-cancel">
            {m.op_vote_cancel()}
          </button>
        </div>
      )}
    </li>
  );
}

export function VoteRounds() {
  const rounds = useVoteRounds();
  const end = useEndVoteRound();
  const [creating, setCreating] = useState(false);
  const { open, dialog } = useDecisionDialog();
  const list = rounds.data?.data;
  const onEnd = (r: VoteRound, action: "close" | "cancel") =>
    open({
      title: action === "close" ? m.op_vote_close_title({ title: r.title }) : m.op_vote_cancel_title({ title: r.title }),
      confirmText: action === "close" ? m.op_vote_close_do() : m.op_vote_cancel_do(),
      reasonRequired: true,
      danger: action === "cancel",
      summary: <p className="form-note">{action === "close" ? m.op_vote_close_summary() : m.op_vote_cancel_summary()}</p>,
      run: (reason) => end(r.id, action, reason),
    });
  return (
    <div data-testid="op-vote">
      <SectionHead title={m.op_nav_vote()} action={m.op_vote_new()} onAction={() => setCreating(true)} actionTestId="op-vote-new" />
      <Loaded q={{ data: list, error: rounds.error, reload: rounds.reload }} rows={3} empty={(d) => d.length === 0} emptyText={m.op_vote_empty()}>
        {(rows) => (
          <ul className={v.rounds}>
            {rows.map((r) => (
              <RoundRow key={r.id} round={r} onEnd={onEnd} />
            ))}
          </ul>
        )}
      </Loaded>
      {creating && <CreateDialog onClose={() => setCreating(false)} />}
      {dialog}
    </div>
  );
}
