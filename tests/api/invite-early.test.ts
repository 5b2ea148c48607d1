/**
 * Settling today without waiting for midnight (issue #18's acceptance: "a documented way to run the
 * job for a given day"): an operator closes today early through the console; the inviter is paid
 * 20 % of the fees paid so far, once; the fees paid after the cut are counted in tomorrow's run, which
 * starts where today's stopped, so nothing is counted twice and nothing is lost.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { runScheduled } from "../../worker/scheduled.ts";
import { addDays, beijingDay, dayEnd } from "../../worker/domain/invite/days.ts";
import { api, balance, makeUser, seedSpotPair, units, type TestUser } from "./helpers.ts";
import { USDT, clearBook } from "./spot-fixtures.ts";
import { expectBooksBalanced, makeOperator } from "./wallet-fixtures.ts";
import { buyAt30000, codeOf, marketAt30000, feesUsdt, registerWith, sellAt30000, share, verify } from "./invite-fixtures.ts";

let op: TestUser;
let inviter: TestUser;
let invitee: TestUser;
let today: string;

beforeAll(async () => {
  await seedSpotPair();
  await clearBook();
  await marketAt30000();
  op = await makeOperator();
  inviter = await makeUser({ verified: 0 });
  await verify(op, inviter, "EARLY-INVITER-0001");
  invitee = await registerWith(await codeOf(inviter));
  await verify(op, invitee, "EARLY-INVITEE-0001");
  today = beijingDay(Date.now());
}, 120_000);

describe("closing today early", () => {
  let before: bigint;

  it("pays the inviter 20 % of the fees paid so far today, once, audited", async () => {
    await buyAt30000(invitee, "0.1");
    before = await feesUsdt(invitee.id);
    expect(before).toBeGreaterThan(0n);

    const r = await api("/admin/invite/run", { token: op.token, body: { day: today, reason: "acceptance: settle today" } });
    expect(r.body.message).toMatchObject({ day: today, status: "done", inviters_paid: 1 });
    expect(units(r.body.message.total_paid_usdt)).toBe(share(before, 2000n));
    expect(await balance(inviter.id, USDT, "lever")).toEqual([share(before, 2000n), 0n]);
    const lines = (await api("/invite/rebates", { token: inviter.token })).body.message.data;
    expect(lines).toEqual([expect.objectContaining({ day: today, level: 1, product: "spot", rate: "0.20", paid_to: "lever" })]);
    expect(units(lines[0].amount)).toBe(share(before, 2000n));

    const again = await api("/admin/invite/run", { token: op.token, body: { day: today, reason: "again" } });
    expect(units(again.body.message.total_paid_usdt)).toBe(share(before, 2000n));
    expect(await balance(inviter.id, USDT, "lever")).toEqual([share(before, 2000n), 0n]);
    const audit = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'invite.run' AND target_id = ?").bind(today).first<{ n: number }>();
    expect(audit!.n).toBe(2);
  });

  it("counts the fees paid after the cut in tomorrow's run, neither twice nor lost", async () => {
    await sellAt30000(invitee, "0.05");
    const after = (await feesUsdt(invitee.id)) - before;
    expect(after).toBeGreaterThan(0n);

    // The next morning's cron finds today already settled: nothing more.
    await runScheduled("0 0 * * *", env, dayEnd(today) + 8 * 3_600_000);
    expect(await balance(inviter.id, USDT, "lever")).toEqual([share(before, 2000n), 0n]);

    // The morning after, tomorrow's run starts at today's cut and pays the later fees.
    const tomorrow = addDays(today, 1);
    await runScheduled("0 0 * * *", env, dayEnd(tomorrow) + 8 * 3_600_000);
    expect(await balance(inviter.id, USDT, "lever")).toEqual([share(before, 2000n) + share(after, 2000n), 0n]);
    const lines = (await api("/invite/rebates", { token: inviter.token })).body.message.data;
    expect(lines.map((l: { day: string; amount: string }) => [l.day, units(l.amount)])).toEqual(
      expect.arrayContaining([
        [today, share(before, 2000n)],
        [tomorrow, share(after, 2000n)],
      ]),
    );
    await expectBooksBalanced();
  });

  it("refuses a day that has not begun, changing nothing", async () => {
    const r = await api("/admin/invite/run", { lang: "es", token: op.token, body: { day: addDays(today, 2), reason: "too soon" } });
    expect(r.body).toMatchObject({ type: "error", code: "invite_day_not_past", message: "Solo se puede liquidar hoy o un día de Pekín ya pasado" });
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM invite_runs WHERE day = ?").bind(addDays(today, 2)).first()).toEqual({ n: 0 });
  });
});
