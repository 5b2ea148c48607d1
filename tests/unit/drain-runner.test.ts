/**
 * The pair object's drain runner (durable/pair/drain.ts): one drain at a time, and a caller that
 * comes while one runs is answered only after a run that started after it asked, so what it
 * appended is in D1 when its promise resolves.
 */
import { describe, expect, it, vi } from "vitest";
import { DrainRunner, RECHECK_MS, type DrainMode, type DrainSchedule } from "../../durable/pair/drain.ts";

type DueHandler = (now: number) => Promise<number | null | void>;

/** A drain whose runs the test finishes by hand, recording what each run saw of the outbox. */
function harness() {
  const outbox: number[] = [];
  const applied: number[] = [];
  const runs: { saw: number[]; finish: (fail?: Error) => void }[] = [];
  let live = 0;
  let maxLive = 0;
  const dues: { drain?: number } = {};
  const handlers: { drain?: DueHandler } = {};
  const schedule: DrainSchedule = {
    handle: (kind, h) => void (handlers[kind] = h),
    at: (kind, due) => void (dues[kind] = Math.min(dues[kind] ?? Infinity, due)),
    clear: (kind) => void delete dues[kind],
  };
  const runner = new DrainRunner(
    () =>
      new Promise<number>((resolve, reject) => {
        live++;
        maxLive = Math.max(maxLive, live);
        const saw = outbox.splice(0);
        runs.push({
          saw,
          finish: (fail) => {
            live--;
            if (fail) {
              outbox.unshift(...saw);
              reject(fail);
            } else {
              applied.push(...saw);
              resolve(saw.length);
            }
          },
        });
      }),
    () => outbox.length > 0,
    schedule,
  );
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { outbox, applied, runs, runner, dues, handlers, settle, maxLive: () => maxLive };
}

describe("drain runner", () => {
  it("never runs two drains at once, and callers who come meanwhile share one next run that sees what they appended", async () => {
    const h = harness();
    h.outbox.push(1);
    const first = h.runner.drain();
    expect(h.runs).toHaveLength(1);
    // Three callers append and ask while the first run is on D1.
    const joined: Promise<number>[] = [];
    for (const row of [2, 3, 4]) {
      h.outbox.push(row);
      joined.push(h.runner.drain());
    }
    let answered = 0;
    for (const p of joined) void p.then(() => answered++);
    await h.settle();
    expect(h.runs).toHaveLength(1);
    h.runs[0]!.finish();
    expect(await first).toBe(1);
    await h.settle();
    // Only now the next run, one for all three, and it saw their rows; nobody was answered before it ended.
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1]!.saw).toEqual([2, 3, 4]);
    expect(answered).toBe(0);
    h.runs[1]!.finish();
    expect(await Promise.all(joined)).toEqual([3, 3, 3]);
    expect(h.applied).toEqual([1, 2, 3, 4]);
    expect(h.maxLive()).toBe(1);
  });

  it("runs the queued drain even when the running one fails, and the failed rows go with it", async () => {
    const h = harness();
    h.outbox.push(1);
    const first = h.runner.drain();
    h.outbox.push(2);
    const second = h.runner.drain();
    h.runs[0]!.finish(new Error("d1 down"));
    await expect(first).rejects.toThrow("d1 down");
    await h.settle();
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1]!.saw).toEqual([1, 2]);
    h.runs[1]!.finish();
    expect(await second).toBe(2);
    expect(h.maxLive()).toBe(1);
  });

  it("keeps the drain due while one runs in the background, clears it once nothing waits, and after a failure is due again", async () => {
    const h = harness();
    h.outbox.push(1);
    // The alarm's drain kind starts the drain and answers a recheck time without waiting for D1.
    expect(await h.handlers.drain!(1_000)).toBe(1_000 + RECHECK_MS);
    expect(h.runner.busy).toBe(true);
    // (Whatever the row said before, a failed drain makes it due again within RECHECK_MS.)
    delete h.dues.drain;
    h.runs[0]!.finish(new Error("d1 down"));
    await h.settle();
    expect(h.dues.drain).toBeLessThanOrEqual(Date.now() + RECHECK_MS);
    expect(h.runner.busy).toBe(false);
    h.runner.inBackground();
    expect(h.runs).toHaveLength(2);
    h.runs[1]!.finish();
    await h.settle();
    expect(h.applied).toEqual([1]);
    expect(h.dues.drain).toBeUndefined();
  });

  it("hurries a background run that a caller would wait behind, and runs the caller's drain directly after it", async () => {
    const schedule: DrainSchedule = { handle: () => {}, at: () => {}, clear: () => {} };
    const runs: { mode: DrainMode; hurried: () => boolean; finish: () => void }[] = [];
    let hurries = 0;
    const runner = new DrainRunner(
      (mode, hurried) => new Promise<number>((resolve) => runs.push({ mode, hurried, finish: () => resolve(0) })),
      () => false,
      schedule,
      () => hurries++,
    );
    // The alarm's run hands its batch to a collector and waits for the collector's window.
    runner.inBackground();
    expect(runs.map((r) => r.mode)).toEqual(["collect"]);
    expect(runs[0]!.hurried()).toBe(false);
    // A background request meanwhile hurries nothing: nobody waits for it.
    runner.inBackground();
    expect(hurries).toBe(0);
    // A caller who waits (a user's own order list) hurries it once, however many callers come.
    const waited = [runner.drain(), runner.drain()];
    expect(hurries).toBe(1);
    expect(runs[0]!.hurried()).toBe(true);
    runs[0]!.finish();
    await new Promise((r) => setTimeout(r, 0));
    // Then one run for everyone queued, direct (its own D1 batch), and nobody is hurried any more.
    expect(runs.map((r) => r.mode)).toEqual(["collect", "direct"]);
    expect(runs[1]!.hurried()).toBe(false);
    runs[1]!.finish();
    expect(await Promise.all(waited)).toEqual([0, 0]);
  });
  it("logs a background run that failed and could not even be marked due again (its storage gone), leaving no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const gone = () => {
        throw new Error("no such table: schedule");
      };
      const runner = new DrainRunner(() => Promise.reject(new Error("d1 down")), () => true, { handle: () => undefined, at: gone, clear: gone });
      runner.inBackground();
      // Let the run's rejection, its handler and Node's unhandled-rejection check all run.
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
      const events = logged.mock.calls.map((c) => (JSON.parse(String(c[0])) as { event: string }).event);
      expect(events).toEqual(["drain_failed", "drain_schedule_failed"]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
      logged.mockRestore();
    }
  });
});
