// The Earn entry point (web/src/lib/earn.ts) lists the earn products that are declared in this
// build and switched on here, in a fixed order; a product switched off, or not built yet, is not
// offered. And a candidate's share of a round's votes (features/vote/share.ts) is rounded down.
import { describe, expect, it } from "vitest";
import { earnEntries } from "../../web/src/lib/earn.ts";
import { sharePercent } from "../../web/src/features/vote/share.ts";
import { PRODUCTS, type ProductDeclaration, type Products } from "../../schemas/products.ts";

const declared = (id: string): ProductDeclaration => ({ id, switch: `PRODUCT_${id.toUpperCase()}`, accounts: [], transfer: { drainWhenOff: false }, feeKinds: [], paths: [id], console: [] });
const on = (extra: Record<string, boolean>) => ({ seconds: true, lever: true, c2c: true, vote: true, ...extra }) as Products;

describe("the Earn entry point", () => {
  it("offers listing votes when it is on, and nothing while the switches load or when it is off", () => {
    expect(earnEntries(on({})).map((e) => e.to)).toEqual(["/vote"]);
    expect(earnEntries(null)).toEqual([]);
    expect(earnEntries(on({ vote: false }))).toEqual([]);
  });

  it("never offers a product that is not declared in this build, even if a switch says on", () => {
    expect(PRODUCTS.some((p) => (p.id as string) === "insurance")).toBe(false);
    expect(earnEntries(on({ insurance: true, earn: true })).map((e) => e.product)).toEqual(["vote"]);
  });

  it("lists every declared earn product that is on, savings, launches, votes and cover in that order, once their declarations land", () => {
    const catalogue = [...PRODUCTS, declared("insurance"), declared("launch"), declared("earn")];
    expect(earnEntries(on({ earn: true, launch: true, insurance: true }), catalogue).map((e) => e.to)).toEqual(["/earn", "/launch", "/vote", "/insurance"]);
    expect(earnEntries(on({ earn: true, launch: false, insurance: true, vote: false }), catalogue).map((e) => e.to)).toEqual(["/earn", "/insurance"]);
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
