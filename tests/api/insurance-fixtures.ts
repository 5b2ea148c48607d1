/** Cover test helpers shared by the D1 path (insurance.test.ts) and the account objects' (tests/objects/insurance-objects.test.ts). */
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { api, type TestUser } from "./helpers.ts";
import { u8, USDT } from "./wallet-fixtures.ts";

export const DAY = 86_400_000;
export const todayStart = () => Math.floor(Date.now() / DAY) * DAY;

/** A plan published through the console: premium 5 %, cover 50 % (the loss down to 50 %), 30 days. */
export async function publishCoverPlan(operator: TestUser, over: Record<string, unknown> = {}): Promise<{ id: number }> {
  const r = await api("/admin/insurance/plans", {
    token: operator.token,
    body: { name: "Seconds cover", currency_id: USDT, amounts: ["100", "1000"], premium_percent: "5", cover_percent: "50", days: 30, capacity: "50000", reason: "test plan", ...over },
  });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message;
}

/** A seconds contract of the user in USDT, settled with this net result (wins − stakes lost − fees), opened `agoMs` ago (or at `at`). */
export async function settledContract(userId: number, net: string, agoMs = 1000, at?: number): Promise<void> {
  const neg = net.startsWith("-");
  const units = u8(neg ? net.slice(1) : net);
  const now = at !== undefined ? at + agoMs : Date.now();
  await env.DB.prepare(
    `INSERT INTO micro_orders (user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps, result, status, created_at, end_at, settled_at)
     VALUES (?, 1, ?, 1, ?, 0, 0, 60, 8000, ?, 3, ?, ?, ?)`,
  )
    .bind(userId, USDT, (neg ? units : u8("1")).toString(), (neg ? -units : units).toString(), now - agoMs, now - agoMs + 60_000, now - agoMs + 60_000)
    .run();
}
