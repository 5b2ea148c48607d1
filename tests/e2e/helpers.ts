/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Small helpers for the browser tests: reading the dev outbox, registering through the API, and
 * putting items into a user's notification inbox.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ROOT } from "./server.ts";

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

/** One notification as an event would write it (worker/domain/notifications/inbox.ts). */
export interface TestNotification {
  kind: string;
  /** Names the event, unique per user. */
  key: string;
  params?: Record<string, string>;
  link?: string;
  /** ms since the epoch; shown in Beijing time. */
  createdAt?: number;
}

const sqlText = (v: string) => `'${v.replace(/'/g, "''")}'`;

/**
 * Puts notifications into an account's inbox, in the given order (ids grow), by writing the rows
 * into the test server's local D1 while it runs, as the event's own batch would.
 *
 * A STAND-IN: on main no event writes a notification yet (the wiring of deposits, withdrawals,
 * KYC, seconds, lever, login, C2C and support is on its way, issue #16 §1). Once it lands, replace
 * the body with the real event, e.g. an operator crediting a deposit of the account, or a seconds
 * contract of it settling (tests/e2e/seconds.test.ts shows how to open one), and let the event
 * push `{type: "notification"}` on the user channel: this stand-in cannot push, so its callers see
 * the rows only after a reload or when the tab becomes visible again.
 */
export async function addNotifications(persistDir: string, account: string, rows: TestNotification[]): Promise<void> {
  const sql = rows
    .map(
      (n) =>
        "INSERT INTO notifications (user_id, event_key, kind, params, link, created_at) " +
        `SELECT id, ${sqlText(n.key)}, ${sqlText(n.kind)}, ${sqlText(JSON.stringify(n.params ?? {}))}, ${sqlText(n.link ?? "")}, ${n.createdAt ?? Date.now()} ` +
        `FROM users WHERE account = ${sqlText(account.toLowerCase())};`,
    )
    .join("\n");
  const dir = mkdtempSync(join(tmpdir(), "e2e-notify-"));
  const file = join(dir, "notify.sql");
  writeFileSync(file, sql);
  try {
    const wrangler = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
    const args = [wrangler, "d1", "execute", "DB", "--local", "--persist-to", persistDir, "--file", file];
    const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" } });
      let text = "";
      child.stdout.on("data", (d: Buffer) => (text += d.toString()));
      child.stderr.on("data", (d: Buffer) => (text += d.toString()));
      child.on("close", (code) => resolve({ code, text }));
    });
    if (out.code !== 0) throw new Error(`adding notifications failed (exit ${out.code}):\n${out.text}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
