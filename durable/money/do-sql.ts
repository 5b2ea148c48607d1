/**
 * The SQL port over a Durable Object's SQLite storage (`ctx.storage.sql` + `transactionSync`).
 * Typed structurally, so the core and this adapter build without the Workers types and a test can
 * hand it `state.storage` from `runInDurableObject`.
 */
import type { SqlPort, SqlValue } from "./ports.ts";

/** The part of `DurableObjectStorage` the port uses. */
export interface DoStorageLike {
  sql: {
    exec(query: string, ...bindings: SqlValue[]): { toArray(): unknown[]; readonly rowsWritten: number };
  };
  transactionSync<T>(fn: () => T): T;
}

export function doSqlPort(storage: DoStorageLike): SqlPort {
  let depth = 0;
  return {
    run: (sql, ...params) => storage.sql.exec(sql, ...params).rowsWritten,
    query: <T>(sql: string, ...params: SqlValue[]) => storage.sql.exec(sql, ...params).toArray() as T[],
    // transactionSync cannot nest; an inner call joins the outer transaction.
    transaction<T>(fn: () => T): T {
      if (depth > 0) return fn();
      depth++;
      try {
        return storage.transactionSync(fn);
      } finally {
        depth--;
      }
    },
  };
}
