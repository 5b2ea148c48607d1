/**
 * Invitation rebates (issue #18), tried as users would: an inviter's code registers new users, they
 * verify their identity through the console and trade spot, and settling the day pays each inviter
 * the published share of the fees their invitees really paid, valued at the day's close, once.
 *
 * The settlement covers every invitee of a Beijing day, so this file settles today once (the
 * scheduled handler at the next 08:00 Beijing) and each test reads one behaviour off that day.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { runScheduled } from "../../worker/scheduled.ts";
import { addDays, beijingDay, dayEnd } from "../../worker/domain/invite/days.ts";
import { api, balance, makeUser, seedSpotPair, solvedCaptcha, statementLines, type TestUser, uniqueEmail, units } from "./helpers.ts";
import { USDT, clearBook } from "./spot-fixtures.ts";
import { expectBooksBalanced, makeOperator } from "./wallet-fixtures.ts";
import { buyAt30000, codeOf, marketAt30000, feesUsdt, registerWith, sellAt30000, share, verify } from "./invite-fixtures.ts";

let op: TestUser;

let inviter: TestUser; // the "demo1" of the acceptance
let l1: TestUser; // inviter's direct invitee
let l2: TestUser; // invited by l1
let l3: TestUser; // invited by l2
let unverified: TestUser; // identity verified at level 1 only (enough to trade)
let old: TestUser;
let twin: TestUser; // verified with the inviter's own document
let today: string;
let settleAt: number;
const fees: Record<string, bigint> = {};

beforeAll(async () => {
  await seedSpotPair();
  await clearBook();
  await marketAt30000();
  op = await makeOperator();
  inviter = await makeUser({ verified: 0 });
  await verify(op, inviter, "INVITER-DOC-0001");
  l1 = await registerWith(await codeOf(inviter));
  l2 = await registerWith(await codeOf(l1));
  l3 = await registerWith(await codeOf(l2));
  unverified = await registerWith(await codeOf(inviter));
  old = await registerWith(await codeOf(inviter));
  twin = await registerWith(await codeOf(inviter));
  await verify(op, l1, "L1-DOC-0001");
  await verify(op, l2, "L2-DOC-0001");
  await verify(op, l3, "L3-DOC-0001");
  await verify(op, unverified, "UNV-DOC-0001", 1);
  await verify(op, old, "OLD-DOC-0001");
  await verify(op, twin, "inviter-doc-0001");
  // Registered 13 months ago (test set-up: the registration time is not editable through the API).
  await env.DB.prepare("UPDATE users SET created_at = ? WHERE id = ?").bind(Date.now() - 400 * 86_400_000, old.id).run();

  await buyAt30000(l1, "0.1");
  await sellAt30000(l1, "0.05");
  await buyAt30000(l2, "0.2");
  await sellAt30000(l3, "0.3");
  await buyAt30000(unverified, "0.1");
  await buyAt30000(old, "0.1");
  await buyAt30000(twin, "0.1");
  for (const [k, u] of Object.entries({ l1, l2, l3, unverified, old, twin })) fees[k] = await feesUsdt(u.id);

  today = beijingDay(Date.now());
  // l2's team paid 150 USDT of fees two days ago (a settled day's line, written here as set-up):
  // agent level 1 (≥ 100 USDT over the 30 days before), +0.5 % on its direct invitees' fees today.
  await env.DB.prepare(
    "INSERT INTO invite_rebates (day, inviter_id, invitee_id, level, product, fee_usdt, rate, agent_rate, amount, paid_to, created_at) VALUES (?, ?, ?, 1, 'spot', ?, 2000, 0, 0, 'lever', ?)",
  )
    .bind(addDays(today, -2), l2.id, l3.id, String(units("150")), Date.now())
    .run();
  // The 00:00 UTC cron of the next morning (08:00 Beijing) settles today.
  settleAt = dayEnd(today) + 8 * 3_600_000;
  await runScheduled("0 0 * * *", env, settleAt);
  // A bound on a hang (many API calls and trades), like the tests' own timeout.
}, 120_000);

describe("settling a day", () => {
  it("pays the inviter exactly 20 % of a direct invitee's fees valued at the close, 5 % at level 2 and 2 % at level 3, into the lever account", async () => {
    expect(fees.l1).toBeGreaterThan(0n);
    const expected = share(fees.l1!, 2000n) + share(fees.l2!, 500n) + share(fees.l3!, 200n);
    expect(await balance(inviter.id, USDT, "lever")).toEqual([expected, 0n]);
    // l1 earns on its own invitees: 20 % of l2, 5 % of l3; l2, an agent of level 1, 20.5 % of l3.
    expect(await balance(l1.id, USDT, "lever")).toEqual([share(fees.l2!, 2000n) + share(fees.l3!, 500n), 0n]);
    expect(await balance(l2.id, USDT, "lever")).toEqual([share(fees.l3!, 2050n), 0n]);
    const run = await env.DB.prepare("SELECT phase, paid_to FROM invite_runs WHERE day = ?").bind(today).first();
    expect(run).toEqual({ phase: "done", paid_to: "lever" });
  });

  it("shows the rebates on the inviter's list with the invitee masked, the fee, the rate and the amount", async () => {
    const r = await api("/invite/rebates", { token: inviter.token });
    expect(r.body.type).toBe("ok");
    const lines = r.body.message.data;
    expect(r.body.message.total).toBe(3);
    const mask = (a: string) => `${a.slice(0, 2)}***${a.slice(a.indexOf("@"))}`;
    expect(lines).toEqual([
      expect.objectContaining({ day: today, level: 1, invitee: mask(l1.account), product: "spot", rate: "0.20", agent_rate: "0", currency: "USDT", paid_to: "lever" }),
      expect.objectContaining({ day: today, level: 2, invitee: mask(l2.account), rate: "0.05" }),
      expect.objectContaining({ day: today, level: 3, invitee: mask(l3.account), rate: "0.02" }),
    ]);
    expect(units(lines[0].fee_usdt)).toBe(fees.l1);
    expect(units(lines[0].amount)).toBe(share(fees.l1!, 2000n));
    const info = (await api("/invite/info", { token: inviter.token })).body.message;
    expect(units(info.earned_usdt)).toBe(share(fees.l1!, 2000n) + share(fees.l2!, 500n) + share(fees.l3!, 200n));
    expect(info.invitees).toEqual({ total: 6, verified: 5, level1: 4, level2: 1, level3: 1 });
  });

  it("pays nothing for an unverified invitee, one registered more than 12 months ago, or one verified with the inviter's own identity", async () => {
    const paidFor = await env.DB.prepare("SELECT DISTINCT invitee_id FROM invite_rebates WHERE inviter_id = ?").bind(inviter.id).all<{ invitee_id: number }>();
    expect(paidFor.results.map((r) => r.invitee_id).sort()).toEqual([l1.id, l2.id, l3.id].sort());
    expect(fees.unverified! > 0n && fees.old! > 0n && fees.twin! > 0n).toBe(true);
    // Level 1 of the inviter: l1, and the three that pay nothing, each with its reason (accounts are masked alike here).
    const team = (await api("/invite/team?level=1", { token: inviter.token })).body.message;
    expect(team.total).toBe(4);
    expect(team.data.map((m: any) => m.status).sort()).toEqual(["eligible", "expired", "same_identity", "unverified"]);
    expect(team.data.find((m: any) => m.status === "unverified")).toMatchObject({ verified: false, fees_usdt: "0.00000000" });
    expect(units(team.data.find((m: any) => m.status === "eligible").fees_usdt)).toBe(fees.l1);
    // Each invitee's verification level and the level rebates need; the fees they paid (valued at
    // the index) beside the part that counts: the level-1 invitee paid fees that count for nothing.
    const lone = team.data.find((m: any) => m.status === "unverified");
    expect(lone).toMatchObject({ kyc_level: 1, kyc_level_needed: 2, fees_counted_usdt: "0.00000000" });
    expect(units(lone.fees_paid_usdt)).toBe(fees.unverified);
    expect(fees.unverified).toBeGreaterThan(0n);
    expect(team.data.find((m: any) => m.status === "eligible")).toMatchObject({ kyc_level: 2, verified: true, fees_paid_usdt: team.data.find((m: any) => m.status === "eligible").fees_counted_usdt });
  });

  it("adds an agent level's extra share on direct invitees' fees and shows the level with progress to the next", async () => {
    const lines = (await api("/invite/rebates", { token: l2.token })).body.message.data.filter((b: any) => b.day === today);
    expect(lines).toEqual([expect.objectContaining({ level: 1, rate: "0.205", agent_rate: "0.005", amount: expect.any(String) })]);
    expect(units(lines[0].amount)).toBe(share(fees.l3!, 2050n));
    const info = (await api("/invite/info", { token: l2.token })).body.message;
    expect(info).toMatchObject({ agent_level: 1, agent_rate: "0.005", fees_30d_usdt: "150.00000000", agent_next: { level: 2, threshold_usdt: "1000", fees_30d_usdt: "150.00000000", extra_rate: "0.01" } });
    const plain = (await api("/invite/info", { token: inviter.token })).body.message;
    expect(plain).toMatchObject({ agent_level: 0, agent_rate: "0", agent_next: { level: 1, threshold_usdt: "100" }, months: 12 });
    expect(plain.link).toBe(`http://exchange.test/#/register?code=${plain.code}`);
  });

  it("notifies the inviter in the notification centre, once", async () => {
    const r = await api("/notifications", { token: inviter.token });
    const items = r.body.message.data.filter((n: any) => n.kind === "invite_rebate");
    expect(items).toHaveLength(1);
    expect(items[0].title).toBe("Invitation rebate paid");
    expect(items[0].body).toContain(today);
  });

  it("pays nothing more when the cron fires again, the every-minute job runs or an operator runs the day again", async () => {
    const before = await balance(inviter.id, USDT, "lever");
    const rebates = async () => (await statementLines(inviter.token)).filter((l) => l.kind === "invite_rebate").map((l) => l.id);
    const paid = await rebates();
    expect(paid).toHaveLength(1);
    await runScheduled("0 0 * * *", env, settleAt);
    await runScheduled("* * * * *", env, settleAt + 60_000);
    expect(await balance(inviter.id, USDT, "lever")).toEqual(before);
    expect(await rebates()).toEqual(paid);
    await expectBooksBalanced();
  });

  it("reports the run to operators: inviters paid, total paid, fees counted, invocations and statements", async () => {
    const r = await api("/admin/invite/runs", { token: op.token });
    const run = r.body.message.data.find((x: any) => x.day === today);
    const total = share(fees.l1!, 2000n) + share(fees.l2!, 500n) + share(fees.l3!, 200n) + share(fees.l2!, 2000n) + share(fees.l3!, 500n) + share(fees.l3!, 2050n);
    expect(run).toMatchObject({ status: "done", inviters_paid: 3, invocations: 1 });
    expect(units(run.total_paid_usdt)).toBe(total);
    expect(units(run.fees_counted_usdt)).toBe(fees.l1! + fees.l2! + fees.l3!);
    expect(run.statements).toBeGreaterThan(24);
    expect(run.statements).toBeLessThan(1000);
    expect((await api("/admin/invite/runs", { token: inviter.token })).status).toBe(403);
  });
});

describe("bindings", () => {
  it("never lets an operator's code bind an invitee", async () => {
    const code = (await env.DB.prepare("SELECT extension_code FROM users WHERE id = ?").bind(op.id).first<{ extension_code: string }>())!.extension_code;
    const r = await api("/user/register", { body: { type: 1, user_string: uniqueEmail(), password: "Fresh2026pass", re_password: "Fresh2026pass", ...(await solvedCaptcha()), extension_code: code } });
    expect(r.body.code).toBe("invite_invalid");
  });

  it("keeps a binding for good: the database refuses any change of inviter", async () => {
    await expect(env.DB.prepare("UPDATE users SET parent_id = NULL WHERE id = ?").bind(l1.id).run()).rejects.toThrow(/invite_bound/);
  });
});

describe("the console", () => {
  it("runs a past day on request, audited, and refuses a day not yet begun or a malformed day in the caller's language, changing nothing", async () => {
    const yesterday = beijingDay(Date.now() - 86_400_000);
    const r = await api("/admin/invite/run", { token: op.token, body: { day: yesterday, reason: "catch up" } });
    expect(r.body.message).toMatchObject({ day: yesterday, status: "done" });
    const again = await api("/admin/invite/run", { token: op.token, body: { day: yesterday, reason: "again" } });
    expect(again.body.message).toMatchObject({ day: yesterday, status: "done", total_paid_usdt: r.body.message.total_paid_usdt });
    const audit = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'invite.run' AND target_id = ?").bind(yesterday).first<{ n: number }>();
    expect(audit!.n).toBe(2);
    const runs = await env.DB.prepare("SELECT COUNT(*) AS n FROM invite_runs").first<{ n: number }>();
    const notPast = await api("/admin/invite/run", { token: op.token, body: { day: addDays(beijingDay(Date.now()), 1), reason: "tomorrow" } });
    expect(notPast.body).toMatchObject({ type: "error", code: "invite_day_not_past" });
    const bad = await api("/admin/invite/run", { lang: "zh", token: op.token, body: { day: "2026-02-30", reason: "x" } });
    expect(bad.body).toMatchObject({ type: "error", code: "invalid_day", message: "请按 YYYY-MM-DD 输入日期" });
    expect((await api("/admin/invite/run", { token: op.token, body: { day: yesterday } })).body.code).toBe("reason_required");
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM invite_runs").first<{ n: number }>()).toEqual(runs);
  });

  it("sets the rates from the next Beijing day, audited, and refuses a total above 30 %", async () => {
    const body = {
      level_rates: [{ level: 1, rate: "0.2" }, { level: 2, rate: "0.05" }, { level: 3, rate: "0.02" }],
      agent_levels: [
        { level: 1, threshold_usdt: "100", extra_rate: "0.005" },
        { level: 2, threshold_usdt: "1000", extra_rate: "0.01" },
        { level: 3, threshold_usdt: "10000", extra_rate: "0.015" },
        { level: 4, threshold_usdt: "50000", extra_rate: "0.02" },
        { level: 5, threshold_usdt: "200000", extra_rate: "0.04" },
      ],
      reason: "published terms",
    };
    const tooHigh = await api("/admin/invite/settings", { token: op.token, body });
    expect(tooHigh.body).toMatchObject({ type: "error", code: "invite_rates_too_high", message: "The level rates plus the highest agent share may add up to at most 0.30" });
    const unordered = await api("/admin/invite/settings", { token: op.token, body: { ...body, agent_levels: [...body.agent_levels].reverse().map((a, i) => ({ ...a, level: i + 1 })) } });
    expect(unordered.body.code).toBe("invite_levels_order");
    const badRate = await api("/admin/invite/settings", { lang: "jp", token: op.token, body: { ...body, level_rates: [{ level: 1, rate: "20%" }, ...body.level_rates.slice(1)] } });
    expect(badRate.body.code).toBe("invalid_rate");
    expect((await api("/admin/invite/settings", { token: op.token })).body.message.next).toBeNull();

    body.agent_levels[4]!.extra_rate = "0.03";
    body.level_rates[0]!.rate = "0.18";
    const r = await api("/admin/invite/settings", { token: op.token, body });
    expect(r.body.message.current.level_rates[0]).toEqual({ level: 1, rate: "0.20" });
    expect(r.body.message.next).toMatchObject({ level_rates: [{ level: 1, rate: "0.18" }, { level: 2, rate: "0.05" }, { level: 3, rate: "0.02" }] });
    expect(r.body.message.next.effective_from > beijingDay(Date.now())).toBe(true);
    const terms = (await api("/invite/terms")).body.message;
    expect(terms).toMatchObject({ level_rates: [{ level: 1, rate: "0.20" }, { level: 2, rate: "0.05" }, { level: 3, rate: "0.02" }], months: 12, max_total_rate: "0.30" });
    expect(terms.products).toEqual(expect.arrayContaining(["spot", "seconds", "lever", "conversion"]));
    expect(terms.next.level_rates[0]).toEqual({ level: 1, rate: "0.18" });
    const audit = await env.DB.prepare("SELECT operator_id, reason FROM audit_log WHERE action = 'invite.settings'").all();
    expect(audit.results).toEqual([{ operator_id: op.id, reason: "published terms" }]);
    expect((await api("/admin/invite/settings", { token: inviter.token, body })).status).toBe(403);
  });
});

describe("bad input", () => {
  it("answers a bad page or level with a translated error on every list", async () => {
    const cases: [string, string, string][] = [
      ["/invite/team?page=0", "invalid_param", "Parámetro no válido"],
      ["/invite/team?level=4", "invalid_field", "Valor no válido: level"],
      ["/invite/rebates?page=x", "invalid_param", "Parámetro no válido"],
      ["/admin/invite/runs?limit=500", "invalid_param", "Parámetro no válido"],
    ];
    for (const [path, code, message] of cases) {
      const r = await api(path, { lang: "es", token: path.includes("admin") ? op.token : inviter.token });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: "error", code, message });
    }
    expect((await api("/invite/info")).body.type).toBe("999");
  });
});
