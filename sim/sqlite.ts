/**
 * The money core's SQL port over Node's `node:sqlite` (the pinned Node 24): one in-memory
 * database per simulated object, prepared statements cached per SQL text, and a fault switch
 * that rolls back the next transaction at its commit (the simulator's "transaction rolled back").
 * Transactions are savepoints, so a whole schedule can run inside `mark()` and be undone by
 * `restore()`: the next schedule starts from the same opening state without rebuilding it.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { SqlPort, SqlValue } from "../durable/money/ports.ts";

/** Thrown by a transaction the simulator rolled back on purpose. */
export class RolledBack extends Error {
  constructor() {
    super("transaction rolled back (injected)");
    this.name = "RolledBack";
  }
}

export class NodeSql implements SqlPort {
  readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private depth = 0;
  /** Set by the simulator: the next outermost transaction rolls back instead of committing. */
  failNextCommit = false;

  constructor(path = ":memory:") {
    this.db = new DatabaseSync(path);
  }

  private prepared(sql: string): StatementSync {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  run(sql: string, ...params: SqlValue[]): number {
    return Number(this.prepared(sql).run(...params).changes);
  }

  query<T>(sql: string, ...params: SqlValue[]): T[] {
    return this.prepared(sql).all(...params) as T[];
  }

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.depth = 1;
    this.prepared("SAVEPOINT tx").run();
    try {
      const result = fn();
      if (this.failNextCommit) {
        this.failNextCommit = false;
        throw new RolledBack();
      }
      this.prepared("RELEASE tx").run();
      return result;
    } catch (e) {
      this.prepared("ROLLBACK TO tx").run();
      this.prepared("RELEASE tx").run();
      throw e;
    } finally {
      this.depth = 0;
    }
  }

  /** Opens the transaction that `restore()` undoes (what the schedule commits are savepoints in it). */
  mark(): void {
    this.prepared("BEGIN").run();
  }

  /** Back to the state at `mark()`. */
  restore(): void {
    this.prepared("ROLLBACK").run();
    this.failNextCommit = false;
  }
}
