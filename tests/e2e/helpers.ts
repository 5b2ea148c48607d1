/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/** Small helpers for the browser tests: reading the dev outbox and registering through the API. */
import type { Page } from "playwright-core";

export interface OutboxRow {
  channel: string;
  recipient: string;
  subject: string;
  body: string;
  code: string | null;
}

async function outbox(baseUrl: string, to: string): Promise<OutboxRow[]> {
  const url = new URL("/api/dev/outbox", baseUrl);
  url.searchParams.set("to", to);
  const res = await fetch(url);
  const json = (await res.json()) as { type: string; message: OutboxRow[] };
  if (json.type !== "ok") throw new Error(`outbox: ${JSON.stringify(json)}`);
  return json.message;
}

/** The answer of a captcha (?to= keeps a captcha id's case: only e-mail accounts are lower-cased). */
export async function captchaAnswer(baseUrl: string, codeId: string): Promise<string> {
  const row = (await outbox(baseUrl, codeId)).find((r) => r.channel === "captcha" && r.recipient === codeId);
  if (!row?.code) throw new Error(`no captcha answer for ${codeId}`);
  return row.code;
}

/** The newest e-mailed code sent to an account. */
export async function latestEmailCode(baseUrl: string, account: string): Promise<string> {
  const row = (await outbox(baseUrl, account)).find((r) => r.channel === "email");
  if (!row?.code) throw new Error(`no e-mail code for ${account}`);
  return row.code;
}

let counter = 0;
/** A fresh e-mail account per test, so tests never share data. */
export function uniqueEmail(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.test`;
}

async function postJson<T>(baseUrl: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(new URL(path, baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await res.json()) as T;
}

/** Registers an account through the API (captcha answered from the dev outbox). */
export async function registerViaApi(baseUrl: string, account: string, password: string): Promise<void> {
  const cap = await postJson<{ type: string; message: { code_id: string } }>(baseUrl, "/api/login/smscode", {});
  const code = await captchaAnswer(baseUrl, cap.message.code_id);
  const res = await postJson<{ type: string; message: unknown }>(baseUrl, "/api/user/register", {
    type: 1,
    user_string: account,
    password,
    re_password: password,
    country_code: "86",
    code_id: cap.message.code_id,
    code,
  });
  if (res.type !== "ok") throw new Error(`register failed: ${JSON.stringify(res)}`);
}

/** Waits until the hash route matches, e.g. "#/" or "#/login". */
export async function waitForRoute(page: Page, route: RegExp, timeout = 10_000): Promise<void> {
  await page.waitForFunction((src) => new RegExp(src).test(window.location.hash), route.source, { timeout });
}
