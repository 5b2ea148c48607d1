#!/usr/bin/env node
// `npm run migrations:checksums`: records new D1 migration files in migrations/checksums.json
// (sha256, in landing order). It only appends: a recorded file whose bytes changed, or a new file
// numbered below the last recorded one, is an error, because deployed databases have already run
// the landed files (tests/unit/migrations.test.ts checks the same on every test run).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = join(import.meta.dirname, "..", "migrations");
const listFile = join(dir, "checksums.json");
const recorded = JSON.parse(readFileSync(listFile, "utf8"));
const sha256 = (name) => createHash("sha256").update(readFileSync(join(dir, name))).digest("hex");
const files = readdirSync(dir).filter((name) => name.endsWith(".sql")).sort();

const changed = Object.keys(recorded).filter((name) => !files.includes(name) || sha256(name) !== recorded[name]);
if (changed.length) {
  console.error(`Landed migrations changed or removed: ${changed.join(", ")}. Restore them and add a new numbered file instead.`);
  process.exit(1);
}
const last = Object.keys(recorded).at(-1) ?? "";
const added = files.filter((name) => !(name in recorded));
const early = added.filter((name) => name < last);
if (early.length) {
  console.error(`New migrations must be numbered after ${last}: ${early.join(", ")}`);
  process.exit(1);
}
for (const name of added) recorded[name] = sha256(name);
writeFileSync(listFile, `${JSON.stringify(recorded, null, 2)}\n`);
console.log(added.length ? `Recorded ${added.join(", ")}` : "No new migrations to record");
