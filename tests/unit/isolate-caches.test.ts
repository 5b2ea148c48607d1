/**
 * The API tests share one runtime across files and reset it between them (tests/api/setup.ts), so
 * whatever a module keeps across requests must be forgettable (worker/lib/caches.ts) or it leaks
 * one file's database into the next. This reads the Worker's and the objects' sources for
 * module-level state and fails on any that is neither registered nor listed here with its reason.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");

/** Module-level state that is the same whatever the database holds. */
const SAME_FOR_EVERY_DATABASE: Record<string, string> = {
  "worker/lib/api-keys.ts derivationKeys": "keys derived from the secret in the environment",
  "worker/lib/auth.ts hints": "sessions keyed by random tokens a new database never hands out again",
  "worker/lib/maintenance.ts allowed": "a constant",
  "worker/lib/maintenance.ts inObjects": "a constant: the routes the account objects check",
  "worker/domain/auth/password-policy.ts common": "the shipped list of common passwords",
  "worker/domain/alerts/alerts.ts WINDOW_BY_SECONDS": "a constant",
  "worker/routes/docs.ts cached": "the OpenAPI document, built from the code",
  "worker/lib/clock.ts installed": "whether Date.now is wrapped (the offset itself is forgotten)",
  "durable/pair/fanout.ts socketStates": "keyed by live sockets",
  "worker/lib/object-ids.ts kept": "Durable Object ids by namespace and name: the same whatever the database holds",
};

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [p] : [];
  });
}

describe("state a module keeps across requests", () => {
  it("is forgotten between test files (isolateMap or onForget) or is the same for every database", () => {
    const unregistered: string[] = [];
    for (const file of [...sources("worker"), ...sources("durable")]) {
      const text = readFileSync(join(root, file), "utf8");
      for (const m of text.matchAll(/^(?:export )?(?:let (\w+)|const (\w+)(?:: [^=]+)? = new (?:Map|Set|WeakMap)\b)/gm)) {
        const name = m[1] ?? m[2];
        // Typed read-only: a constant built at load.
        if (/^(?:export )?const \w+: Readonly/.test(m[0])) continue;
        const id = `${relative(root, join(root, file))} ${name}`;
        if (SAME_FOR_EVERY_DATABASE[id]) continue;
        // A `let` reset by an onForget callback in the same file.
        if (m[1] && new RegExp(`onForget\\([^]*?\\b${name}\\b`).test(text)) continue;
        unregistered.push(id);
      }
    }
    expect(unregistered).toEqual([]);
  });
});
