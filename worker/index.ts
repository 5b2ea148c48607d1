/**
 * Worker entry: /api through Hono, /ws upgraded to the pair's Durable Object, static assets for
 * everything else (wrangler.toml [assets]), and the cron handlers.
 */
import { app } from "./app.ts";
import { runScheduled } from "./scheduled.ts";

export { PairDurableObject } from "../durable/pair/object.ts";
export { UserDurableObject } from "../durable/user.ts";

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(controller.cron, env));
  },
} satisfies ExportedHandler<Env>;
