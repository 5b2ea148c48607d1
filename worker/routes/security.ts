/**
 * Account guards (issue #29): passkeys (add, list, remove, confirm with one, sign in with one), the
 * anti-phishing code, the withdrawal whitelist and the settings lock. The rules are in
 * worker/domain/account/ (guards.ts, passkeys.ts, settings-lock.ts); schemas in schemas/security.ts.
 */
import { Hono } from "hono";
import { sessionSchema } from "../../schemas/auth.ts";
import {
  antiPhishingSchema,
  deletedSchema,
  lockSchema,
  passkeyCreationOptionsSchema,
  passkeyIdParamSchema,
  passkeyListSchema,
  passkeyLoginSchema,
  passkeyRegisterSchema,
  passkeyRequestOptionsSchema,
  passkeySchema,
  secondFactorSchema,
  securitySettingsSchema,
  whitelistSchema,
} from "../../schemas/security.ts";
import { requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { clientIp, rateLimit } from "../lib/ratelimit.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, params } from "../lib/validate.ts";
import { checkSecondFactor, lockSettings, securitySettings, setAntiPhishing, setWhitelist } from "../domain/account/guards.ts";
import {
  confirmationOptions,
  deletePasskey,
  listPasskeys,
  loginOptions,
  loginWithPasskey,
  registerPasskey,
  registrationOptions,
  relyingParty,
} from "../domain/account/passkeys.ts";

const MINUTE = 60_000;

export const securityRoutes = new Hono<AppEnv>()
  .get("/security/settings", requireUser, answers(securitySettingsSchema, { summary: "The account's guards: second factors, anti-phishing code, whitelist, lock, proven contact", auth: true }), async (c) =>
    ok(c, await securitySettings(c.env.DB, c.get("user").id)),
  )

  // ── Passkeys ────────────────────────────────────────────────────────────────────────────────
  .post("/security/passkeys/options", requireUser, answers(passkeyCreationOptionsSchema, { summary: "WebAuthn options to add a passkey (for @simplewebauthn/browser startRegistration)", auth: true }), async (c) => {
    const user = c.get("user");
    await rateLimit(c.env.DB, `passkey-options:${user.id}`, 30, 10 * MINUTE);
    return ok(c, await registrationOptions(c.env, user, relyingParty(c.req.raw, c.env)));
  })
  .post("/security/passkeys", requireUser, jsonBody(passkeyRegisterSchema), answers(passkeySchema, { summary: "Add a passkey (named); the second factor when the account already has one", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const b = c.req.valid("json");
    const rp = relyingParty(c.req.raw, c.env);
    await rateLimit(c.env.DB, `passkey-add:${uid}`, 20, 10 * MINUTE);
    await checkSecondFactor(c.env, uid, b, rp, { required: false });
    return ok(c, await registerPasskey(c.env, uid, b.name, b.response, rp));
  })
  .get("/security/passkeys", requireUser, answers(passkeyListSchema, { summary: "One's passkeys", auth: true }), async (c) => ok(c, await listPasskeys(c.env.DB, c.get("user").id)))
  .post("/security/passkeys/:id/delete", requireUser, params(passkeyIdParamSchema), jsonBody(secondFactorSchema), answers(deletedSchema, { summary: "Remove one of one's passkeys (second factor)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `passkey-delete:${uid}`, 20, 10 * MINUTE);
    await checkSecondFactor(c.env, uid, c.req.valid("json"), relyingParty(c.req.raw, c.env), { required: true });
    await deletePasskey(c.env, uid, c.req.valid("param").id);
    return ok(c, { deleted: true as const });
  })
  .post("/security/passkeys/confirm/options", requireUser, answers(passkeyRequestOptionsSchema, { summary: "WebAuthn options to confirm a withdrawal or a security change with a passkey (send the answer as `passkey`)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `passkey-options:${uid}`, 30, 10 * MINUTE);
    return ok(c, await confirmationOptions(c.env, uid, relyingParty(c.req.raw, c.env)));
  })
  .post("/user/login/passkey/options", answers(passkeyRequestOptionsSchema, { summary: "WebAuthn options to sign in with a passkey" }), async (c) => {
    await rateLimit(c.env.DB, `passkey-login-options:${clientIp(c.req.raw, c.env)}`, 30, MINUTE);
    return ok(c, await loginOptions(c.env, relyingParty(c.req.raw, c.env)));
  })
  .post("/user/login/passkey", jsonBody(passkeyLoginSchema), answers(sessionSchema, { summary: "Sign in with a passkey: a session token for the Authorization header" }), async (c) => {
    const ip = clientIp(c.req.raw, c.env);
    await rateLimit(c.env.DB, `passkey-login:${ip}`, 30, 10 * MINUTE);
    return ok(c, await loginWithPasskey(c.env, ip, c.req.header("user-agent"), c.req.valid("json").response, relyingParty(c.req.raw, c.env)));
  })

  // ── Anti-phishing code, whitelist, settings lock ────────────────────────────────────────────
  .post("/security/anti_phishing", requireUser, jsonBody(antiPhishingSchema), answers(securitySettingsSchema, { summary: "Set the anti-phishing code shown in every e-mail and SMS (second factor)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const b = c.req.valid("json");
    await rateLimit(c.env.DB, `guard-change:${uid}`, 20, 10 * MINUTE);
    await setAntiPhishing(c.env, uid, b.code, b, relyingParty(c.req.raw, c.env));
    return ok(c, await securitySettings(c.env.DB, uid));
  })
  .post("/security/whitelist", requireUser, jsonBody(whitelistSchema), answers(securitySettingsSchema, { summary: "Withdraw only to the address book (on) or anywhere (off) (second factor)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const b = c.req.valid("json");
    await rateLimit(c.env.DB, `guard-change:${uid}`, 20, 10 * MINUTE);
    await setWhitelist(c.env, uid, b.on, b, relyingParty(c.req.raw, c.env));
    return ok(c, await securitySettings(c.env.DB, uid));
  })
  .post("/security/lock", requireUser, jsonBody(lockSchema), answers(securitySettingsSchema, { summary: "Freeze the whitelist, address book and second factors for some days (second factor)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const b = c.req.valid("json");
    await rateLimit(c.env.DB, `guard-change:${uid}`, 20, 10 * MINUTE);
    await lockSettings(c.env, uid, b.days, b, relyingParty(c.req.raw, c.env));
    return ok(c, await securitySettings(c.env.DB, uid));
  });
