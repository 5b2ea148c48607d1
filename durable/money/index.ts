/**
 * The money core: pure code (no Workers or Node imports) behind ports for SQL, the clock,
 * randomness and the transport. durable/account/ (next) runs it over a Durable Object's SQLite;
 * sim/ runs it under seeded faults in Node.
 */
export * from "./types.ts";
export type * from "./ports.ts";
export { MoneyCore, units, netByCurrency, RETRY_BASE_MS, RETRY_CAP_MS, STEP_WINDOW, STEP_DESTINATIONS, CALL_LEGS } from "./core.ts";
export { MONEY_MIGRATIONS, migrateMoney, type Migration } from "./schema.ts";
export * from "./legs.ts";
export { doSqlPort, type DoStorageLike } from "./do-sql.ts";
