import { afterEach, describe, expect, it, vi } from "vitest";
import { Semaphore, SemaphoreBusy } from "../../worker/lib/semaphore.ts";

/** vi.waitFor waits for state; its default gives up after 1 s, which a loaded machine can take. */
const WAIT = { timeout: 30_000, interval: 20 };

afterEach(() => vi.useRealTimers());

describe("the hashing semaphore", () => {
  it("never lets more than its limit hold a slot, and hands slots on in arrival order", async () => {
    const s = new Semaphore(2, 100, 10_000);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const gates: Array<() => void> = [];
    const jobs = Array.from({ length: 10 }, (_, i) =>
      s.acquire().then(async (release) => {
        running += 1;
        peak = Math.max(peak, running);
        order.push(i);
        await new Promise<void>((res) => gates.push(res));
        running -= 1;
        release();
      }),
    );
    // Open the gates one at a time as holders arrive.
    while (order.length < 10 || gates.length > 0) {
      await vi.waitFor(() => expect(gates.length).toBeGreaterThan(0), WAIT);
      gates.shift()!();
      await Promise.resolve();
    }
    await Promise.all(jobs);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(s.active).toBe(0);
  });

  it("refuses at once when the queue is full", async () => {
    const s = new Semaphore(1, 2, 10_000);
    const held = await s.acquire();
    const waiting = [s.acquire(), s.acquire()];
    await expect(s.acquire()).rejects.toBeInstanceOf(SemaphoreBusy);
    held();
    (await waiting[0]!)();
    (await waiting[1]!)();
    expect(s.active).toBe(0);
  });

  it("gives up on a waiter after the wait and keeps the slot count right", async () => {
    vi.useFakeTimers();
    const s = new Semaphore(1, 10, 5_000);
    const held = await s.acquire();
    const late = s.acquire();
    const check = expect(late).rejects.toBeInstanceOf(SemaphoreBusy);
    await vi.advanceTimersByTimeAsync(5_001);
    await check;
    held();
    expect(s.active).toBe(0);
    const again = await s.acquire();
    expect(s.active).toBe(1);
    again();
    again(); // a second call of the same release is ignored
    expect(s.active).toBe(0);
  });
});
