/**
 * The money core's vocabulary. Amounts are integer units of a currency (safe integers: the core
 * refuses anything else); a currency's scale is decided outside (durable/engine/units.ts today).
 */

/**
 * One balance change inside a leg or an event. Spends and releases name the hold they resolve.
 * A leg is one movement: its ops on one account and currency make one movement row, `{leg key}#{index
 * of the first such op}` (money/core.ts `stage`).
 */
export type Op = (
  /** Adds to an account's available funds. */
  | { t: "credit"; kind: string; cur: string; amt: number }
  /** Takes from the sender's own available funds (local ops of an event only, never in a leg). */
  | { t: "debit"; kind: string; cur: string; amt: number }
  /** Takes part of a hold for good (a fill, a lost stake, a released escrow). */
  | { t: "spend"; hold: string; cur: string; amt: number }
  /** Gives part of a hold back to available (a cancel, the rest of a filled order). */
  | { t: "release"; hold: string; cur: string; amt: number }
  /**
   * Credits straight into a new hold (tokens allocated but locked until they vest): the account's
   * frozen funds grow by `amt` under hold `hold`, made here for `forKind`/`forId`, and leave it only
   * by the hold's spends and releases. A hold of that name already here refuses the leg.
   */
  | { t: "lock"; hold: string; kind: string; cur: string; amt: number; forKind: string; forId: string }
);

/** A leg: the ops one event makes in one account object, applied there at most once by its key. */
export interface Leg {
  key: string;
  to: string;
  ops: Op[];
}

/** An event committed by its owner: its own ops (applied in the same transaction) and its legs. */
export interface MoneyEvent {
  key: string;
  local?: Op[];
  legs: Leg[];
}

/** A reservation request: funds moved from available to a hold keyed by what they are for. */
export interface HoldRequest {
  key: string;
  kind: string;
  cur: string;
  amt: number;
  forKind: string;
  forId: string;
}

/** What a receiver answers per leg: every answer is an acknowledgement (the sender forgets it). */
export type LegResult = "applied" | "seen" | "refused";

export interface BalanceRow {
  kind: string;
  currency: string;
  available: number;
  frozen: number;
}

export interface HoldRow {
  hold: string;
  kind: string;
  currency: string;
  amount: number;
  spent: number;
  released: number;
  for_kind: string;
  for_id: string;
  state: "open" | "resolved";
  created_at: number;
}

export interface OutboxRow {
  seq: number;
  key: string;
  dest: string;
  ops: string;
  attempts: number;
  next_at: number;
}

export interface MovementRow {
  seq: number;
  ref: string;
  kind: string;
  currency: string;
  d_available: number;
  d_frozen: number;
}

/** A refusal: the leg or command asks for what the account does not have. Nothing was written. */
export class MoneyRefusal extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
    this.name = "MoneyRefusal";
  }
}
