/** Savings test helpers shared by the D1 path (earn.test.ts) and the account objects' (tests/objects/earn-objects.test.ts). */
import { expect } from "vitest";
import { api, type TestUser } from "./helpers.ts";
import { USDT } from "./wallet-fixtures.ts";

export const DAY = 86_400_000;
/** A minute past `n` whole days of holding for a position subscribed before the call (interest day n has ended). */
export const held = (n: number) => Date.now() + n * DAY + 60_000;
export const daily = (amount: bigint, bps: bigint) => (amount * bps) / 3_650_000n;

/** Publishes a product through the console and answers it as the list shows it (the newest open one). */
export async function createEarnProduct(operator: TestUser, over: Record<string, unknown> = {}): Promise<any> {
  const body = { currency_id: USDT, term_days: 30, apr: "5", min_amount: "10", max_amount: "1000", budget: "1000", reason: "November savings campaign", ...over };
  const r = await api("/admin/earn/products", { token: operator.token, body });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  // Newest first among the open products.
  return r.body.message.filter((p: any) => p.status === "open").sort((a: any, b: any) => b.id - a.id)[0];
}
