/**
 * Listing votes (issue #19 §3): operators open rounds of candidate coins; one verified account
 * casts at most one vote per candidate per round; the round's published minimum balance is held
 * in the voter's own spot account for the whole round (one hold per voter per round, however many
 * candidates it votes for) and released when the round ends or is cancelled. The tally and the
 * voter count are public; the result is advisory (the exchange still vets a listing). No fee.
 * Amounts are decimal strings, times epoch milliseconds.
 *
 *   GET  /api/vote/rounds                      (public; one's own votes when logged in) → voteRoundListSchema
 *   POST /api/vote/cast                        (verified session) voteCastSchema → voteCastResultSchema
 *   GET  /api/admin/vote/rounds                (operator) → voteRoundListSchema
 *   POST /api/admin/vote/rounds                (operator, audited) voteRoundCreateSchema → voteRoundSchema
 *   POST /api/admin/vote/rounds/:id/close      (operator, audited) voteRoundActionSchema → voteRoundSchema
 *   POST /api/admin/vote/rounds/:id/cancel     (operator, audited) voteRoundActionSchema → voteRoundSchema
 */
import { z } from "zod";
import { idInput, multiLineText, singleLineText, TEXT_CHARS } from "./strict.ts";
import { decimalStringSchema } from "./money.ts";

/** Most candidates a round may list. */
export const MAX_CANDIDATES = 20;
/** Longest window a round may have: 90 days. */
export const MAX_ROUND_MS = 90 * 24 * 3600 * 1000;

const id = idInput({ message: "invalid_param" });

/**
 * What a round is doing now: `upcoming` (before its window), `voting`, `ended` (its window is
 * over), `closed` (closed early by an operator: the tally stands), `cancelled` (the tally is void).
 */
export const voteRoundPhases = ["upcoming", "voting", "ended", "closed", "cancelled"] as const;
export const voteRoundPhaseSchema = z.enum(voteRoundPhases);
export type VoteRoundPhase = z.infer<typeof voteRoundPhaseSchema>;

export const voteCandidateSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  symbol: z.string(),
  description: z.string(),
  link: z.string(),
  /** votes cast for it (one per account) */
  votes: z.number().int(),
});
export type VoteCandidate = z.infer<typeof voteCandidateSchema>;

export const voteRoundSchema = z.object({
  id: z.number().int(),
  title: z.string(),
  phase: voteRoundPhaseSchema,
  currency_id: z.number().int(),
  currency: z.string(),
  /** the minimum balance held from each voter's spot account for the whole round, e.g. "10" */
  min_balance: z.string(),
  starts_at: z.number().int(),
  ends_at: z.number().int(),
  /** accounts that voted in this round */
  voters: z.number().int(),
  /** votes cast in this round, all candidates together */
  votes: z.number().int(),
  candidates: z.array(voteCandidateSchema),
  /** one's own part when logged in (null otherwise): the candidates one voted for and one's hold */
  mine: z
    .object({
      candidate_ids: z.array(z.number().int()),
      /** what is held for this round ("0" before one's first vote in it) */
      held: z.string(),
      /** whether that hold has been released (the round is over) */
      released: z.boolean(),
    })
    .nullable(),
});
export type VoteRound = z.infer<typeof voteRoundSchema>;

export const voteRoundListSchema = z.object({ data: z.array(voteRoundSchema) });
export type VoteRoundList = z.infer<typeof voteRoundListSchema>;

/** POST /api/vote/cast */
export const voteCastSchema = z.object({ candidate_id: id });
export type VoteCast = z.infer<typeof voteCastSchema>;

export const voteCastResultSchema = z.object({
  round: voteRoundSchema,
  /** what this cast froze: the round's minimum on one's first vote in it, "0" after that */
  held_now: z.string(),
});
export type VoteCastResult = z.infer<typeof voteCastResultSchema>;

// ---- console ----

const text = (max: number, min = 1, lines = false) => z.string({ message: "invalid_param" }).trim().refine(lines ? multiLineText : singleLineText, TEXT_CHARS).min(min, { message: "invalid_param" }).max(max);

export const voteCandidateInputSchema = z.object({
  name: text(60),
  symbol: z
    .string({ message: "invalid_param" })
    .trim()
    .refine(singleLineText, TEXT_CHARS)
    .toUpperCase()
    .regex(/^[A-Z0-9]{1,12}$/, { message: "vote_symbol_format" }),
  description: text(500, 0, true).default(""),
  link: z
    .string({ message: "invalid_param" })
    .trim()
    .refine(singleLineText, TEXT_CHARS)
    .max(300)
    .refine((v) => v === "" || /^https:\/\/[^\s]+$/.test(v), { message: "vote_link_format" })
    .default(""),
});
export type VoteCandidateInput = z.infer<typeof voteCandidateInputSchema>;

export const voteRoundCreateSchema = z
  .object({
    title: text(120),
    currency_id: id,
    min_balance: decimalStringSchema,
    starts_at: z.number({ message: "invalid_param" }).int().positive(),
    ends_at: z.number({ message: "invalid_param" }).int().positive(),
    candidates: z
      .array(voteCandidateInputSchema, { message: "invalid_param" })
      .min(2, { message: "vote_candidates_count" })
      .max(MAX_CANDIDATES, { message: "vote_candidates_count" }),
    reason: text(200, 1, true),
  })
  .refine((r) => r.ends_at > r.starts_at && r.ends_at - r.starts_at <= MAX_ROUND_MS, { message: "vote_window", path: ["ends_at"] })
  .refine((r) => new Set(r.candidates.map((c) => c.symbol)).size === r.candidates.length, { message: "vote_symbol_twice", path: ["candidates"] });
export type VoteRoundCreate = z.infer<typeof voteRoundCreateSchema>;

/** Closing or cancelling a round: the reason goes to the audit log. */
export const voteRoundActionSchema = z.object({ reason: text(200, 1, true) });
export const voteRoundIdParamSchema = z.object({ id });
