/**
 * D1 migrations are append-only: a database that already ran a file never runs it again, so an
 * edit to a landed file would leave deployed databases and fresh ones with different schemas.
 * migrations/checksums.json records the sha256 of every landed file, in landing order; these tests
 * fail when a recorded file changes or disappears, and when a migration file is not recorded.
 * `npm run migrations:checksums` appends new files to the record (it never rewrites an entry).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const dir = join(import.meta.dirname, "..", "..", "migrations");
const recorded: Record<string, string> = JSON.parse(readFileSync(join(dir, "checksums.json"), "utf8"));
const files = readdirSync(dir).filter((name) => name.endsWith(".sql")).sort();
const sha256 = (name: string) => createHash("sha256").update(readFileSync(join(dir, name))).digest("hex");

describe("D1 migrations are append-only", () => {
  it("keeps every landed migration file byte for byte", () => {
    const changed = Object.entries(recorded)
      .filter(([name, hash]) => !files.includes(name) || sha256(name) !== hash)
      .map(([name]) => name);
    expect(changed, "landed migrations never change: add a new numbered file instead").toEqual([]);
  });

  it("records every migration file in migrations/checksums.json", () => {
    const unrecorded = files.filter((name) => !(name in recorded));
    expect(unrecorded, "run `npm run migrations:checksums` to record new migration files").toEqual([]);
  });

  it("names files NNNN_name.sql with unique numbers, recorded in number order (a new file numbered below a landed one is refused)", () => {
    const numbers = files.map((name) => /^(\d{4})_[a-z0-9_]+\.sql$/.exec(name)?.[1]);
    expect(numbers.every((n) => n !== undefined), `names are NNNN_snake_case.sql: ${files.join(", ")}`).toBe(true);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(Object.keys(recorded), "checksums.json lists the migration files in number order").toEqual(files);
  });
});
