import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Scheduler } from "../../durable/pair/scheduler.ts";
import { PairStorage } from "../../durable/pair/storage.ts";

let n = 0;
/** A fresh object (never told its pair, so its own scheduler stays idle): each test owns its storage. */
const freshObject = () => env.PAIR.get(env.PAIR.idFromName(`scheduler-test:${Date.now()}:${++n}`));

/** Contracts that expire at given times; settling one is recorded once, however often the handler runs. */
function expiryDesk(expiries: number[]) {
  const settled: number[] = [];
  const handler = async (now: number) => {
    expiries.forEach((at, id) => {
      if (at <= now && !settled.includes(id)) settled.push(id);
    });
  };
  return { settled, handler };
}

describe("the pair's scheduler", () => {
  it("keeps an earlier expiry when a drain is scheduled later, and the alarm is always the earliest due time", async () => {
    await runInDurableObject(freshObject(), async (_obj, state) => {
      const s = new Scheduler(new PairStorage(state.storage));
      const t0 = Date.now() + 3600_000; // far ahead: the runtime never fires it during the test
      s.at("expiry", t0 + 1000);
      s.at("drain", t0 + 5000);
      expect(await state.storage.getAlarm()).toBe(t0 + 1000);
      // A drain registered after many commands must not push the expiry back.
      for (let i = 0; i < 5; i++) s.at("drain", t0 + 6000 + i);
      expect(await state.storage.getAlarm()).toBe(t0 + 1000);
      expect(s.dues()).toEqual({ expiry: t0 + 1000, drain: t0 + 5000 });
      // An earlier drain moves the alarm forward.
      s.at("drain", t0 + 10);
      expect(await state.storage.getAlarm()).toBe(t0 + 10);
    });
  });

  it("runs every kind that is due in one alarm, leaves the rest armed, and applies nothing twice when the alarm fires again", async () => {
    await runInDurableObject(freshObject(), async (_obj, state) => {
      const s = new Scheduler(new PairStorage(state.storage));
      const t0 = Date.now() + 3600_000;
      const drains: number[] = [];
      const desk = expiryDesk([t0 + 100, t0 + 2000]);
      s.handle("drain", async (now) => void drains.push(now));
      s.handle("expiry", desk.handler);
      s.at("drain", t0 + 50);
      s.at("expiry", t0 + 100);
      expect(await s.run(t0 + 20)).toEqual([]);
      expect(await s.run(t0 + 100)).toEqual(["drain", "expiry"]);
      expect(desk.settled).toEqual([0]);
      // The desk registers its next expiry; a later drain does not hide it.
      s.at("expiry", t0 + 2000);
      s.at("drain", t0 + 3000);
      expect(await state.storage.getAlarm()).toBe(t0 + 2000);
      // The runtime fires the same alarm twice (at-least-once).
      expect(await s.run(t0 + 2000)).toEqual(["expiry"]);
      expect(await s.run(t0 + 2000)).toEqual([]);
      expect(desk.settled).toEqual([0, 1]);
      expect(drains).toHaveLength(1);
      expect(await state.storage.getAlarm()).toBe(t0 + 3000);
    });
  });

  it("keeps work registered while its kind is running, so it runs again", async () => {
    await runInDurableObject(freshObject(), async (_obj, state) => {
      const s = new Scheduler(new PairStorage(state.storage));
      const t0 = Date.now() + 3600_000;
      let runs = 0;
      s.handle("drain", async (now) => {
        runs++;
        // A command commits while the drain waits for D1 and registers its own drain.
        if (runs === 1) s.at("drain", now);
      });
      s.at("drain", t0);
      await s.run(t0);
      expect(s.dues().drain).toBe(t0);
      // Just after the time that fired (an alarm left at that time is dropped by the runtime).
      expect(await state.storage.getAlarm()).toBe(t0 + 1);
      await s.run(t0);
      expect(runs).toBe(2);
      expect(s.dues()).toEqual({});
      expect(await state.storage.getAlarm()).toBeNull();
    });
  });

  it("arms the alarm after the time that fired when a run leaves work due at once, so the runtime does not drop it", async () => {
    await runInDurableObject(freshObject(), async (_obj, state) => {
      const s = new Scheduler(new PairStorage(state.storage));
      const t0 = Date.now() + 3600_000;
      // An expiry run that settles something registers a drain due at the very time it runs.
      s.handle("expiry", async (now) => {
        s.at("drain", now);
        return now + 60_000;
      });
      s.handle("drain", async () => {});
      s.at("expiry", t0);
      await s.run(t0);
      expect(s.dues().drain).toBe(t0);
      expect(await state.storage.getAlarm()).toBe(t0 + 1);
    });
  });
});
