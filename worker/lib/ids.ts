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
export const ID_ATTEMPTS = 5;

/**
 * A new time-ordered id for `now`. `span` consecutive ids from it stay inside the millisecond
 * (a batch of rows numbered from one draw).
 */
export function timeOrderedId(now = Date.now(), span = 1): number {
  return (now - ID_EPOCH) * 4096 + randomInt(4097 - span);
}

/**
 * Slots of the pairs in a spot order id (objects mode): the id's low 6 bits are the pair's slot.
 * With the balances in the account objects nothing exchange-wide sees a spot order id before its
 * pair does, and a pair catches only its own ids (a hold of the same user answers `exists`, a
 * journal entry of another user `ID_TAKEN`): two pairs drawing one id would both book it, and D1's
 * read model (`spot_orders`, primary key `id`) keeps one row for the two. So a pair draws only ids
 * of its slot, `pairId mod 64`: two pairs never draw the same id as long as their ids differ mod
 * 64, which holds for any 64 consecutive pair ids (the seeded pairs are 1, 2, 5, 6, 10 and 11).
 * Pairs whose ids agree mod 64 (a 65th pair, or ids 64 apart) share a slot, and their orders can
 * coincide again as before this slot (by the birthday bound, now among 64 values a millisecond).
 */
export const PAIR_SLOTS = 64;

/**
 * A new spot order id of pair `pairId` for `now` (objects mode): (ms since 2026) × 4096 + r × 64 +
 * (pairId mod 64), r random in [0, 64): 64 values a millisecond per pair, unique across pairs (see
 * PAIR_SLOTS). A batch numbers its orders `id + k × BATCH_STEP`, one millisecond's values apart
 * (the same slot and random part in the next milliseconds): two batches of one pair drawn in the same
 * millisecond clash only when they drew the same r (1 in 64), where consecutive values of the slot
 * would overlap for nearly any two batches of 20 (39 in 64). A clash is with the same pair, which
 * the pair catches (ID_TAKEN), and ids running up to a batch's length of milliseconds ahead keep
 * their order closely enough for a time-ordered id.
 * Conditional orders draw theirs the same way: their OCO leg and their child (CHILD_ID_BASE + id,
 * CHILD_ID_BASE a multiple of 64) are spot orders under them. `random(n)` is the draw in [0, n)
 * (randomInt; a test passes its own).
 */
/** What separates the ids of a batch's orders (see spotOrderId): one millisecond's values. */
export const BATCH_STEP = 4096;

export function spotOrderId(pairId: number, now = Date.now(), random: (n: number) => number = randomInt): number {
  return (now - ID_EPOCH) * 4096 + random(PAIR_SLOTS) * PAIR_SLOTS + (pairId % PAIR_SLOTS);
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
 * failure `taken` names; such a write must have changed nothing), by `draw` (timeOrderedId unless
 * the record's ids are drawn another way, e.g. spotOrderId). After ID_ATTEMPTS taken draws
 * the request answers try_again (503); any other failure is thrown as it came. The usual path is
 * one draw and one write: nothing is read or checked before it.
 */
export async function withNewId<T>(taken: RegExp | null, write: (id: number) => Promise<T>, now = Date.now(), draw: (now: number) => number = timeOrderedId): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(draw(now));
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
