/**
 * Worker entry: /api through Hono, /ws upgraded to the pair's Durable Object, the hashed build
 * files under /assets/ (a missing one is a 404, lib/assets.ts), static assets and the SPA for
 * everything else (wrangler.toml [assets]), and the cron handlers.
 */
import { app } from "./app.ts";
import { serveBuildAsset } from "./lib/assets.ts";
import { runScheduled } from "./scheduled.ts";

export { PairDurableObject } from "../durable/pair/object.ts";
export { UserDurableObject } from "../durable/user.ts";

export default {
  fetch(request, env, ctx) {
    // /assets/* reaches the Worker first (wrangler.toml): a missing build file is a 404, not the SPA.
    if (new URL(request.url).pathname.startsWith("/assets/")) return serveBuildAsset(request, env);
    return app.fetch(request, env, ctx);
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(controller.cron, env));
  },
} satisfies ExportedHandler<Env>;
