/**
 * The cut-over of a deployed exchange through the operators' routes (POST /api/admin/accounts/…,
 * worker/domain/ledger/account-cutover.ts), on a Worker with ACCOUNTS=objects held at 503 by the
 * cut-over guard: D1 holds balances no object was opened with. Only an operator may run the steps,
 * only inside a settled maintenance window; each is audited with the operator's reason; the
 * cut-over's record is refused until every user and system account was compared equal in the
 * window, and again when a balance differs; after it (and the window's end) the money routes work
 * on objects that hold exactly D1's balances.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { forgetCaches } from "../../worker/lib/caches.ts";
import { CUT_OVER_KEY, MAINTENANCE_KEY, readMaintenance } from "../../worker/lib/maintenance.ts";
import { migrationStep } from "../../worker/domain/ledger/account-cutover.ts";
import { api, credit, makeUser, seedSpotPair, units } from "../api/helpers.ts";
import { makeOperator } from "../api/wallet-fixtures.ts";
import { BTC, USDT, objectBalances } from "./fixtures.ts";

const buy = (token: string) => api("/transaction/walletIn", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "99", num: "0.1" } });
const reason = "cut-over of the deployed exchange";

/** One step as the operator (or anyone) sends it. */
const step = (token: string, what: string, body: Record<string, unknown> = {}, lang?: string) => api(`/admin/accounts/${what}`, { token, body: { reason, ...body }, ...(lang ? { lang } : {}) });

async function window(token: string, on: boolean) {
  const r = await api("/admin/maintenance", { token, body: { on, reason: on ? "account cut-over" : "cut over" } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
}

/** The window as if it had started long enough ago for every isolate to see it (the state the script waits for). */
async function windowSettled() {
  await env.DB.prepare("UPDATE settings SET value = ?1 WHERE key = ?2").bind(String(Date.now() - 60_000), MAINTENANCE_KEY).run();
  forgetCaches();
}

/** Steps until done, as scripts/migrate-accounts.mjs runs them. */
async function openEveryone(token: string) {
  for (let i = 0; i < 20; i++) {
    const r = await step(token, "migrate", { limit: 2 });
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    expect(r.body.message.failed).toEqual([]);
    if (r.body.message.done) return;
  }
  throw new Error("the opening never ended");
}

async function verifyEveryone(token: string): Promise<{ user_id: number; where: string }[]> {
  const bad: { user_id: number; where: string }[] = [];
  for (let after = 0, i = 0; i < 20; i++) {
    const r = await step(token, "verify", { after, limit: 2 });
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    bad.push(...r.body.message.mismatched);
    if (r.body.message.done) return bad;
    after = r.body.message.next;
  }
  throw new Error("the verification never ended");
}

const d1Rows = async (userId: number) =>
  (
    await env.DB.prepare("SELECT account, currency_id, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM balances WHERE user_id = ? AND (available <> 0 OR frozen <> 0) ORDER BY account, currency_id")
      .bind(userId)
      .all<{ account: string; currency_id: number; a: string; f: string }>()
  ).results.map((r) => [r.account, r.currency_id, BigInt(r.a), BigInt(r.f)]);

describe("the cut-over through the operators' routes (a deployed exchange)", () => {
  it("copies, verifies and records only for an operator in a settled window, refuses while a balance differs, and then the exchange trades on D1's balances", async () => {
    await seedSpotPair();
    await env.DB.prepare("DELETE FROM settings WHERE key = ?").bind(CUT_OVER_KEY).run();
    forgetCaches();
    // The exchange as it ran on D1: two users' money and the operator's own, in D1 only.
    const alice = await makeUser({ verified: 2 });
    const bob = await makeUser({ verified: 2 });
    const op = await makeOperator();
    await credit(`cut-admin:a:${alice.id}`, alice.id, USDT, units("1000"), "change", { d1: true });
    await credit(`cut-admin:b:${bob.id}`, bob.id, BTC, units("0.5"), "change", { d1: true });
    await credit(`cut-admin:b2:${bob.id}`, bob.id, USDT, units("7"), "micro", { d1: true });
    await credit(`cut-admin:op:${op.id}`, op.id, USDT, units("20"), "change", { d1: true });
    expect((await buy(alice.token)).body.code).toBe("maintenance");

    // Operators only: a user is refused, and nothing is opened.
    const denied = await step(alice.token, "migrate", { limit: 10 });
    expect([denied.status, denied.body.code]).toEqual([403, "no_permission"]);
    expect((await api("/admin/accounts/cut-over", { body: { reason } })).status).toBe(401);
    // The window is off: refused, in the operator's language, and nothing is opened.
    const off = await step(op.token, "migrate", { limit: 10 }, "zh");
    expect([off.status, off.body.code, off.body.message]).toEqual([409, "accounts_window_off", "请先开启维护窗口：只有在资金不流动时才能把余额复制到账户对象"]);
    expect((await step(op.token, "system")).body.code).toBe("accounts_window_off");
    expect(await objectBalances(alice.id)).toEqual([]);
    // Each step carries the operator's reason.
    const noReason = await api("/admin/accounts/migrate", { token: op.token, body: { limit: 10 } });
    expect([noReason.status, noReason.body.code]).toEqual([400, "reason_required"]);

    // The window on: a step a second after it started is refused (money requests from before it may
    // still run; the time is given, not waited for), one after refresh_ms + settle_ms runs.
    await window(op.token, true);
    const since = (await readMaintenance(env.DB)).since!;
    const actor = { operatorId: op.id, reason, checked: true };
    await expect(migrationStep(env, actor, { limit: 10 }, since + 1_000)).rejects.toMatchObject({ key: "accounts_window_settling", params: { seconds: 6 } });
    expect(await objectBalances(alice.id)).toEqual([]);
    await windowSettled();

    // Opened, but nothing compared yet: no record.
    await openEveryone(op.token);
    const unverified = await step(op.token, "cut-over");
    expect([unverified.status, unverified.body.code]).toEqual([409, "accounts_system_unverified"]);
    const system = await step(op.token, "system");
    expect(system.body.type, JSON.stringify(system.body)).toBe("ok");
    expect(system.body.message.mismatched).toEqual([]);
    expect((await step(op.token, "cut-over")).body.code).toBe("accounts_unverified");

    // Compared equal, then a balance moves in D1 (what a pair's own timer could do in the window):
    // the next comparison names the user and the record is refused until it matches again.
    expect(await verifyEveryone(op.token)).toEqual([]);
    expect((await api("/admin/accounts/state", { token: op.token })).body.message).toMatchObject({ accounts: "objects", cut_over: null, waiting_for: null });
    await env.DB.prepare("UPDATE balances SET available = available + 1 WHERE user_id = ? AND currency_id = ?").bind(bob.id, BTC).run();
    expect(await verifyEveryone(op.token)).toEqual([{ user_id: bob.id, where: "object" }, { user_id: bob.id, where: "read_model" }]);
    const differs = await step(op.token, "cut-over");
    expect([differs.status, differs.body.code]).toEqual([409, "accounts_unverified"]);
    expect(differs.body.message).toContain(String(bob.id));
    expect((await buy(alice.token)).body.code).toBe("maintenance");
    await env.DB.prepare("UPDATE balances SET available = available - 1 WHERE user_id = ? AND currency_id = ?").bind(bob.id, BTC).run();
    expect(await verifyEveryone(op.token)).toEqual([]);

    // The record, once; every step was audited with the operator's id and reason.
    const cut = await step(op.token, "cut-over");
    expect(cut.body.type, JSON.stringify(cut.body)).toBe("ok");
    expect(cut.body.message.cut_over).toMatch(/^cut-over \d{4}-/);
    expect((await step(op.token, "cut-over")).body.message.cut_over).toBe(cut.body.message.cut_over);
    const again = await step(op.token, "migrate", { limit: 10 });
    expect([again.status, again.body.code]).toEqual([409, "accounts_cut_over_done"]);
    const audit = await env.DB.prepare("SELECT DISTINCT action, reason FROM audit_log WHERE operator_id = ? AND action LIKE 'accounts.%' ORDER BY action").bind(op.id).all();
    expect(audit.results).toEqual(["accounts.cut_over", "accounts.migrate", "accounts.system", "accounts.verify"].map((action) => ({ action, reason })));

    // Every object holds exactly D1's balances, the operator's own included (opened as anyone's).
    for (const u of [alice, bob, op]) expect(await objectBalances(u.id), `user ${u.id}`).toEqual(await d1Rows(u.id));
    expect(await objectBalances(bob.id)).toEqual([
      ["change", BTC, units("0.5"), 0n],
      ["micro", USDT, units("7"), 0n],
    ]);

    // The window ends: money moves, in the objects.
    expect((await buy(alice.token)).body.code).toBe("maintenance");
    await window(op.token, false);
    const placed = await buy(alice.token);
    expect(placed.body.type, JSON.stringify(placed.body)).toBe("ok");
    expect(await objectBalances(alice.id)).toEqual([["change", USDT, units("990.1"), units("9.9")]]);
  });
});
