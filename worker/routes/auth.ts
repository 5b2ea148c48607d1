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
import { deliver } from "../lib/delivery.ts";
import { ApiError } from "../lib/errors.ts";
import { requireUser } from "../lib/auth.ts";
import { clientIp, clientPlace, rateLimit } from "../lib/ratelimit.ts";
import { answers, answersNew, ok, okNew } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { createCaptcha } from "../domain/auth/captcha.ts";
import { checkCode, resetPassword, sendResetCode } from "../domain/auth/reset-codes.ts";
import { changePassword, endSession, findUser, login, register as registerUser, userInfo } from "../domain/auth/users.ts";

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
  .post("/new/check/account", jsonBody(checkAccountSchema), answersNew(accountCheckSchema, { summary: "Is the account free to register?" }), async (c) => {
    await rateLimit(c.env.DB, `check:${clientIp(c.req.raw, c.env)}`, 60, MINUTE);
    const { account } = c.req.valid("json");
    if (await findUser(c.env.DB, account)) throw new ApiError("account_exists", 409);
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
    await endSession(c.env.DB, c.get("user").sessionId);
    return ok(c, "ok");
  })
  .post("/sms_mail", jsonBody(sendCodeSchema), answers(codeSentSchema, { summary: "E-mail a password reset code" }), async (c) => {
    const { user_string: account } = c.req.valid("json");
    await rateLimit(c.env.DB, `code-ip:${clientIp(c.req.raw, c.env)}`, 10, 60 * MINUTE);
    await sendResetCode(c.env, account);
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
  .post("/new/users/update-password", requireUser, jsonBody(updatePasswordSchema), answersNew(okWordSchema, { summary: "Change the password (ends every session)", auth: true }), async (c) => {
    const user = c.get("user");
    const { oldpwd, newpwd } = c.req.valid("json");
    await rateLimit(c.env.DB, `pwd:${user.id}`, 10, 10 * MINUTE);
    await changePassword(c.env, user.id, oldpwd, newpwd);
    return okNew(c, "ok");
  });
