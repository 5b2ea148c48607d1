/**
 * What the account object's calls take and answer (its RPC contract with the Worker and the
 * other objects). Amounts are bigint integer units of the currency (never a JS number on this
 * boundary); inside, the money core keeps them as safe integers and refuses anything past 2^53.
 * Accounts are the wallet account names of D1 (`change`, `micro`, `legal`, `lever`, …) and
 * currencies their D1 ids, so a movement drains to the read model as it is.
 */

/** A notification written in the same transaction as the money it describes (the inbox's row). */
export interface AccountNotice {
  /** The event's key: one row per key, ever (as `notifications (user_id, event_key)` in D1). */
  eventKey: string;
  kind: string;
  params?: Record<string, string | number | boolean | null>;
  link?: string;
}

/** Funds moved from available into a hold, keyed by what they reserve for: hold `${forKind}:${forId}`. */
export interface ReserveRequest {
  forKind: string;
  forId: string;
  account: string;
  currencyId: number;
  amount: bigint;
  notice?: AccountNotice;
  /** Who owns the record the hold is for (`pair:{id}` for a spot order): where it is cancelled, whom the orphan sweep asks. */
  owner?: string;
  /**
   * The client's own id for the record (a client order id): one record per `forKind` and client id
   * in this account, ever. A reserve naming a client id already taken holds nothing and answers
   * `replay` with the first record's hold and `terms` (checked in the same transaction: two
   * requests with one client id at the same moment give one hold).
   */
  clientId?: string;
  /** What answering a replay needs of the record (the caller's own text, e.g. JSON of its terms), kept with the client id. */
  terms?: string;
  /**
   * The hold of the same record's earlier draw, given back because its id was taken (a spot order's
   * pair answered ID_TAKEN: nothing booked): if `clientId` points at that hold and it is no longer
   * open, the client id passes to this reserve instead of answering `replay` with a record that
   * never was. Only the Worker's own redraw sets it.
   */
  replaces?: string;
}

export interface AccountHold {
  hold: string;
  account: string;
  currencyId: number;
  amount: bigint;
  spent: bigint;
  released: bigint;
  forKind: string;
  forId: string;
  open: boolean;
  createdAt: number;
  /** The record's owner given at reserve time (absent when none was given). */
  owner?: string;
}

/**
 * `reserved`: moved now. `exists`: this hold was made before (a retry): nothing moved, the hold as
 * it stands is answered and the caller compares it. `insufficient`: nothing moved. `replay`: the
 * request's client id names an earlier record: nothing moved, that record's hold and terms answered.
 */
export type ReserveAnswer =
  | { result: "reserved" | "exists"; hold: AccountHold }
  | { result: "insufficient"; available: bigint }
  | { result: "replay"; hold: AccountHold; terms: string };

/** A batch's answers (`accountReserveMany`): as ReserveAnswer, but a hold made answers only that it was made (the batch's caller reads nothing more, and twenty holds would cross the call for nothing). */
export type ReserveManyAnswer = Exclude<ReserveAnswer, { result: "reserved" | "exists" }> | { result: "reserved" } | { result: "exists"; hold: AccountHold };

/** One balance change of a leg. Spends and releases name a hold of this account. */
export type AccountOp =
  | { t: "credit"; account: string; currencyId: number; amount: bigint }
  | { t: "spend"; hold: string; amount: bigint }
  | { t: "release"; hold: string; amount: bigint | "rest" };

/** A leg: ops applied together and at most once by key, with the notification they announce. */
export interface AccountLeg {
  key: string;
  ops: AccountOp[];
  notice?: AccountNotice;
}

/**
 * `applied`: done now. `seen`: this key was applied before; nothing done again. `refused`: the leg
 * asks for what is not there (no such hold, past what it holds); nothing of it was applied, and the
 * key stays refused (recorded for an operator, as the money core does).
 */
export type LegAnswer = { key: string; result: "applied" | "seen" } | { key: string; result: "refused"; reason: string };

/** Resolves a hold: spends part of it for good and gives back the rest (or some), crediting what the event pays. */
export interface ResolveRequest {
  key: string;
  hold: string;
  spend: bigint;
  release: bigint | "rest";
  credits?: { account: string; currencyId: number; amount: bigint }[];
  notice?: AccountNotice;
}

/** Between two accounts of this user: one transaction, no legs. */
export interface TransferRequest {
  key: string;
  from: string;
  to: string;
  currencyId: number;
  amount: bigint;
  notice?: AccountNotice;
}

export type TransferAnswer = "moved" | "seen" | "insufficient";

/** A conversion's answer: as a transfer's, or `void` when the key was made final without it (the house's orphan sweep). */
export type ConvertAnswer = TransferAnswer | "void";

/** One currency for another in this user's object (a conversion): `from` leaves available, `to` is credited, once by key. */
export interface ConvertRequest {
  key: string;
  from: { account: string; currencyId: number; amount: bigint };
  to: { account: string; currencyId: number; amount: bigint };
  notice?: AccountNotice;
}

export interface AccountBalance {
  account: string;
  currencyId: number;
  available: bigint;
  frozen: bigint;
}

/** A D1 balance row as the migration copies it (what the account object must equal afterwards). */
export interface OpeningBalance {
  account: string;
  currencyId: number;
  available: bigint;
  frozen: bigint;
}

/** An open record's part of a frozen balance (from the products' hold sources): becomes hold `${forKind}:${forId}`. */
export interface OpeningHold {
  forKind: string;
  forId: string;
  account: string;
  currencyId: number;
  amount: bigint;
  /** The record's owner as a reservation names it (`pair:{id}`): a cancel finds the pair by it, the orphan sweep asks it. */
  owner?: string;
}

/** `imported`: written now; `seen`: this object was opened from D1 before (nothing written again). */
export interface ImportAnswer {
  result: "imported" | "seen";
  balances: AccountBalance[];
}

/** One drain step: what reached D1, and the bookmarks after it. */
export interface DrainAnswer {
  movements: number;
  notices: number;
  /** Every movement up to this seq is in the read model. */
  drainedSeq: number;
  /** Movements still waiting (another step drains them). */
  more: boolean;
}
