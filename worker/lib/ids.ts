/**
 * Time-ordered record ids: (ms since 2026) × 4096 + 12 random bits, safe integers for about 69
 * years. Parallel requests draw their own, so none waits for a shared "next id"; two requests in
 * one millisecond (workerd's clock stands still between I/O) can still draw the same one, and the
 * write that meets a taken id changes nothing (a D1 batch fails whole on the primary key or the
 * movement key; an account object answers "exists" for a hold it has), so it draws again.
 */
import { randomInt } from "./crypto.ts";
import { ApiError } from "./errors.ts";

const ID_EPOCH = Date.UTC(2026, 0, 1);
/** Draws before a write gives up on ids that are taken (five in a row: about 1 in 10¹⁸ at 4096 requests a millisecond). */
const ID_ATTEMPTS = 5;

/**
 * A new time-ordered id for `now`. `span` consecutive ids from it stay inside the millisecond
 * (a batch of rows numbered from one draw).
 */
export function timeOrderedId(now = Date.now(), span = 1): number {
  return (now - ID_EPOCH) * 4096 + randomInt(4097 - span);
}

/** Thrown inside a `withNewId` write that found its id taken (changing nothing): the id is drawn again. */
export class IdTaken extends Error {
  constructor() {
    super("id taken");
  }
}

/** The D1 failures of a batch that met a taken id: the movement key (which carries the id) or a `tables`' primary key. */
export const takenIn = (...tables: string[]): RegExp => new RegExp(`UNIQUE constraint failed: (movements\\.key|(${tables.join("|")})\\.id)\\b`);

/**
 * Runs `write(id)` under a new id, drawing again when it failed on a taken id (IdTaken, or a
 * failure `taken` names; such a write must have changed nothing). After ID_ATTEMPTS taken draws
 * the request answers try_again (503); any other failure is thrown as it came. The usual path is
 * one draw and one write: nothing is read or checked before it.
 */
export async function withNewId<T>(taken: RegExp | null, write: (id: number) => Promise<T>, now = Date.now()): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(timeOrderedId(now));
    } catch (err) {
      if (!(err instanceof IdTaken) && !taken?.test(String((err as Error)?.message ?? err))) throw err;
      if (attempt >= ID_ATTEMPTS) throw new ApiError("try_again", 503);
    }
  }
}

/** Writes the batch `build(id)` under a new id (see withNewId); returns the id. */
export function batchWithNewId(db: D1Database, taken: RegExp, build: (id: number) => D1PreparedStatement[], now = Date.now()): Promise<number> {
  return withNewId(
    taken,
    async (id) => {
      await db.batch(build(id));
      return id;
    },
    now,
  );
}
