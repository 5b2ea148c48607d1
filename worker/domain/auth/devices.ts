/**
 * Logins from a new device or address (issue #16 §1; migrations/0019_login_devices.sql).
 *
 * Every successful login (registration included: it signs the new account in) records the pair
 * (device, address) it came from, where the device is a short readable description of the browser
 * and system from the User-Agent. The login's ONE D1 batch creates the session, then inserts the
 * owner's `login_new_device` notification (keyed `login:{sessionId}`) only when the account has a
 * recorded login and none from this pair, then records the pair. So the very first login is not
 * "new" (nothing to compare with), a pair seen before is not new, and a failed batch leaves neither
 * a session nor a notification.
 */
import { sessionStatements } from "../../lib/auth.ts";
import { formatShanghai } from "../../lib/time.ts";
import { announceNotifications } from "../notifications/inbox.ts";
import { NOTIFICATION_LINKS } from "../notifications/events.ts";

const DEVICE_MAX = 80;
const UNKNOWN_DEVICE = "Unknown device";
const IP_MAX = 64;

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bMicroMessenger\//, "WeChat"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrome\/|\bCriOS\/|\bChromium\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
];

const SYSTEMS: [RegExp, string][] = [
  [/\biPad\b/, "iPadOS"],
  [/\biPhone\b|\biPod\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bWindows\b/, "Windows"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bMacintosh\b|\bMac OS X\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** The browser and the system of a User-Agent, each when recognised (the sessions list shows them apart). */
export function browserAndSystem(userAgent: string | null | undefined): { browser: string | undefined; system: string | undefined } {
  const ua = (userAgent ?? "").slice(0, 1000);
  return { browser: BROWSERS.find(([re]) => re.test(ua))?.[1], system: SYSTEMS.find(([re]) => re.test(ua))?.[1] };
}

/**
 * A short readable description of the browser and system of a User-Agent ("Chrome (Windows)",
 * "Safari (iOS)"), without versions so an update is not a new device; a client that is no browser
 * reads as its product name ("curl"), none as "Unknown device".
 */
export function describeDevice(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? "").slice(0, 1000);
  const { browser, system } = browserAndSystem(ua);
  if (browser && system) return `${browser} (${system})`;
  if (browser || system) return (browser ?? system)!;
  const product = /^\s*([A-Za-z][A-Za-z0-9._-]{0,39})/.exec(ua)?.[1];
  return product ?? UNKNOWN_DEVICE;
}

/**
 * The statements that follow a new session in its login's batch: the notification when the pair is
 * new to an account that signed in before, then the pair recorded (or its last_seen moved).
 */
function loginDeviceStatements(db: D1Database, l: { userId: number; tokenHash: string; device: string; ip: string; now: number }): D1PreparedStatement[] {
  const params = JSON.stringify({ device: l.device, ip: l.ip, time: formatShanghai(l.now) });
  return [
    db
      .prepare(
        `INSERT INTO notifications (user_id, event_key, kind, params, link, created_at)
         SELECT ?1, 'login:' || s.id, 'login_new_device', ?2, ?3, ?4 FROM sessions s
         WHERE s.token_hash = ?5
           AND EXISTS (SELECT 1 FROM login_devices WHERE user_id = ?1)
           AND NOT EXISTS (SELECT 1 FROM login_devices WHERE user_id = ?1 AND device = ?6 AND ip = ?7)
         ON CONFLICT (user_id, event_key) DO NOTHING`,
      )
      .bind(l.userId, params, NOTIFICATION_LINKS.security, l.now, l.tokenHash, l.device, l.ip),
    db
      .prepare(
        `INSERT INTO login_devices (user_id, device, ip, first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?4)
         ON CONFLICT (user_id, device, ip) DO UPDATE SET last_seen = excluded.last_seen`,
      )
      .bind(l.userId, l.device, l.ip, l.now),
  ];
}

/** Records a sign-in (`ok`) or a failed attempt at an existing account: GET /api/security/logins lists them for 90 days. */
export function loginEventStatement(db: D1Database, e: { userId: number; ok: boolean; ip: string; device: string; place: string | null; now: number }): D1PreparedStatement {
  return db
    .prepare("INSERT INTO login_events (user_id, at, ok, ip, device, place) VALUES (?, ?, ?, ?, ?, ?)")
    .bind(e.userId, e.now, e.ok ? 1 : 0, (e.ip || "unknown").slice(0, IP_MAX), e.device.slice(0, DEVICE_MAX), e.place);
}

/** Records a failed password attempt at an existing account (the login's refusal does not wait for it to matter). */
export async function recordFailedLogin(db: D1Database, userId: number, ip: string, userAgent: string | null | undefined, place: string | null, now = Date.now()): Promise<void> {
  await loginEventStatement(db, { userId, ok: false, ip, device: describeDevice(userAgent), place, now }).run();
}

/**
 * Signs a user in from `ip` with `userAgent`: the session, the new-device notification (when it is
 * one) and the device record in one batch; the user's open tabs hear of a notification after it.
 * Returns the session token.
 */
export async function signIn(env: Pick<Env, "DB" | "USER">, userId: number, ip: string, userAgent: string | null | undefined, now = Date.now(), place: string | null = null): Promise<string> {
  const db = env.DB;
  const { browser, system } = browserAndSystem(userAgent);
  const device = describeDevice(userAgent).slice(0, DEVICE_MAX);
  // A client that is no browser (a script, curl) is listed by its product name.
  const client = browser ?? (system || device === UNKNOWN_DEVICE ? null : device);
  const session = await sessionStatements(db, userId, ip, now, { browser: client, system: system ?? null, place });
  const address = (ip || "unknown").slice(0, IP_MAX);
  const results = await db.batch([
    ...session.statements,
    ...loginDeviceStatements(db, { userId, tokenHash: session.tokenHash, device, ip: address, now }),
    loginEventStatement(db, { userId, ok: true, ip: address, device, place, now }),
  ]);
  const notified = (results[session.statements.length]?.meta.changes ?? 0) > 0;
  if (notified) await announceNotifications(env, [userId]);
  return session.token;
}
