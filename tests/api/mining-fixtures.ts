/** Mining test helpers shared by the D1 path (mining.test.ts) and the account objects' (tests/objects/mining-objects.test.ts). */
import { expect } from "vitest";
import { api, type TestUser } from "./helpers.ts";
import { BTC } from "./wallet-fixtures.ts";

export const HOUR = 3_600_000;
let seq = 0;
/** A fresh number for names and evidence. */
export const nextSeq = () => ++seq;

/** The start of the next whole hour: shares bought now count for it. */
export const nextHour = () => Math.ceil((Date.now() + 1) / HOUR) * HOUR;

/** A plan listed through the console: 1,000 shares of 100 TH/s at 100 USDT, 30 days, 2 % fee, paid in BTC. */
export async function listPlan(op: TestUser, over: Record<string, unknown> = {}) {
  const n = nextSeq();
  const r = await api("/admin/mining/plans", {
    token: op.token,
    body: {
      name: `Antpool S19 #${n}`,
      pool: "Antpool",
      pool_account: "honest-exchange",
      worker: `honest.s19-${n}`,
      hashrate: "100 TH/s",
      shares: 1000,
      price: "100",
      days: 30,
      fee_bps: 200,
      other_fees: "Electricity is included in the price",
      payout_currency_id: BTC,
      reason: "machines racked and pointed at the pool",
      ...over,
    },
  });
  expect(r.body, JSON.stringify(r.body)).toMatchObject({ type: "ok", message: { status: "open" } });
  return r.body.message as { id: number; shares: number };
}

export const buy = (user: TestUser, plan_id: number, shares: number) => api("/mining/buy", { token: user.token, body: { plan_id, shares } });
export const record = (op: TestUser, plan_id: number, hour: number | string, amount: string, evidence = `pool-payout-${nextSeq()}`) =>
  api("/admin/mining/payouts", { token: op.token, body: { plan_id, hour, amount, evidence, reason: "from the pool's payout page" } });
export const approve = (op: TestUser, id: number) => api("/admin/mining/payouts/approve", { token: op.token, body: { id, reason: "checked against the pool" } });
export const reject = (op: TestUser, id: number) => api("/admin/mining/payouts/reject", { token: op.token, body: { id, reason: "amount does not match the pool" } });
