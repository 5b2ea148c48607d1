/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Small helpers for the browser tests: reading the dev outbox, registering through the API, and
 * putting items into a user's notification inbox.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
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

/** The newest code sent to an account by e-mail or SMS (the contact code, a reset code). */
export async function latestCode(baseUrl: string, account: string): Promise<string> {
  const row = (await outbox(baseUrl, account)).find((r) => (r.channel === "email" || r.channel === "sms") && r.code);
  if (!row?.code) throw new Error(`no code for ${account}`);
  return row.code;
}

/**
 * Enters the code sent at sign-up (read from the dev outbox) in the banner every screen shows
 * until the e-mail or phone is proven (issue #29), and waits for the banner to go.
 */
export async function proveContactInBanner(page: Page, baseUrl: string, account: string): Promise<void> {
  const banner = page.locator('[data-testid="contact-banner"]');
  await banner.waitFor();
  await banner.locator('[data-testid="contact-code"]').fill(await latestCode(baseUrl, account));
  await banner.locator('[data-testid="contact-confirm"]').click();
  await banner.waitFor({ state: "detached" });
}

/**
 * Registers an account through the API (captcha answered from the dev outbox) and, unless told
 * not to, proves its e-mail with the code the registration sent (deposits and withdrawals need it).
 */
export async function registerViaApi(baseUrl: string, account: string, password: string, opts: { prove?: boolean } = {}): Promise<void> {
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
  if (opts.prove === false) return;
  const token = (res.message as { token: string }).token;
  const proved = await fetch(new URL("/api/user/verify_contact", baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: token, lang: "en" },
    body: JSON.stringify({ code: await latestCode(baseUrl, account) }),
  });
  const json = (await proved.json()) as { type: string; message: { contact_verified: boolean } };
  if (json.type !== "ok" || !json.message.contact_verified) throw new Error(`verify_contact: ${JSON.stringify(json)}`);
}

/** Logs in through the API and returns the session token. */
export async function loginViaApi(baseUrl: string, account: string, password: string): Promise<string> {
  const res = await fetch(new URL("/api/user/login", baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json", lang: "en" },
    body: JSON.stringify({ user_string: account, password, type: 1 }),
  });
  const json = (await res.json()) as { type: string; message: { token: string } };
  if (json.type !== "ok") throw new Error(`login: ${JSON.stringify(json)}`);
  return json.message.token;
}

/** Waits until the hash route matches, e.g. "#/" or "#/login". */
export async function waitForRoute(page: Page, route: RegExp, timeout = 120_000): Promise<void> {
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

/** The local D1 database's SQLite file under a test server's --persist-to folder (the one with the app's tables). */
function localD1File(persistDir: string): string {
  const dir = join(persistDir, "v3", "d1", "miniflare-D1DatabaseObject");
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".sqlite") || name === "metadata.sqlite") continue;
    const db = new DatabaseSync(join(dir, name), { readOnly: true });
    try {
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'notifications'").get()) return join(dir, name);
    } finally {
      db.close();
    }
  }
  throw new Error(`no local D1 database with a notifications table in ${dir}`);
}

/**
 * The currencies the fee account (user 0) has spot fees in, as D1 reads them: its ledger rows
 * (balances in D1) or its shards' drained movements (balances in the account objects, where the
 * fee shards drain a moment after the pair's trade rows). For a test that must not read a cached
 * public summary before the fees are there.
 */
export function spotFeeCurrencies(persistDir: string): number[] {
  const db = new DatabaseSync(localD1File(persistDir), { readOnly: true, timeout: 10_000 });
  try {
    const rows = db
      .prepare(
        `SELECT currency_id FROM ledger WHERE user_id = 0 AND kind = 'spot'
         UNION SELECT currency_id FROM system_movements WHERE user_id = 0 AND ref LIKE 'trade:%'`,
      )
      .all() as { currency_id: number }[];
    return rows.map((r) => r.currency_id);
  } finally {
    db.close();
  }
}

/**
 * Puts notifications into an account's inbox, in the given order (ids grow), by writing the rows
 * into the test server's local D1 while it runs (a SQLite file in WAL mode, shared with the
 * running worker), as the event's own batch would.
 *
 * A STAND-IN: on main no event writes a notification yet (the wiring of deposits, withdrawals,
 * KYC, seconds, lever, login, C2C and support is on its way, issue #16 §1). Once it lands, replace
 * the body with the real event, e.g. an operator crediting a deposit of the account, or a seconds
 * contract of it settling (tests/e2e/seconds.test.ts shows how to open one); the event then also
 * pushes `{type: "notification"}` on the user channel, which this stand-in cannot do.
 */
export function addNotifications(persistDir: string, account: string, rows: TestNotification[]): void {
  // Waits (up to 10 s) while the worker holds the write lock.
  const db = new DatabaseSync(localD1File(persistDir), { timeout: 10_000 });
  try {
    const insert = db.prepare(
      "INSERT INTO notifications (user_id, event_key, kind, params, link, created_at) SELECT id, ?, ?, ?, ?, ? FROM users WHERE account = ?",
    );
    db.exec("BEGIN IMMEDIATE");
    for (const n of rows) {
      const done = insert.run(n.key, n.kind, JSON.stringify(n.params ?? {}), n.link ?? "", n.createdAt ?? Date.now(), account.toLowerCase());
      if (done.changes !== 1) throw new Error(`no account ${account}, or notification ${n.key} given twice`);
    }
    db.exec("COMMIT");
  } catch (err) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw err;
  } finally {
    db.close();
  }
}

/** A small real PNG (a 2×2 grey square), as a phone's picker would hand over. */
export const TINY_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGNsaGhgYGBgYmBgYGBgAAAEHAEFCg9a8QAAAABJRU5ErkJggg==", "base64");

/** Uploads a picture as the account of `token`; returns its upload id (proofs, identity pictures). */
export async function uploadPicture(baseUrl: string, token: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([TINY_PNG], { type: "image/png" }), "id.png");
  form.append("scene", "user/id.png");
  const res = await fetch(new URL("/api/new/upload", baseUrl), { method: "POST", headers: { authorization: token, lang: "en" }, body: form });
  const json = (await res.json()) as { status: number; data: { id: string } };
  if (json.status !== 1) throw new Error(`upload: ${JSON.stringify(json)}`);
  return json.data.id;
}

/** One API call as `token` (POST when a body is given); resolves with the payload of an ok answer. */
export async function apiCall<T>(baseUrl: string, path: string, opts: { token?: string; body?: unknown } = {}): Promise<T> {
  const method = opts.body === undefined ? "GET" : "POST";
  const headers: Record<string, string> = { lang: "en" };
  if (opts.token) headers.authorization = opts.token;
  if (method === "POST") headers["content-type"] = "application/json";
  const res = await fetch(new URL(path, baseUrl), { method, headers, body: method === "POST" ? JSON.stringify(opts.body) : undefined });
  const json = (await res.json()) as { type?: string; status?: number; message?: unknown; data?: unknown };
  if (json.type === "ok") return json.message as T;
  if (json.status === 1) return json.data as T;
  throw new Error(`${path}: ${JSON.stringify(json)}`);
}
