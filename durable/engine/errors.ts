/**
 * Errors of the matching engine. Expected rejections (bad price, unknown order, ...) are values
 * with a code, returned from `SpotEngine.execute`; the codes and their messages live here so the
 * API layer can translate them. Exceptions are reserved for bugs and corrupt input that must stop
 * the Durable Object instead of being answered: an invalid pair configuration, a snapshot that
 * does not describe a valid book, or a broken internal invariant.
 */

/** Why a command was refused. Stable strings: they go into journals and API responses. */
export type RejectCode =
  | "INVALID_COMMAND"
  | "INVALID_ID"
  | "INVALID_OWNER"
  | "DUPLICATE_ID"
  | "INVALID_SIDE"
  | "INVALID_PRICE"
  | "PRICE_NOT_ON_TICK"
  | "INVALID_QTY"
  | "QTY_NOT_ON_LOT"
  | "BELOW_MIN_NOTIONAL"
  | "NOTIONAL_TOO_LARGE"
  | "INVALID_BUDGET"
  | "UNKNOWN_ORDER"
  | "NOT_OWNER";

/** English messages for each reject code (the API layer may translate by code). */
export const REJECT_MESSAGES: Readonly<Record<RejectCode, string>> = {
  INVALID_COMMAND: "unknown command type",
  INVALID_ID: "order id must be a safe integer or a non-empty string",
  INVALID_OWNER: "owner must be a safe integer or a non-empty string",
  DUPLICATE_ID: "an open order with this id already exists",
  INVALID_SIDE: "side must be buy or sell",
  INVALID_PRICE: "price must be a positive safe integer number of price units",
  PRICE_NOT_ON_TICK: "price is not a multiple of the pair's tick size",
  INVALID_QTY: "quantity must be a positive safe integer number of quantity units",
  QTY_NOT_ON_LOT: "quantity is not a multiple of the pair's lot size",
  BELOW_MIN_NOTIONAL: "order value is below the pair's minimum",
  NOTIONAL_TOO_LARGE: "price times quantity exceeds the safe integer range",
  INVALID_BUDGET: "budget must be a positive safe integer and is only allowed on market buys",
  UNKNOWN_ORDER: "no open order with this id",
  NOT_OWNER: "the order belongs to another account",
};

/** Base class of every exception thrown by the engine. Catching it means a bug or corrupt data. */
export class EngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The pair configuration handed to the engine is unusable (non-integer tick, negative fee, ...). */
export class InvalidPairConfigError extends EngineError {}

/** A snapshot does not describe a valid book (crossed, duplicate ids, off-grid prices, ...). */
export class CorruptSnapshotError extends EngineError {}

/** An internal invariant broke: the engine state can no longer be trusted. */
export class InvariantError extends EngineError {}
