// Product switches in the web app (web/src/lib/products.ts): the transfer and asset screens offer
// only accounts of products that the deployment has switched on.
import { describe, expect, it } from "vitest";
import { accountsOn, accountTabs, pathOn, productOfPath, transferChoices } from "../../web/src/lib/products.ts";
import { consolePagesOn, consolePageState, isAccountName } from "../../schemas/products.ts";

const ALL = ["change", "micro", "legal"] as const;

describe("accounts of switched-on products", () => {
  it("keeps the spot account always, the seconds account only with seconds on, the C2C account only with C2C on", () => {
    expect(accountsOn(ALL, { seconds: true, lever: true, c2c: true, vote: true, insurance: true, earn: true, launch: true, mining: true })).toEqual(["change", "micro", "legal"]);
    expect(accountsOn(ALL, { seconds: false, lever: true, c2c: true, vote: true, insurance: true, earn: true, launch: true, mining: true })).toEqual(["change", "legal"]);
    expect(accountsOn(ALL, { seconds: true, lever: false, c2c: false, vote: false, insurance: false, earn: false, launch: false, mining: false })).toEqual(["change", "micro"]);
  });

  it("offers the lever account only with leveraged contracts on", () => {
    const all = ["change", "micro", "legal", "lever"] as const;
    expect(accountsOn(all, { seconds: true, lever: true, c2c: true, vote: true, insurance: true, earn: true, launch: true, mining: true })).toEqual(["change", "micro", "legal", "lever"]);
    expect(accountsOn(all, { seconds: true, lever: false, c2c: true, vote: true, insurance: true, earn: true, launch: true, mining: true })).toEqual(["change", "micro", "legal"]);
    expect(accountsOn(all, null)).toEqual(["change"]);
  });

  it("offers only the spot account while the switches are still loading", () => {
    expect(accountsOn(ALL, null)).toEqual(["change"]);
  });
});

describe("screens of switched-off products", () => {
  const allOff = { seconds: false, lever: false, c2c: false, vote: false, insurance: false, earn: false, launch: false, mining: false };
  const allOn = { seconds: true, lever: true, c2c: true, vote: true, insurance: true, earn: true, launch: true, mining: true };

  it("knows which product a screen belongs to from its path", () => {
    expect(productOfPath("/trade")).toBe("seconds");
    expect(productOfPath("/trade/lists?pair=1")).toBe("seconds");
    expect(productOfPath("/legal/index")).toBe("c2c");
    expect(productOfPath("/lever")).toBe("lever");
    expect(productOfPath("/insurance/my")).toBe("insurance");
    expect(productOfPath("/exchange")).toBeNull();
    expect(productOfPath("/tradex")).toBeNull();
  });

  it("hides the contract tab and C2C shortcuts when their product is off, and while the switches load", () => {
    expect(pathOn("/trade", allOff)).toBe(false);
    expect(pathOn("/legal/index", allOff)).toBe(false);
    expect(pathOn("/trade", null)).toBe(false);
    expect(pathOn("/trade", { ...allOff, seconds: true })).toBe(true);
    expect(pathOn("/legal/index", allOn)).toBe(true);
  });

  it("always offers the screens every deployment has", () => {
    expect(pathOn("/exchange", allOff)).toBe(true);
    expect(pathOn("/", null)).toBe(true);
  });
});

describe("screens read the product declarations (schemas/products.ts)", () => {
  const allOn = { seconds: true, lever: true, c2c: true, vote: true, insurance: true, earn: true, launch: true, mining: true };
  const allOff = { seconds: false, lever: false, c2c: false, vote: false, insurance: false, earn: false, launch: false, mining: false };

  it("shows the asset centre's tabs in the products' order, only for products that are on", () => {
    expect(accountTabs(allOn)).toEqual(["change", "micro", "legal", "lever"]);
    expect(accountTabs({ ...allOn, c2c: false, vote: false, insurance: false, earn: false, launch: false, mining: false })).toEqual(["change", "micro", "lever"]);
    expect(accountTabs(null)).toEqual(["change"]);
  });

  it("offers the leverage account as a transfer source but never as a target once leverage is off, so no money is trapped", () => {
    expect(transferChoices({ ...allOn, lever: false })).toEqual({ sources: ["change", "micro", "legal", "lever"], targets: ["change", "micro", "legal"] });
    expect(transferChoices(allOff)).toEqual({ sources: ["change", "lever"], targets: ["change"] });
    expect(transferChoices(allOn)).toEqual({ sources: ["change", "micro", "legal", "lever"], targets: ["change", "micro", "legal", "lever"] });
    // While the switches load only the spot account is offered.
    expect(transferChoices(null)).toEqual({ sources: ["change"], targets: ["change"] });
  });

  it("lists C2C's console queues only while C2C is on, and the seconds settings always (prepared before switching it on)", () => {
    expect(consolePagesOn(allOn).map((p) => p.path)).toEqual(["/admin/seconds", "/admin/c2c-merchants", "/admin/c2c-adverts", "/admin/c2c-appeals", "/admin/vote", "/admin/insurance", "/admin/launch", "/admin/earn", "/admin/mining"]);
    expect(consolePagesOn(allOff).map((p) => p.path)).toEqual(["/admin/seconds", "/admin/insurance", "/admin/earn", "/admin/mining"]);
    expect(consolePagesOn(null).map((p) => p.path)).toEqual(["/admin/seconds", "/admin/insurance", "/admin/earn", "/admin/mining"]);
    expect(consolePageState("/admin/c2c-appeals", allOff)).toBe("off");
    expect(consolePageState("/admin/c2c-appeals", null)).toBe("loading");
    expect(consolePageState("/admin/c2c-appeals", allOn)).toBe("page");
    expect(consolePageState("/admin/seconds", allOff)).toBe("page");
    expect(consolePageState("/admin/users", allOff)).toBeNull();
  });

  it("knows an account name from anything else a link may carry", () => {
    expect(isAccountName("lever")).toBe(true);
    expect(isAccountName("savings")).toBe(false);
    expect(isAccountName(null)).toBe(false);
  });
});
