/**
 * Pushes of session changes to the user's account object (objects mode only; durable/account/sessions.ts).
 * Every writer of `sessions.revoked_at`, `users.locked`, `users.review_status` or `users.role` writes
 * through `changingSessions`: the object is told before D1 is written (if it cannot be told, the
 * request fails and D1 is not written) and again after, before the request answers. On D1's path
 * (the switch off) it only runs the write.
 */
import { PUSH_WRITE_DEADLINE_MS } from "../../durable/account/sessions.ts";
import { accountsOnObjects, accountStub } from "./accounts.ts";
import { ApiError } from "./errors.ts";

type PushEnv = Pick<Env, "USER"> & { ACCOUNTS?: string };

/** Runs `write` (the D1 change of this user's sessions or flags) between the two pushes. */
export async function changingSessions<T>(env: PushEnv, userId: number, write: () => Promise<T>): Promise<T> {
  if (!accountsOnObjects(env)) return write();
  const account = accountStub(env, userId);
  const mark = crypto.randomUUID();
  const opened = Date.now();
  try {
    await account.accountSessionsChanging(userId, mark);
  } catch (err) {
    console.error(JSON.stringify({ level: "error", event: "session_push_failed", userId, reason: String(err).slice(0, 300) }));
    throw new ApiError("try_again", 503);
  }
  try {
    // The object drops a change left open after OPEN_CHANGE_MS: a write this late is not made.
    if (Date.now() - opened > PUSH_WRITE_DEADLINE_MS) throw new ApiError("try_again", 503);
    return await write();
  } finally {
    // A close that fails leaves the object asking D1 on every check until the change expires: never trusting.
    await account.accountSessionsChanged(userId, mark).catch((err: unknown) => console.error(JSON.stringify({ level: "warn", event: "session_push_close_failed", userId, reason: String(err).slice(0, 300) })));
  }
}

