/**
 * The account object's session check (durable/account/sessions.ts) without the runtime: what it
 * remembers, and that a missed or late push can only make it ask D1, never trust an ended session.
 * And every writer of the columns it depends on tells it (a scan of the sources).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OPEN_CHANGE_MS, SessionTrust, type OpenChanges, type SessionRow } from "../../durable/account/sessions.ts";

const live = (over: Partial<SessionRow> = {}): SessionRow => ({ expires_at: 10_000_000, revoked_at: null, locked: 0, review_status: 2, role: "user", ...over });
const trader = { sessionId: 7, level: "trader" as const };

function memoryChanges(): OpenChanges & { rows: Map<string, number> } {
  const rows = new Map<string, number>();
  return { rows, list: () => [...rows].map(([mark, at]) => ({ mark, at })), add: (m, at) => void rows.set(m, at), remove: (m) => void rows.delete(m) };
}

/** D1 as a value the test sets, and reads it can hold open. */
function fakeD1(row: SessionRow | null) {
  const d1 = { row, gate: null as Promise<void> | null };
  // A read sees D1 as it was when it started; the gate holds its answer back.
  const read = async () => {
    const row = d1.row;
    if (d1.gate) await d1.gate;
    return row;
  };
  return { d1, read };
}

describe("the account object's session check", () => {
  it("asks D1 once for a session it never heard of, then answers from memory", async () => {
    const { read } = fakeD1(live());
    const trust = new SessionTrust(memoryChanges(), read);
    expect(await trust.check(trader, 1000)).toBe(true);
    expect(await trust.check(trader, 1001)).toBe(true);
    expect(trust.reads).toBe(1);
  });

  it("refuses what D1 refuses: revoked, expired, locked, not verified, an operator; a cancel needs only a live session of an unlocked user", async () => {
    for (const row of [live({ revoked_at: 5 }), live({ expires_at: 1000 }), live({ locked: 1 }), live({ review_status: 1 }), live({ role: "operator" }), null]) {
      expect(await new SessionTrust(memoryChanges(), async () => row).check(trader, 1000)).toBe(false);
    }
    expect(await new SessionTrust(memoryChanges(), async () => live({ review_status: 1 })).check({ sessionId: 7, level: "user" }, 1000)).toBe(true);
    expect(await new SessionTrust(memoryChanges(), async () => live({ locked: 1 })).check({ sessionId: 7, level: "user" }, 1000)).toBe(false);
  });

  it("a change forgets what was trusted; while it is open every check asks D1 and nothing is remembered", async () => {
    const { d1, read } = fakeD1(live());
    const changes = memoryChanges();
    const trust = new SessionTrust(changes, read);
    await trust.check(trader, 1000);
    trust.changing("m", 1000);
    expect(await trust.check(trader, 1001)).toBe(true);
    expect(await trust.check(trader, 1002)).toBe(true);
    expect(trust.reads).toBe(3);
    // The writer's D1 write lands; its close never comes: the next check still asks D1 and refuses.
    d1.row = live({ revoked_at: 1003 });
    expect(await trust.check(trader, 1004)).toBe(false);
    // An object restarted keeps the open change (its storage).
    const again = new SessionTrust(changes, read);
    d1.row = live();
    await again.check(trader, 1005);
    await again.check(trader, 1006);
    expect(again.reads).toBe(2);
    // Dropped only long after: then D1's answer is remembered again.
    await again.check(trader, 1000 + OPEN_CHANGE_MS + 1);
    await again.check(trader, 1000 + OPEN_CHANGE_MS + 2);
    expect(again.reads).toBe(3);
  });

  it("a D1 answer read while a change opened and closed is not remembered (it may predate the write)", async () => {
    const { d1, read } = fakeD1(live());
    const trust = new SessionTrust(memoryChanges(), read);
    let open!: () => void;
    d1.gate = new Promise<void>((r) => (open = r));
    const inFlight = trust.check(trader, 1000);
    // A logout runs its whole change while the read is in flight.
    trust.changing("logout", 1001);
    d1.row = live({ revoked_at: 1001 });
    trust.changed("logout", 1002);
    open();
    // The read answered before the write: this call goes through (it came first), but it is not remembered.
    expect(await inFlight).toBe(true);
    d1.gate = null;
    expect(await trust.check(trader, 1003)).toBe(false);
    expect(trust.reads).toBe(2);
  });
});

describe("every writer of sessions.revoked_at, users.locked, users.review_status and users.role tells the account object", () => {
  it("each such write in worker/ goes through changingSessions (worker/lib/session-push.ts)", () => {
    // Never moves a user off review status 2 (CASE WHEN review_status = 2 THEN 2): it cannot end a trust.
    const cannotEndTrust = new Set(["worker/domain/kyc/submissions.ts"]);
    const writes = /UPDATE sessions SET revoked_at|update\(schema\.sessions\)\.set\(\{ revokedAt|UPDATE users SET[^"`]*\b(locked|review_status|role)\s*=/;
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith(".ts")) files.push(p);
      }
    };
    walk("worker");
    const writers = files.filter((f) => writes.test(fs.readFileSync(f, "utf8")));
    expect(writers.length).toBeGreaterThanOrEqual(5);
    const untold = writers.filter((f) => !cannotEndTrust.has(f) && !fs.readFileSync(f, "utf8").includes("changingSessions("));
    expect(untold).toEqual([]);
  });
});
