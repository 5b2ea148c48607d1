// Product switches in the web app (web/src/lib/products.ts): the transfer and asset screens offer
// only accounts of products that the deployment has switched on.
import { describe, expect, it } from "vitest";
import { accountsOn } from "../../web/src/lib/products.ts";

const ALL = ["change", "micro", "legal"] as const;

describe("accounts of switched-on products", () => {
  it("keeps the spot account always, the seconds account only with seconds on, the C2C account only with C2C on", () => {
    expect(accountsOn(ALL, { seconds: true, lever: true, c2c: true })).toEqual(["change", "micro", "legal"]);
    expect(accountsOn(ALL, { seconds: false, lever: true, c2c: true })).toEqual(["change", "legal"]);
    expect(accountsOn(ALL, { seconds: true, lever: false, c2c: false })).toEqual(["change", "micro"]);
  });

  it("offers the lever account only with leveraged contracts on", () => {
    const all = ["change", "micro", "legal", "lever"] as const;
    expect(accountsOn(all, { seconds: true, lever: true, c2c: true })).toEqual(["change", "micro", "legal", "lever"]);
    expect(accountsOn(all, { seconds: true, lever: false, c2c: true })).toEqual(["change", "micro", "legal"]);
    expect(accountsOn(all, null)).toEqual(["change"]);
  });

  it("offers only the spot account while the switches are still loading", () => {
    expect(accountsOn(ALL, null)).toEqual(["change"]);
  });
});
