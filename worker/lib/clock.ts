/**
 * The clock everything reads, and the dev clock that can move it (issue #27 §5).
 *
 * `now()` is the time port: new code may call it instead of `Date.now()`; the two always agree.
 * In production (DEV_CLOCK unset or "off") nothing here runs: `Date.now` is the runtime's own and
 * the entry points pay one string comparison.
 *
 * With DEV_CLOCK=on (`npm start`), a local run can move time ahead, so that savings interest,
 * cover coming into force, mining hours, vesting, C2C windows and rebate days can be tried in one
 * sitting: `POST /api/dev/clock {advance_s}` adds to an offset kept in D1 (`dev_clock`, one row;
 * it only grows), `GET /api/dev/clock` shows it, `POST /api/dev/cron {cron}` runs a cron now.
 *
 * How (so that the ~80 `Date.now()` call sites need no edit):
 * - The entry points call `devClockReady(env)` when the flag is on: the Worker's fetch and
 *   scheduled (worker/index.ts), and each pair object's construction (`devClockInObject`, before
 *   anything of it runs: its fetch, RPC, alarm and socket hooks all come after). The first call in
 *   an isolate reads the offset from D1 and replaces `Date.now` with "real time + offset" for the
 *   whole isolate. Locally the Worker and its objects share one isolate, so an advance made by the
 *   Worker is seen by the objects at once; the advance also hands the new offset to every pair
 *   object (`devClockMoved`), which covers an object living in another isolate.
 * - workerd freezes `Date.now` within a request until the next I/O (Spectre mitigation); the
 *   wrapper adds the offset to whatever the runtime answers, so the time read is still advanced
 *   (frozen the same way, never behind).
 * - A Durable Object alarm fires by real time, so a pair object's `setAlarm`/`getAlarm` convert
 *   between dev time and real time (`devClockInObject`). After an advance the pair objects re-arm,
 *   so work that is now due (contract expiries, lever sweeps, drains) runs at once.
 *
 * Limits: only `Date.now()` moves. `new Date()` without an argument, `performance.now()`, timers
 * and SQL's own time functions keep real time (the code base reads time through `Date.now()`; the
 * one SQL use converts stored times). The browser's clock does not move (screens that count down
 * from a server time show the server's). The offset never goes back: time moving backwards is
 * not a state the exchange can be in. Sessions last 30 days of clock time, so an advance past that
 * signs everyone out. What an advance means for open contracts: a seconds contract whose end was
 * skipped settles once, at the last index tick at or before its end, i.e. the price when the clock
 * was moved (when no tick came between its entry and the move, its entry tick: a tie, which the
 * tie rule counts as lost); a leveraged position pays one overnight fee per UTC day skipped (charged once per
 * day by the every-minute cron) and its TP/SL/liquidation are checked at the next sweep against
 * the price of that moment; unpaid C2C orders whose window passed are cancelled by the next cron.
 */

import { onForget } from "./caches.ts";

/** The runtime's own `Date.now`, taken before anything can replace it. */
const realNow: () => number = Date.now;

let offsetMs = 0;
let installed = false;
let loading: Promise<void> | null = null;
// A fresh database has no offset: read it again (the wrapper stays installed, at offset 0 until then).
onForget(() => {
  offsetMs = 0;
  loading = null;
});

/** The time the exchange runs on (ms since the epoch): the runtime's, plus the dev offset when it is on. */
export function now(): number {
  return Date.now();
}

/** Whether the dev clock is on in this environment (never in a deployment). */
export function devClockOn(env: { DEV_CLOCK?: string }): boolean {
  return env.DEV_CLOCK === "on";
}

/** Sets the offset this isolate applies, installing the wrapper on first use. */
export function setDevOffset(ms: number): void {
  offsetMs = ms;
  if (installed) return;
  installed = true;
  Date.now = () => realNow() + offsetMs;
}

/** The dev clock as shown by GET /api/dev/clock. */
export function devClockState(): { now: number; real_now: number; offset_s: number } {
  return { now: realNow() + offsetMs, real_now: realNow(), offset_s: Math.floor(offsetMs / 1000) };
}

async function loadOffset(db: D1Database): Promise<void> {
  try {
    const row = await db.prepare("SELECT offset_ms FROM dev_clock WHERE id = 1").first<{ offset_ms: number }>();
    setDevOffset(Number(row?.offset_ms ?? 0));
  } catch (err) {
    // Not migrated yet (a local database before 0039): real time now, read again on the next entry.
    loading = null;
    console.error(JSON.stringify({ level: "error", event: "dev_clock_unreadable", error: String(err) }));
  }
}

/**
 * Entry points call this; with the flag off it answers undefined at once. With it on, the first
 * call of the isolate reads the offset (later calls share that read) and installs it.
 */
export function devClockReady(env: { DEV_CLOCK?: string; DB: D1Database }): Promise<void> | undefined {
  if (env.DEV_CLOCK !== "on") return undefined;
  return (loading ??= loadOffset(env.DB));
}

/**
 * A Durable Object's construction, with the flag on: the offset is installed before the object
 * runs, and its alarm is converted between dev time (what the object's code asks for and reads)
 * and real time (when the runtime fires it). Call inside the constructor's blockConcurrencyWhile.
 */
export async function devClockInObject(env: { DEV_CLOCK?: string; DB: D1Database }, storage: DurableObjectStorage): Promise<void> {
  if (env.DEV_CLOCK !== "on") return;
  await devClockReady(env);
  const set = storage.setAlarm.bind(storage);
  const get = storage.getAlarm.bind(storage);
  // The runtime refuses times <= 0; any past time fires at once.
  storage.setAlarm = (at, options) => set(Math.max(1, Number(at) - offsetMs), options);
  storage.getAlarm = async (options) => {
    const at = await get(options);
    return at === null ? null : at + offsetMs;
  };
}

/** Moves the dev clock ahead by `seconds` (kept in D1, installed here); answers the new offset in ms. */
export async function advanceDevClock(db: D1Database, seconds: number): Promise<number> {
  const add = seconds * 1000;
  const row = await db
    .prepare("INSERT INTO dev_clock (id, offset_ms, updated_at) VALUES (1, ?1, ?2) ON CONFLICT (id) DO UPDATE SET offset_ms = offset_ms + ?1, updated_at = ?2 RETURNING offset_ms")
    .bind(add, realNow())
    .first<{ offset_ms: number }>();
  const offset = Number(row!.offset_ms);
  setDevOffset(offset);
  return offset;
}

/** Tests only: back to real time (the row goes, this isolate's offset is 0). */
export async function resetDevClock(db: D1Database): Promise<void> {
  await db.prepare("DELETE FROM dev_clock").run();
  setDevOffset(0);
}
