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
import { objectId } from "./object-ids.ts";

/** The user's channel object (one per user). */
export function userStub(env: Pick<Env, "USER">, userId: number) {
  return env.USER.get(objectId(env.USER, `user:${userId}`));
}

type UserStub = ReturnType<typeof userStub>;

function logFailure(userId: number, event: UserEvent | UserEvent[], err: unknown) {
  const types = (Array.isArray(event) ? event : [event]).map((e) => e.type);
  console.error(JSON.stringify({ level: "warn", msg: "notifyUser failed", userId, types, error: String(err) }));
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
    logFailure(userId, event, err);
  }
}

/**
 * `notifyUser` for a long-lived sender that must not wait for each push (a pair object's drain):
 * it keeps one stub per user, because calls made through one stub reach the object in the order
 * they were made (there is no order across stubs), so a user's events stay in order without the
 * sender awaiting them. A stub that failed is replaced (a broken stub fails every later call).
 * `liveSessions`: the user's live session ids as D1 showed them in the transaction that committed
 * what the events announce (the pair's drain reads them in its own batch), so the channel needs no
 * D1 read of its own for those sessions (durable/user.ts). The returned promise never rejects.
 */
export function userNotifier(env: Pick<Env, "USER">, maxStubs = 10_000) {
  const stubs = new Map<number, UserStub>();
  return (userId: number, events: UserEvent[], liveSessions?: number[]): Promise<void> => {
    if (events.length === 0) return Promise.resolve();
    let stub = stubs.get(userId);
    if (!stub) {
      stub = userStub(env, userId);
      stubs.set(userId, stub);
      // Forget the oldest (insertion order): only order within a burst matters, and a new stub still works.
      if (stubs.size > maxStubs) stubs.delete(stubs.keys().next().value!);
    }
    const used = stub;
    let sent: Promise<unknown>;
    try {
      sent = liveSessions ? used.push(events, liveSessions) : used.push(events);
    } catch (err) {
      sent = Promise.reject(err);
    }
    return sent.then(
      () => undefined,
      (err: unknown) => {
        if (stubs.get(userId) === used) stubs.delete(userId);
        logFailure(userId, events, err);
      },
    );
  };
}
