/**
 * Storage for many simulated objects with few databases in memory: at most `resident` objects
 * have a live `node:sqlite` database (one costs about 150 KB, so 100,000 of them would not fit);
 * the others are evicted as the runtime evicts an idle Durable Object: memory gone, storage kept.
 * An evicted object's storage is its tables' rows, kept beside the pool and written back into a
 * pooled database at its next call (the money core is then built again over it, as after a crash).
 * The core only ever sees a SqlPort over its own tables: nothing of this reaches durable/money/.
 */
import { migrateMoney } from "../durable/money/index.ts";
import { NodeSql } from "./sqlite.ts";

/** The money core's tables (durable/money/schema.ts), in an order that loads them back as they were. */
const TABLES = ["money_balances", "money_holds", "money_keys", "money_outbox", "money_refused", "money_movements", "money_meta"] as const;
type Rows = Record<(typeof TABLES)[number], Record<string, unknown>[]>;

export interface ResidentStats {
  /** Objects whose storage came back into memory from the kept rows. */
  restores: number;
  /** Objects whose memory was dropped (their rows kept). */
  evictions: number;
}

export class ResidentPool {
  private readonly live = new Map<string, NodeSql>();
  private readonly stored = new Map<string, Rows>();
  private readonly spare: NodeSql[] = [];
  readonly stats: ResidentStats = { restores: 0, evictions: 0 };

  /**
   * @param resident how many objects keep a live database
   * @param onEvict runs before an object's memory goes (its drain, for instance), with its database
   */
  private readonly resident: number;
  private readonly onEvict: (name: string, sql: NodeSql) => void;

  constructor(resident: number, onEvict: (name: string, sql: NodeSql) => void = () => {}) {
    this.resident = resident;
    this.onEvict = onEvict;
  }

  /** The object's database, loaded if it was evicted, and marked as just used; `fresh` is true for a new object. */
  get(name: string): { sql: NodeSql; fresh: boolean } {
    const hit = this.live.get(name);
    if (hit) {
      this.live.delete(name);
      this.live.set(name, hit);
      return { sql: hit, fresh: false };
    }
    if (this.live.size >= this.resident) this.evictOldest();
    const sql = this.spare.pop() ?? this.newDatabase();
    const rows = this.stored.get(name);
    if (rows) {
      this.stats.restores++;
      sql.transaction(() => {
        for (const t of TABLES)
          for (const r of rows[t]) {
            const cols = Object.keys(r);
            sql.run(`INSERT INTO ${t} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`, ...(Object.values(r) as (string | number | null)[]));
          }
      });
      this.stored.delete(name);
    }
    this.live.set(name, sql);
    return { sql, fresh: !rows };
  }

  /** Whether the object has a live database now. */
  isLive(name: string): boolean {
    return this.live.has(name);
  }

  /** Every object this pool has seen (live or evicted). */
  names(): string[] {
    return [...this.live.keys(), ...this.stored.keys()];
  }

  /** Runs a read-only query on an object wherever its storage is (an evicted one is loaded). */
  query<T>(name: string, sql: string): T[] {
    return this.get(name).sql.query<T>(sql);
  }

  /** The kept rows of an evicted object's table (for reads that need no database), or undefined when it is live. */
  storedRows(name: string, table: (typeof TABLES)[number]): Record<string, unknown>[] | undefined {
    return this.stored.get(name)?.[table];
  }

  private newDatabase(): NodeSql {
    const sql = new NodeSql();
    migrateMoney(sql);
    return sql;
  }

  private evictOldest(): void {
    const [name, sql] = this.live.entries().next().value as [string, NodeSql];
    this.onEvict(name, sql);
    const rows = {} as Rows;
    for (const t of TABLES) rows[t] = sql.query<Record<string, unknown>>(`SELECT * FROM ${t}`);
    sql.transaction(() => {
      for (const t of TABLES) sql.run(`DELETE FROM ${t}`);
    });
    this.live.delete(name);
    this.stored.set(name, rows);
    this.spare.push(sql);
    this.stats.evictions++;
  }
}
