/**
 * Accounts and sessions (spec §2 login/register/forgot, §7): captcha, account check, register,
 * login with brute-force lockout, user info, logout, password reset by e-mailed code, password
 * change. Every authentication endpoint is rate limited in D1; the rules are in worker/domain/auth/.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import {
  accountCheckSchema,
  accountMode,
  captchaSchema,
  codeSentSchema,
  okWordSchema,
  passwordResetSchema,
  sessionSchema,
  userInfoSchema,
  checkAccountSchema,
  checkEmailSchema,
  forgetSchema,
  loginSchema,
  registerSchema,
  sendCodeSchema,
  updatePasswordSchema,
} from "../../schemas/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { deliver, devOutboxEnabled } from "../lib/delivery.ts";
import { requireUser } from "../lib/auth.ts";
import { clientIp, clientPlace, rateLimit } from "../lib/ratelimit.ts";
import { answers, answersNew, ok, okNew } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { createCaptcha } from "../domain/auth/captcha.ts";
import { checkCode, requestResetCode, resetPassword } from "../domain/auth/reset-codes.ts";
import { changePassword, endSession, login, register as registerUser, userInfo } from "../domain/auth/users.ts";
import { contactState, resendContactCode, verifyContact } from "../domain/auth/contact.ts";
import { contactStateSchema, verifyContactSchema } from "../../schemas/security.ts";

const MINUTE = 60_000;
/** Login requests per address per 10 minutes, across accounts (credential stuffing). */
export const LOGIN_PER_ADDRESS = 100;

/** Shared by /api/user/register and /api/new/register; returns the session token. */
async function register<E extends AppEnv>(c: Context<E>, input: ReturnType<typeof registerSchema.parse>) {
  const ip = clientIp(c.req.raw, c.env);
  await rateLimit(c.env.DB, `register:${ip}`, 10, 10 * MINUTE);
  return registerUser(c.env, ip, input, c.req.header("user-agent"), clientPlace(c.req.raw, c.env));
}

export const authRoutes = new Hono<AppEnv>()
  .post("/login/smscode", answers(captchaSchema, { summary: "A new image captcha" }), async (c) => {
    await rateLimit(c.env.DB, `captcha:${clientIp(c.req.raw, c.env)}`, 30, MINUTE);
    const captcha = await createCaptcha(c.env.DB);
    await deliver(c.env, { channel: "captcha", recipient: captcha.id, subject: "captcha", body: "", code: captcha.answer });
    return ok(c, { code: captcha.image, code_id: captcha.id });
  })
  // The same answer for every well-formed address, registered or not (issue #29: nothing here
  // tells whether an address has an account); a taken address is reported by the register call
  // itself, after its single-use captcha (docs/api.md "Registered or not").
  .post("/new/check/account", jsonBody(checkAccountSchema), answersNew(accountCheckSchema, { summary: "Check an account's form before registering (e-mail or phone); the same answer whether or not it is registered" }), async (c) => {
    await rateLimit(c.env.DB, `check:${clientIp(c.req.raw, c.env)}`, 60, MINUTE);
    const { account } = c.req.valid("json");
    return okNew(c, { mode: accountMode(account) });
  })
  .post("/user/register", jsonBody(registerSchema), answers(sessionSchema, { summary: "Register and log in" }), async (c) => ok(c, await register(c, c.req.valid("json"))))
  .post("/new/register", jsonBody(registerSchema), answersNew(sessionSchema, { summary: "Register and log in" }), async (c) => okNew(c, await register(c, c.req.valid("json"))))
  .post("/user/login", jsonBody(loginSchema), answers(sessionSchema, { summary: "Log in: a session token for the Authorization header" }), async (c) => {
    const ip = clientIp(c.req.raw, c.env);
    const { user_string: account, password } = c.req.valid("json");
    await rateLimit(c.env.DB, `login:${ip}`, LOGIN_PER_ADDRESS, 10 * MINUTE);
    return ok(c, await login(c.env, ip, account, password, c.req.header("user-agent"), clientPlace(c.req.raw, c.env)));
  })
  .get("/user/info", requireUser, answers(userInfoSchema, { summary: "The logged-in user", auth: true }), async (c) => ok(c, await userInfo(c.env.DB, c.get("user").id)))
  .post("/user/logout", requireUser, answers(okWordSchema, { summary: "End this session", auth: true }), async (c) => {
    await endSession(c.env, c.get("user").id, c.get("user").sessionId);
    return ok(c, "ok");
  })
  .post("/sms_mail", jsonBody(sendCodeSchema), answers(codeSentSchema, { summary: "E-mail a password reset code (only to a registered, proven address; the same answer for every address)" }), async (c) => {
    const { user_string: account } = c.req.valid("json");
    await rateLimit(c.env.DB, `code-ip:${clientIp(c.req.raw, c.env)}`, 10, 60 * MINUTE);
    const send = await requestResetCode(c.env, account);
    // The same answer, at the same speed, for every address: deployed, the code (if any) leaves
    // after the answer. With the dev outbox (local runs, tests) it is written before, so a
    // reader of the outbox finds it as soon as the answer arrives.
    const job = send().catch((err: unknown) => console.error(JSON.stringify({ level: "error", event: "reset_code_not_sent", reason: String(err) })));
    if (devOutboxEnabled(c.env)) await job;
    else c.executionCtx.waitUntil(job);
    return ok(c, "sent");
  })
  .post("/user/check_email", jsonBody(checkEmailSchema), answers(okWordSchema, { summary: "Check a reset code" }), async (c) => {
    const { user_string: account, email_code } = c.req.valid("json");
    await rateLimit(c.env.DB, `code-check:${clientIp(c.req.raw, c.env)}`, 30, 10 * MINUTE);
    await checkCode(c.env.DB, account, email_code);
    return ok(c, "ok");
  })
  .post("/user/forget", jsonBody(forgetSchema), answers(passwordResetSchema, { summary: "Reset the password with the code" }), async (c) => {
    const { account, password, code } = c.req.valid("json");
    await rateLimit(c.env.DB, `code-check:${clientIp(c.req.raw, c.env)}`, 30, 10 * MINUTE);
    await resetPassword(c.env, account, password, code);
    return ok(c, "reset");
  })
  .get("/user/verify_contact", requireUser, answers(contactStateSchema, { summary: "Is the account's e-mail or phone proven, and when may another code be sent", auth: true }), async (c) =>
    ok(c, await contactState(c.env.DB, c.get("user").id)),
  )
  .post("/user/verify_contact", requireUser, jsonBody(verifyContactSchema), answers(contactStateSchema, { summary: "Prove the account's e-mail or phone with the 6-digit code sent to it (5 tries per code, 30 minutes)", auth: true }), async (c) => {
    const user = c.get("user");
    // Across codes: 20 tries per 10 minutes per account, counted before the code is compared.
    await rateLimit(c.env.DB, `contact-check:${user.id}`, 20, 10 * MINUTE);
    return ok(c, await verifyContact(c.env, user.id, c.req.valid("json").code));
  })
  .post("/user/verify_contact/resend", requireUser, answers(contactStateSchema, { summary: "Send a new code to the account's e-mail or phone (one a minute, ten a day)", auth: true }), async (c) =>
    ok(c, await resendContactCode(c.env, c.get("user").id)),
  )
  .post("/new/users/update-password", requireUser, jsonBody(updatePasswordSchema), answersNew(okWordSchema, { summary: "Change the password (ends every session)", auth: true }), async (c) => {
    const user = c.get("user");
    const { oldpwd, newpwd } = c.req.valid("json");
    await rateLimit(c.env.DB, `pwd:${user.id}`, 10, 10 * MINUTE);
    await changePassword(c.env, user.id, oldpwd, newpwd);
    return okNew(c, "ok");
  });
