/**
 * Private events to one user (DESIGN §2, §5): `notifyUser` pushes through the user's own Durable
 * Object (durable/user.ts), which delivers only to that user's open sockets whose session is still
 * live. The event kinds are `userEventSchema` in schemas/realtime.ts.
 *
 * Best effort by design: a notification tells an open screen to refresh, it is never the record.
 * The record is D1 (what the API answers), so call this only after the change it announces is
 * committed there, and a lost notification costs a refresh, never money. It never throws: a
 * failure is logged and the caller's money path carries on.
 */
import type { UserEvent } from "../../schemas/realtime.ts";

/** The user's channel object (one per user). */
export function userStub(env: Pick<Env, "USER">, userId: number) {
  return env.USER.get(env.USER.idFromName(`user:${userId}`));
}

/**
 * Sends one event, or several in order, to a user's open sockets. Resolves once they were handed
 * to the sockets (or dropped because the user has none open); never rejects.
 */
export async function notifyUser(env: Pick<Env, "USER">, userId: number, event: UserEvent | UserEvent[]): Promise<void> {
  if (Array.isArray(event) && event.length === 0) return;
  try {
    await userStub(env, userId).push(event);
  } catch (err) {
    const types = (Array.isArray(event) ? event : [event]).map((e) => e.type);
    console.error(JSON.stringify({ level: "warn", msg: "notifyUser failed", userId, types, error: String(err) }));
  }
}
