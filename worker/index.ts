/**
 * Worker entry: /api through Hono, /ws upgraded to the pair's Durable Object, the hashed build
 * files under /assets/ (a missing one is a 404, lib/assets.ts), static assets and the SPA for
 * everything else (wrangler.toml [assets]), and the cron handlers.
 */
import { app } from "./app.ts";
import { serveBuildAsset } from "./lib/assets.ts";
import { runScheduled } from "./scheduled.ts";
import { devClockReady } from "./lib/clock.ts";

export { PairDurableObject } from "../durable/pair/object.ts";
export { UserDurableObject } from "../durable/user.ts";

export default {
  fetch(request, env, ctx) {
    // DEV_CLOCK=on (local only): the moved clock is installed before anything reads the time (lib/clock.ts).
    const clock = devClockReady(env);
    if (clock) return clock.then(() => handle(request, env, ctx));
    return handle(request, env, ctx);
  },
  async scheduled(controller, env, ctx) {
    await devClockReady(env);
    ctx.waitUntil(runScheduled(controller.cron, env));
  },
} satisfies ExportedHandler<Env>;

function handle(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
  // /assets/* reaches the Worker first (wrangler.toml): a missing build file is a 404, not the SPA.
  if (new URL(request.url).pathname.startsWith("/assets/")) return serveBuildAsset(request, env);
  return app.fetch(request, env, ctx);
}
