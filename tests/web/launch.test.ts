// Launch screens' and rules' pure parts: the window a user sees, the countdown, the vesting
// schedule and the pro-rata rule (schemas/launch.ts, shared by the server and the screens).
import { describe, expect, it } from "vitest";
import { countdown, windowState } from "../../web/src/features/launch/display.ts";
import { allocationOf, costOf, demandOf, nextUnlockAt, vestedUnits } from "../../schemas/launch.ts";

const DAY = 86_400_000;

describe("the commit window as the user sees it", () => {
  const p = { status: "open" as const, start_at: 1000, end_at: 5000 };
  it("is upcoming before the start, open in the window, closed at its end, cancelled when cancelled", () => {
    expect(windowState(p, 999)).toBe("upcoming");
    expect(windowState(p, 1000)).toBe("open");
    expect(windowState(p, 5000)).toBe("closed");
    expect(windowState({ ...p, status: "allocating" }, 2000)).toBe("closed");
    expect(windowState({ ...p, status: "cancelled" }, 2000)).toBe("cancelled");
  });
  it("counts down in days and hh:mm:ss, never below zero", () => {
    expect(countdown(2 * DAY + 3 * 3600_000 + 4 * 60_000 + 5000)).toBe("2d 03:04:05");
    expect(countdown(59_999)).toBe("00:00:59");
    expect(countdown(-5)).toBe("00:00:00");
  });
});

describe("vesting", () => {
  const v = { start: 0, cliffDays: 10, vestDays: 30, steps: 3 };
  it("unlocks nothing before the cliff's first step, then equal steps, all at the end", () => {
    expect(vestedUnits(900n, v, 10 * DAY)).toBe(0n);
    expect(vestedUnits(900n, v, 20 * DAY - 1)).toBe(0n);
    expect(vestedUnits(900n, v, 20 * DAY)).toBe(300n);
    expect(vestedUnits(900n, v, 39 * DAY)).toBe(600n);
    expect(vestedUnits(900n, v, 40 * DAY)).toBe(900n);
    expect(nextUnlockAt(v, 0)).toBe(20 * DAY);
    expect(nextUnlockAt(v, 25 * DAY)).toBe(30 * DAY);
    expect(nextUnlockAt(v, 40 * DAY)).toBeNull();
  });
  it("unlocks linearly (rounded down) without steps", () => {
    const lin = { start: 0, cliffDays: 0, vestDays: 10, steps: 0 };
    expect(vestedUnits(1000n, lin, 3 * DAY)).toBe(300n);
    expect(vestedUnits(7n, lin, 5 * DAY)).toBe(3n);
  });
});

describe("the pro-rata rule", () => {
  it("gives each committer demand × supply ÷ total when oversubscribed, the demand when not, never above the cap", () => {
    expect(allocationOf(600n, 1400n, 1000n, 800n)).toBe(428n);
    expect(allocationOf(600n, 900n, 1000n, 800n)).toBe(600n);
    expect(allocationOf(900n, 900n, 1000n, 800n)).toBe(800n);
  });
  it("prices an allocation rounded up to the unit, never above what the commitment bought", () => {
    // 0.5 USDT (8 decimals) per token of 4 decimals
    const price = 50_000_000n;
    const demand = demandOf(30_000_000_000n, price, 4);
    expect(demand).toBe(6_000_000n);
    expect(costOf(demand, price, 4)).toBe(30_000_000_000n);
    expect(costOf(1n, 3n, 4)).toBe(1n);
  });
});
