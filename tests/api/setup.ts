// Applies the D1 migrations to the per-file isolated database before the tests of a file run: all of
// them in one batch (one transaction, about half the time of one batch per migration, which every
// file pays), recorded in d1_migrations as applyD1Migrations and wrangler record them.
import { env } from "cloudflare:test";

const { DB, TEST_MIGRATIONS } = env;
const record = DB.prepare("INSERT INTO d1_migrations (name) VALUES (?)");
await DB.batch([
  DB.prepare("CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)"),
  ...TEST_MIGRATIONS.flatMap((m) => [...m.queries.map((q) => DB.prepare(q)), record.bind(m.name)]),
]);
