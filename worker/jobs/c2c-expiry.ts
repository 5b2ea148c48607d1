/**
 * Cron (every minute): cancels unpaid C2C orders whose payment window has ended and returns their
 * escrow, whether or not anyone is online, so an order is cancelled within 60 s of its window's
 * end. Each order is one guarded batch (worker/domain/c2c/orders.ts): a payment that lands first
 * wins, and a job that fires twice applies nothing twice. In objects mode the legs of an expiry
 * that were not answered are sent again by the shared every-minute job (worker/jobs/record-legs.ts).
 */
import { expireDueOrders } from "../domain/c2c/orders.ts";
import type { Job } from "./job.ts";

/** Runs the expiry at `now` (tests call it with a clock past the window) and says what it did. */
export async function c2cExpiryJob(env: Env, now = Date.now()): Promise<{ due: number; expired: number }> {
  const r = await expireDueOrders(env, now);
  if (r.expired > 0) console.log(JSON.stringify({ level: "info", event: "c2c_orders_expired", ...r }));
  return r;
}

export const c2cExpiry: Job = {
  name: "c2c-expiry",
  async run(env, { now }) {
    await c2cExpiryJob(env, now);
  },
};
