/** Aborts the batch unless the statement just before it changed exactly one row (launch_guards, migrations/0030_launch.sql). */
export function guardStatement(db: D1Database, what: string): D1PreparedStatement {
  return db.prepare("INSERT INTO launch_guards (changed, what) VALUES (changes(), ?)").bind(what);
}
