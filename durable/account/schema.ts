/**
 * The account object's own tables, beside the money core's (durable/money/schema.ts): the
 * notifications written in the same transaction as the money they describe, and the drain's
 * bookmarks. An ordered, append-only list like the core's: a landed entry is never edited.
 */
import { migrateMoney, type Migration, type SqlPort } from "../money/index.ts";

export const ACCOUNT_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    sql: `
CREATE TABLE account_owner (one INTEGER PRIMARY KEY CHECK (one = 1), user_id INTEGER NOT NULL CHECK (user_id > 0));
CREATE TABLE account_notices (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_key TEXT NOT NULL UNIQUE CHECK (length(event_key) BETWEEN 1 AND 200),
  kind TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 64),
  params TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(params)),
  link TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL);
CREATE TABLE account_bookmarks (name TEXT PRIMARY KEY, value INTEGER NOT NULL CHECK (value >= 0)) WITHOUT ROWID`,
  },
  {
    // Shard objects of system accounts (durable/account/address.ts: `system:{id}:{k}`), bound on
    // their first call like a user's object; and who owns each hold's record (`pair:{id}` for a spot
    // order): where a cancel is sent and whom the orphan sweep asks (`checked` once the owner said
    // it knows the record: from then on its legs resolve the hold, and it is never asked again).
    id: 2,
    sql: `
CREATE TABLE account_system (one INTEGER PRIMARY KEY CHECK (one = 1), user_id INTEGER NOT NULL CHECK (user_id <= 0), shard INTEGER NOT NULL CHECK (shard >= 0));
CREATE TABLE account_hold_owners (
  hold TEXT PRIMARY KEY, owner TEXT NOT NULL CHECK (length(owner) BETWEEN 1 AND 64),
  checked INTEGER NOT NULL DEFAULT 0 CHECK (checked IN (0, 1))) WITHOUT ROWID;
CREATE INDEX account_hold_owners_unchecked ON account_hold_owners (checked) WHERE checked = 0`,
  },
  {
    // Client ids (a client order id) of this account's records, one per product kind and id, written
    // with the record's hold: a second reserve with one answers the first record (issue #28, session 14).
    id: 3,
    sql: `
CREATE TABLE account_client_ids (
  for_kind TEXT NOT NULL, client_id TEXT NOT NULL CHECK (length(client_id) BETWEEN 1 AND 64),
  hold TEXT NOT NULL, terms TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (for_kind, client_id)) WITHOUT ROWID`,
  },
];

/** Runs the core's migrations, then the account's, each in its own transaction, once per storage. */
export function migrateAccount(sql: SqlPort): void {
  migrateMoney(sql);
  sql.run("CREATE TABLE IF NOT EXISTS account_migrations (id INTEGER PRIMARY KEY)");
  const done = new Set(sql.query<{ id: number }>("SELECT id FROM account_migrations").map((r) => r.id));
  for (const m of ACCOUNT_MIGRATIONS) {
    if (done.has(m.id)) continue;
    sql.transaction(() => {
      for (const statement of m.sql.split(";")) if (statement.trim()) sql.run(statement);
      sql.run("INSERT INTO account_migrations (id) VALUES (?)", m.id);
    });
  }
}
