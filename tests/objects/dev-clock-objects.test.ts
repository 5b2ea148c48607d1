/**
 * The account objects under the dev clock (npm start, DEV_CLOCK=on; worker/lib/clock.ts), found by
 * the crash run in objects mode (bench/crash-products.mjs --accounts objects): once the clock had
 * moved ahead, an object's drain alarm was set in dev time, days ahead of real time, so the fee and
 * treasury shards (which only drain on their alarm) never reached D1's read model again. An
 * object's alarms now convert between dev time and real time, as the pair object's do.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { UserDurableObject } from "../../durable/user.ts";
import { advanceDevClock, devClockState, resetDevClock } from "../../worker/lib/clock.ts";
import { SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { USDT } from "./fixtures.ts";

const FEES = SYSTEM_USERS.fees;
const DAY_S = 86_400;

afterAll(() => resetDevClock(env.DB));

describe("an account object under the dev clock", () => {
  it("sets its drain's alarm to fire in real time after the clock moved ten days ahead", async () => {
    await advanceDevClock(env.DB, 10 * DAY_S);
    await runInDurableObject(systemStub(env, FEES, 3), async (_instance, state) => {
      // What the runtime fires by: the storage's own alarm, before any conversion.
      const realAlarm = state.storage.getAlarm.bind(state.storage);
      // The object as `npm start` constructs it (DEV_CLOCK on), on this shard's storage.
      const shard = new UserDurableObject(state, { ...env, DEV_CLOCK: "on" } as Env);
      await state.blockConcurrencyWhile(async () => {});
      const [answer] = await shard.systemApply(FEES, 3, [{ key: "test:fee", ops: [{ t: "credit", account: "change", currencyId: USDT, amount: 5n }] }]);
      expect(answer).toEqual({ key: "test:fee", result: "applied" });
      const at = await realAlarm();
      expect(at).not.toBeNull();
      // Within seconds of real time (the drain's delay), not ten days of dev time ahead.
      expect(at! - devClockState().real_now).toBeLessThan(60_000);
      // The object itself reads its alarm in dev time.
      expect((await state.storage.getAlarm())! - Date.now()).toBeLessThan(60_000);
    });
  });
});
