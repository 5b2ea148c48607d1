/**
 * The money core's tables, as an ordered list of migrations (append-only, like the D1 files: a
 * landed entry is never edited). Overdrafts are impossible in storage: every amount has a CHECK,
 * so a bug that would take an account or a hold below zero aborts its transaction instead.
 */
import type { SqlPort } from "./ports.ts";

export interface Migration {
  id: number;
  sql: string;
}

export const MONEY_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    sql: `
CREATE TABLE money_balances (
  kind TEXT NOT NULL, currency TEXT NOT NULL,
  available INTEGER NOT NULL DEFAULT 0 CHECK (available >= 0),
  frozen INTEGER NOT NULL DEFAULT 0 CHECK (frozen >= 0),
  PRIMARY KEY (kind, currency)) WITHOUT ROWID;
CREATE TABLE money_holds (
  hold TEXT PRIMARY KEY, kind TEXT NOT NULL, currency TEXT NOT NULL,
  amount INTEGER NOT NULL CHECK (amount > 0),
  spent INTEGER NOT NULL DEFAULT 0 CHECK (spent >= 0),
  released INTEGER NOT NULL DEFAULT 0 CHECK (released >= 0),
  for_kind TEXT NOT NULL, for_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'resolved')),
  created_at INTEGER NOT NULL,
  CHECK (spent + released <= amount)) WITHOUT ROWID;
CREATE INDEX money_holds_open ON money_holds (state, created_at);
CREATE TABLE money_keys (key TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE money_outbox (
  seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, dest TEXT NOT NULL, ops TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL);
CREATE INDEX money_outbox_due ON money_outbox (next_at);
CREATE TABLE money_refused (key TEXT PRIMARY KEY, reason TEXT NOT NULL, ops TEXT NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE money_movements (
  seq INTEGER PRIMARY KEY, ref TEXT NOT NULL, kind TEXT NOT NULL, currency TEXT NOT NULL,
  d_available INTEGER NOT NULL, d_frozen INTEGER NOT NULL, at INTEGER NOT NULL);
CREATE TABLE money_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID`,
  },
];

/** Runs the migrations this storage has not run yet, each in its own transaction. */
export function migrateMoney(sql: SqlPort): void {
  sql.run("CREATE TABLE IF NOT EXISTS money_migrations (id INTEGER PRIMARY KEY)");
  const done = new Set(sql.query<{ id: number }>("SELECT id FROM money_migrations").map((r) => r.id));
  for (const m of MONEY_MIGRATIONS) {
    if (done.has(m.id)) continue;
    sql.transaction(() => {
      for (const statement of m.sql.split(";")) if (statement.trim()) sql.run(statement);
      sql.run("INSERT INTO money_migrations (id) VALUES (?)", m.id);
    });
  }
}
