/**
 * API keys for bots (issue #29): make one (with the second factor; its secret is answered once),
 * list them, delete one. Only with a session: these routes refuse API keys (a key never makes or
 * deletes keys). Rules in worker/domain/security/api-keys.ts, signing in worker/lib/api-keys.ts.
 */
import { Hono } from "hono";
import { apiKeyCreatedSchema, apiKeyCreateSchema, apiKeyDeletedSchema, apiKeyIdParamSchema, apiKeyListSchema } from "../../schemas/api-keys.ts";
import { requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { rateLimit } from "../lib/ratelimit.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, params } from "../lib/validate.ts";
import { createApiKey, deleteApiKey, listApiKeys } from "../domain/security/api-keys.ts";
import { requireProvenContact } from "../domain/auth/contact.ts";

const MINUTE = 60_000;

export const apiKeyRoutes = new Hono<AppEnv>()
  .post("/apikeys", requireUser, requireProvenContact, jsonBody(apiKeyCreateSchema), answers(apiKeyCreatedSchema, { summary: "Make an API key (second factor: authenticator code, or the fund password without one); the secret is answered this once", auth: true }), async (c) => {
    const user = c.get("user");
    await rateLimit(c.env.DB, `apikey-create:${user.id}`, 10, 10 * MINUTE);
    return ok(c, await createApiKey(c.env, user, c.req.valid("json")));
  })
  .get("/apikeys", requireUser, answers(apiKeyListSchema, { summary: "One's API keys (never their secrets)", auth: true }), async (c) => ok(c, { list: await listApiKeys(c.env.DB, c.get("user").id) }))
  .post("/apikeys/:id/delete", requireUser, params(apiKeyIdParamSchema), answers(apiKeyDeletedSchema, { summary: "Delete one of one's API keys", auth: true }), async (c) => {
    await deleteApiKey(c.env.DB, c.get("user").id, c.req.valid("param").id);
    return ok(c, { deleted: true as const });
  });
