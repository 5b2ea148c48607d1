/**
 * The money core's ports: everything it needs from the place it runs, and nothing more. A Durable
 * Object gives it `ctx.storage.sql` + `transactionSync` (do-sql.ts); the simulator gives it an
 * in-memory `node:sqlite` database (sim/sqlite.ts). The same code runs in both, so what the
 * simulator proves about it holds inside the object.
 */

/** What SQLite stores: amounts are INTEGER units (safe integers, checked at the core's edge). */
export type SqlValue = string | number | null;

/** A minimal interface over SQLite. */
export interface SqlPort {
  /** Runs one statement; answers the number of rows it changed. */
  run(sql: string, ...params: SqlValue[]): number;
  /** Runs one query; answers its rows as plain objects. */
  query<T>(sql: string, ...params: SqlValue[]): T[];
  /** Runs fn in one transaction: all of its writes or none (a throw rolls every write back). */
  transaction<T>(fn: () => T): T;
}

/** Milliseconds, from the object's clock (real time in a DO, the simulated clock in the sim). */
export interface ClockPort {
  now(): number;
}

/** Uniform in [0, 1): the retry jitter. Seeded in the simulator, so a schedule replays exactly. */
export interface RandomPort {
  next(): number;
}

/** Where the delivery loop hands legs (fire and forget: acknowledgements come back later). */
export interface TransportPort {
  send(from: string, to: string, legs: import("./types.ts").Leg[]): void;
}

/**
 * Known bugs, switched on one at a time by the mutation check (sim/mutants.ts) to show the
 * simulator catches each. Test-only: production code never passes this object.
 */
export interface Mutations {
  /** The receiver applies a leg whose key it has seen. */
  noKeyCheck?: boolean;
  /** An event's legs leave before its transaction commits (a rolled-back event still moves money). */
  sendBeforeCommit?: boolean;
  /** A release of an already resolved hold is applied again. */
  releaseTwice?: boolean;
  /** Legs are buffered in memory and written at the next delivery (a crash drops them). */
  legsInMemory?: boolean;
  /** Credits land on the spot account whatever account the leg names. */
  wrongAccount?: boolean;
  /** Outbox rows are deleted when sent, not when acknowledged. */
  deleteBeforeAck?: boolean;
  /** Trade legs are built without the fee leg. */
  skipFeeLeg?: boolean;
  /** A fill takes the buyer's fee from its hold on top of the cost (past what the order reserved). */
  overspendHold?: boolean;
}

export interface Ports {
  sql: SqlPort;
  clock: ClockPort;
  random: RandomPort;
  transport: TransportPort;
  mutations?: Mutations;
}
