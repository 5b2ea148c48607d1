/**
 * Time-ordered record ids: (ms since 2026) × 4096 + 12 random bits, safe integers for about 69
 * years. Parallel requests draw their own, so none waits for a shared "next id"; two requests in
 * one millisecond (workerd's clock stands still between I/O) can still draw the same one, and the
 * batch that meets a taken id writes nothing (primary key or movement key), so it draws again.
 */
import { randomInt } from "./crypto.ts";

const ID_EPOCH = Date.UTC(2026, 0, 1);
/** Draws before a write gives up on ids that are taken. */
const ID_ATTEMPTS = 5;

/** A new time-ordered id for `now`. */
export function timeOrderedId(now = Date.now()): number {
  return (now - ID_EPOCH) * 4096 + randomInt(4096);
}

/**
 * Writes the batch `build(id)` under a new id, drawing again (up to ID_ATTEMPTS) when the batch
 * failed on a constraint `taken` names; returns the id. Any other failure is thrown as it came.
 */
export async function batchWithNewId(db: D1Database, taken: RegExp, build: (id: number) => D1PreparedStatement[], now = Date.now()): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const id = timeOrderedId(now);
    try {
      await db.batch(build(id));
      return id;
    } catch (err) {
      if (attempt < ID_ATTEMPTS && taken.test(String((err as Error)?.message ?? err))) continue;
      throw err;
    }
  }
}
