/**
 * D1 statements sent in this isolate while a test's requests run (the Worker and the objects: every
 * `D1DatabaseSession._send`), as SQL text: the objects-mode tests' proof of "no D1 on the path".
 */
import { env } from "cloudflare:test";
import { expect } from "vitest";

let recording: string[] | null = null;
let patched = false;

function patchD1() {
  if (patched) return;
  patched = true;
  const proto = Object.getPrototypeOf((env.DB as unknown as { withSession(): object }).withSession()) as Record<string, unknown>;
  const send = proto._send as (this: unknown, endpoint: unknown, query: unknown, ...rest: unknown[]) => Promise<unknown>;
  expect(typeof send).toBe("function");
  proto._send = function (this: unknown, endpoint: unknown, query: unknown, ...rest: unknown[]) {
    for (const q of Array.isArray(query) ? query : [query]) recording?.push(String((q as { sql?: string })?.sql ?? q));
    return send.call(this, endpoint, query, ...rest);
  };
}

/** The statements sent while `run` ran. */
export async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  patchD1();
  recording = [];
  try {
    await run();
    return recording;
  } finally {
    recording = null;
  }
}

/** Stops a recording a failed test left running. */
export function stopRecording(): void {
  recording = null;
}

/** What the request itself sent: the drains a write schedules (500 ms later) may land inside a slow request; they are not its path. */
const DRAINS = /^\s*(INSERT INTO (account_movements|notifications|account_drained|system_movements|system_drained)|WITH|INSERT INTO spot_|UPDATE spot_|INSERT INTO pair_|UPDATE pair_|SELECT user_id, session_id FROM)/i;
export const onPath = (sql: string[]) => sql.filter((s) => !DRAINS.test(s));
