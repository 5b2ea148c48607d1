/**
 * The race seen on a fresh clone (docs/architecture/account-objects.md, "A fresh clone walked in
 * objects mode", defect 3), on the real path in both modes: the invitee's sale is answered by the
 * pair object at once, but its `spot_trades` row reaches D1 only with the pair's drain, here held
 * back while D1 refuses it. Its day is settled meanwhile, closed early by an operator or by the
 * morning cron the moment the day ended; the row then lands timed before that run's cut. Rebates
 * count fee rows in the order D1 received them (migrations/0055, worker/domain/invite/fee-rows.ts):
 * the next day's run pays the inviter 20 % of that fee, once, however often either day is settled.
 * A day's run is made once, so each way of closing it has its own file (invite-drain-late-ended.test.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { beijingDay } from "../../worker/domain/invite/days.ts";
import { api, type TestUser } from "./helpers.ts";
import { expectBooksBalanced } from "./wallet-fixtures.ts";
import { invitedMarket, paidOnceByNextRun, saleLandingAfter } from "./invite-fixtures.ts";

let op: TestUser;
let inviter: TestUser;
let invitee: TestUser;

beforeAll(async () => {
  ({ op, inviter, invitee } = await invitedMarket("DRAIN-LATE"));
}, 120_000);

describe("a spot fee whose trade row the pair's drain brings after today's early run", () => {
  it("is paid by tomorrow's run exactly once, and settling either day again pays nothing more", async () => {
    const today = beijingDay(Date.now());
    const fee = await saleLandingAfter(invitee, async () => {
      const first = await api("/admin/invite/run", { token: op.token, body: { day: today, reason: "close today early" } });
      expect(first.body.message).toMatchObject({ day: today, status: "done", inviters_paid: 0, fees_counted_usdt: "0.00000000" });
    });
    await paidOnceByNextRun(op, inviter, today, fee);
    await expectBooksBalanced();
  });
});
