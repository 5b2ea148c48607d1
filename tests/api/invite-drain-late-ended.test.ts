/**
 * As invite-drain-late.test.ts, for a day settled by the morning cron the moment it ended: the
 * sale's `spot_trades` row, held back with the pair's drain, lands after that run, timed before the
 * day's end; the next day's run pays the inviter 20 % of its fee, once.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { runScheduled } from "../../worker/scheduled.ts";
import { beijingDay, dayEnd } from "../../worker/domain/invite/days.ts";
import type { TestUser } from "./helpers.ts";
import { expectBooksBalanced } from "./wallet-fixtures.ts";
import { invitedMarket, paidOnceByNextRun, saleLandingAfter } from "./invite-fixtures.ts";

let op: TestUser;
let inviter: TestUser;
let invitee: TestUser;

beforeAll(async () => {
  ({ op, inviter, invitee } = await invitedMarket("DRAIN-LATE-ENDED"));
}, 120_000);

describe("a spot fee whose trade row the pair's drain brings after its day's run, made as the day ended", () => {
  it("is paid by the next day's run exactly once", async () => {
    const day = beijingDay(Date.now());
    const fee = await saleLandingAfter(invitee, async () => {
      await runScheduled("0 0 * * *", env, dayEnd(day) + 1000);
      const run = await env.DB.prepare("SELECT phase, window_to, fees_counted, inviters_paid FROM invite_runs WHERE day = ?").bind(day).first();
      expect(run).toEqual({ phase: "done", window_to: dayEnd(day), fees_counted: 0, inviters_paid: 0 });
    });
    await paidOnceByNextRun(op, inviter, day, fee);
    await expectBooksBalanced();
  });
});
