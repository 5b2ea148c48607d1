/** One drizzle handle per request over the D1 binding. */
import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema.ts";

export type Db = ReturnType<typeof getDb>;
export function getDb(d1: D1Database) {
  return drizzle(d1, { schema });
}
export { schema };
