// The Earn entry point (web/src/lib/earn.ts) lists the earn products that are declared in this
// build and switched on here, in a fixed order; a product switched off, or not built yet, is not
// offered. And a candidate's share of a round's votes (features/vote/share.ts) is rounded down.
import { describe, expect, it } from "vitest";
import { earnEntries } from "../../web/src/lib/earn.ts";
import { sharePercent } from "../../web/src/features/vote/share.ts";
import { PRODUCTS, type ProductDeclaration, type Products } from "../../schemas/products.ts";

const declared = (id: string): ProductDeclaration => ({ id, switch: `PRODUCT_${id.toUpperCase()}`, accounts: [], transfer: { drainWhenOff: false }, feeKinds: [], paths: [id], console: [] });
const on = (extra: Record<string, boolean>) => ({ seconds: true, lever: true, c2c: true, vote: true, insurance: true, launch: true, earn: true, mining: true, ...extra }) as Products;
const allOff = { earn: false, launch: false, vote: false, insurance: false, mining: false };

describe("the Earn entry point", () => {
  it("offers savings, launches, votes, cover and mining in that order when they are on, and nothing while the switches load or when they are off", () => {
    expect(earnEntries(on({})).map((e) => e.to)).toEqual(["/earn", "/launch", "/vote", "/insurance", "/mining"]);
    expect(earnEntries(null)).toEqual([]);
    expect(earnEntries(on(allOff))).toEqual([]);
    expect(earnEntries(on({ launch: false, vote: false })).map((e) => e.to)).toEqual(["/earn", "/insurance", "/mining"]);
  });

  it("never offers a product that is not declared in this build, even if a switch says on", () => {
    const withoutCover = PRODUCTS.filter((p) => p.id !== "insurance");
    expect(earnEntries(on({}), withoutCover).map((e) => e.product)).toEqual(["earn", "launch", "vote", "mining"]);
    const withoutAny = PRODUCTS.filter((p) => !["earn", "launch", "vote", "insurance", "mining"].includes(p.id));
    expect(earnEntries(on({}), withoutAny)).toEqual([]);
  });

  it("offers a product declared later as soon as its declaration lands and its switch is on", () => {
    const catalogue = [...PRODUCTS.filter((p) => p.id !== "launch"), declared("launch")];
    expect(earnEntries(on({ launch: true }), catalogue).map((e) => e.to)).toContain("/launch");
    expect(earnEntries(on({ launch: false }), catalogue).map((e) => e.to)).not.toContain("/launch");
  });
});

describe("a candidate's share of the votes", () => {
  it("is a percent with one decimal, rounded down, and 0 when nobody voted", () => {
    expect(sharePercent(1, 3)).toBe("33.3");
    expect(sharePercent(2, 3)).toBe("66.6");
    expect(sharePercent(1, 2)).toBe("50");
    expect(sharePercent(3, 3)).toBe("100");
    expect(sharePercent(0, 0)).toBe("0");
    expect(sharePercent(0, 5)).toBe("0");
  });
});
