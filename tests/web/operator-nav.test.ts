/** The console's sideways-scrolling section nav centres the active section (web/src/features/operator/navScroll.ts). */
import { describe, expect, it } from "vitest";
import { navScrollLeft } from "../../web/src/features/operator/navScroll.ts";

describe("navScrollLeft", () => {
  it("centres an item past the right edge (a C2C section at 390 px)", () => {
    // a 390 px nav holding 1,400 px of pills; the appeals pill at 1,250–1,340
    expect(navScrollLeft(1250, 90, 390, 1400)).toBe(1010);
    const left = navScrollLeft(1100, 90, 390, 1400);
    expect(1100 - left).toBeGreaterThanOrEqual(0);
    expect(1100 + 90 - left).toBeLessThanOrEqual(390);
  });

  it("stays within the scroll range at both ends", () => {
    expect(navScrollLeft(16, 80, 390, 1400)).toBe(0);
    expect(navScrollLeft(1380, 20, 390, 1400)).toBe(1010);
    expect(navScrollLeft(100, 80, 390, 300)).toBe(0);
  });
});
