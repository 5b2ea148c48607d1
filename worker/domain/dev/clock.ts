/**
 * The dev clock's moves (worker/lib/clock.ts has the design): an advance is kept in D1, installed
 * in this isolate, and handed to every pair object, which re-arms its alarm for what is now due.
 */
import { advanceDevClock, devClockState } from "../../lib/clock.ts";
import { allPairs, pairStub } from "../spot/pairs.ts";

export async function advanceClock(env: Env, seconds: number): Promise<ReturnType<typeof devClockState>> {
  const offset = await advanceDevClock(env.DB, seconds);
  // Every pair object learns the offset (one in another isolate too) and re-arms its alarm.
  await Promise.all((await allPairs(env.DB)).map((p) => pairStub(env, p.id).devClockMoved(offset)));
  return devClockState();
}

