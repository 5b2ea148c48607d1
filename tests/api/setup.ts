// Before the tests of a file run: a fresh database with every migration, and Durable Objects and
// isolate caches as a fresh runtime would have them.
//
// The files of a project share one runtime (`isolate: false` in vitest.config.ts: starting a
// runtime per file cost about 2.5 s a file), so a file that finds the database already migrated
// first aborts every object (their memory), deletes their storage, the uploads and D1's tables, and forgets
// what the isolate remembered of the last file's database (worker/lib/caches.ts). The migrations
// then go in one batch (one transaction), recorded in d1_migrations as wrangler records them.
import { abortAllDurableObjects, env, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { forgetCaches } from "../../worker/lib/caches.ts";
import { CUT_OVER_KEY } from "../../worker/lib/maintenance.ts";

const { DB, TEST_MIGRATIONS } = env;
const used = await DB.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'd1_migrations'").first();
if (used) {
  await abortAllDurableObjects();
  for (const ns of [env.PAIR, env.USER] as DurableObjectNamespace[]) {
    for (const id of await listDurableObjectIds(ns)) {
      await runInDurableObject(ns.get(id), async (_object, state: DurableObjectState) => {
        await state.storage.deleteAlarm();
        await state.storage.deleteAll();
      });
    }
  }
  await abortAllDurableObjects();
  for (let page = await env.UPLOADS.list(); page.objects.length > 0; page = await env.UPLOADS.list()) await env.UPLOADS.delete(page.objects.map((o) => o.key));
  const { results } = await DB.prepare(
    "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY rowid DESC",
  ).all<{ type: string; name: string }>();
  await DB.batch([DB.prepare("PRAGMA defer_foreign_keys = on"), ...results.map((r) => DB.prepare(`DROP ${r.type === "view" ? "VIEW" : "TABLE"} "${r.name}"`))]);
  forgetCaches();
}
const record = DB.prepare("INSERT INTO d1_migrations (name) VALUES (?)");
await DB.batch([
  DB.prepare("CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)"),
  ...TEST_MIGRATIONS.flatMap((m) => [...m.queries.map((q) => DB.prepare(q)), record.bind(m.name)]),
]);
// The "objects" project (ACCOUNTS=objects) runs an exchange whose cut-over is recorded: its tests open
// users' objects themselves (tests/objects/fixtures.ts). Without the row the Worker would refuse every
// money route while D1 holds a balance (worker/lib/maintenance.ts; tests/objects/cutover-guard-objects.test.ts).
if (env.ACCOUNTS === "objects") await DB.prepare("INSERT INTO settings (key, value) VALUES (?, 'tests')").bind(CUT_OVER_KEY).run();
