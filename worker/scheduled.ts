/** Cron jobs (wrangler.toml [triggers]). Each job is idempotent: a cron that fires twice is harmless. */
import { reconcileSpotOrders } from "./jobs/spot-reconcile.ts";

export async function runScheduled(cron: string, env: Env): Promise<void> {
  const now = Date.now();
  // Expired captchas and old rate-limit windows are useless; keep the tables small.
  await env.DB.batch([
    env.DB.prepare("DELETE FROM captchas WHERE expires_at < ?").bind(now),
    env.DB.prepare("DELETE FROM rate_limits WHERE window_start < ?").bind(now - 24 * 3600 * 1000),
  ]);
  if (cron === "* * * * *") {
    const spot = await reconcileSpotOrders(env, now);
    if (spot.released > 0) console.warn(JSON.stringify({ level: "warn", event: "spot_orphans_released", ...spot }));
  }
  await (await import("./jobs/reconcile.ts")).reconcileJob(cron, env);
}
