/**
 * One interface for every message a user receives (e-mail and SMS codes). Locally, with
 * DEV_OUTBOX=on, messages land in the dev_outbox table (GET /api/dev/outbox). Deployed, they are
 * POSTed as JSON to DELIVERY_WEBHOOK (a mail/SMS provider or a relay of the operator's choice).
 * Every e-mail and SMS to an account that set an anti-phishing code carries it, in the subject and
 * as the first line, added here so no message can leave without it.
 */
import { ApiError } from "./errors.ts";

export interface Message {
  channel: "email" | "sms" | "captcha";
  recipient: string;
  subject: string;
  body: string;
  /** The code inside the message, recorded separately in the dev outbox so tests can read it. */
  code?: string;
}

export function devOutboxEnabled(env: Env): boolean {
  return env.DEV_OUTBOX === "on";
}

/** The message with the recipient's anti-phishing code in its subject and first line, when they set one. */
async function withAntiPhishingCode(db: D1Database, msg: Message): Promise<Message> {
  if (msg.channel === "captcha") return msg;
  const row = await db.prepare("SELECT anti_phishing_code AS code FROM users WHERE account = ?").bind(msg.recipient).first<{ code: string | null }>();
  if (!row?.code) return msg;
  return { ...msg, subject: `[${row.code}] ${msg.subject}`, body: `Anti-phishing code: ${row.code}\n\n${msg.body}` };
}

/** Sends a message through the configured channel; throws delivery_failed when it cannot. */
export async function deliver(env: Env, message: Message): Promise<void> {
  const msg = await withAntiPhishingCode(env.DB, message);
  if (devOutboxEnabled(env)) {
    await env.DB.prepare(
      "INSERT INTO dev_outbox (channel, recipient, subject, body, code, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    )
      .bind(msg.channel, msg.recipient, msg.subject, msg.body, msg.code ?? null, Date.now())
      .run();
    return;
  }
  if (msg.channel === "captcha") return; // captcha answers are only ever recorded in the dev outbox
  const url = (env as { DELIVERY_WEBHOOK?: string }).DELIVERY_WEBHOOK;
  if (!url) {
    console.error(JSON.stringify({ level: "error", event: "delivery_not_configured", channel: msg.channel }));
    throw new ApiError("delivery_failed", 503);
  }
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ channel: msg.channel, to: msg.recipient, subject: msg.subject, text: msg.body }),
  });
  if (!res.ok) throw new ApiError("delivery_failed", 503);
}

/** The dev outbox of one recipient, newest first (at most 50). Accounts are stored lower-cased; captcha ids are case-sensitive tokens. */
export async function devOutboxFor(db: D1Database, to: string) {
  const { results } = await db.prepare("SELECT * FROM dev_outbox WHERE recipient = ? ORDER BY id DESC LIMIT 50")
    .bind(to.includes("@") ? to.toLowerCase() : to)
    .all();
  return results;
}
