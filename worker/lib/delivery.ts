/**
 * One interface for every message a user receives (e-mail and SMS codes). Locally, with
 * DEV_OUTBOX=on, messages land in the dev_outbox table (GET /api/dev/outbox). Deployed, they are
 * POSTed as JSON to DELIVERY_WEBHOOK (a mail/SMS provider or a relay of the operator's choice).
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

/** Sends a message through the configured channel; throws delivery_failed when it cannot. */
export async function deliver(env: Env, msg: Message): Promise<void> {
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
