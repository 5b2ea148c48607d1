/**
 * Order changes and chat messages reach the other party at once through their own channel
 * (worker/lib/notify.ts; events `c2c_order` and `c2c_message` of schemas/realtime.ts). Called only
 * after the change is committed; a lost notification costs the screen a refresh, never money.
 */
import type { UserEvent } from "../../../schemas/realtime.ts";
import { notifyUser } from "../../lib/notify.ts";

export type C2cEvent = Extract<UserEvent, { type: "c2c_order" | "c2c_message" }>;

/** Tells each user (the parties other than the actor) about an order change or a message. */
export async function notifyUsers(env: Env, userIds: number[], event: C2cEvent): Promise<void> {
  await Promise.all([...new Set(userIds)].map((u) => notifyUser(env, u, event)));
}
