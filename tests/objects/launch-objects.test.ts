/**
 * Launches with balances in the account objects (ACCOUNTS=objects, issue #28;
 * worker/domain/launch/objects.ts): the treasury's shard holds the supply at publication, each
 * commit holds its amount in the user's object, the settlement spends and refunds from those holds
 * and locks the allocated tokens in the user's object (frozen, purpose `launch_locked`, as on D1's
 * path), a claim releases what vested once; a cancelled launch refunds every commit; refusals move
 * nothing; legs sent again and settlements run again move nothing twice. D1's balances are never written.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runScheduled } from "../../worker/scheduled.ts";
import { claim } from "../../worker/domain/launch/commit.ts";
import { settleProject } from "../../worker/domain/launch/settle.ts";
import { shardOf, systemStub } from "../../worker/lib/accounts.ts";
import { deliverRecordLegs } from "../../worker/lib/record-legs.ts";
import { api, makeUser, type TestUser } from "../api/helpers.ts";
import { seedWalletCurrencies, u8 } from "../api/wallet-fixtures.ts";
import { d1LedgerRows, objectBalances, USDT } from "./fixtures.ts";
import { expectClean, objectUser, openHolds, settled, TREASURY, unsentLegs } from "./products-fixtures.ts";

const DAY = 86_400_000;
let seq = 0;

beforeAll(seedWalletCurrencies);
afterEach(() => {
  vi.useRealTimers();
});

/** A project's treasury shard: [available, frozen] of one currency. */
async function shard(projectId: number, currencyId: number): Promise<[bigint, bigint]> {
  const k = shardOf(projectId);
  const b = (await systemStub(env, TREASURY, k).systemBalances(TREASURY, k)).find((x) => x.currencyId === currencyId && x.account === "change");
  return [b?.available ?? 0n, b?.frozen ?? 0n];
}

/** Credits `units` of a currency to a project's treasury shard (the cut-over opens them from D1's treasury). */
async function fundShard(projectId: number, currencyId: number, units: bigint) {
  const k = shardOf(projectId);
  seq += 1;
  const leg = { key: `test:launch:fund:${projectId}:${seq}`, to: `system:${TREASURY}:${k}`, ops: [{ t: "credit" as const, kind: "change", cur: String(currencyId), amt: Number(units) }] };
  expect(await systemStub(env, TREASURY, k).systemReceive(TREASURY, k, [leg])).toEqual(["applied"]);
}

/** A new token (scale 4) at 0.5 USDT: 1,000 for sale, at most 800 per user; 10-day cliff then 3 steps over 30 days. */
async function draft(op: TestUser, over: Record<string, unknown> = {}) {
  seq += 1;
  const now = Date.now();
  const terms = { token_scale: 4, supply: "1000", cap: "800", cliff_days: 10, vest_days: 30, vest_steps: 3 };
  const window = { start_at: now - 1000, end_at: now + 60_000 };
  const words = { title: `Objects sale ${seq}`, listing_note: "Not promised.", reason: "test sale" };
  const body = { ...terms, ...window, ...words, token_name: `OB${seq}${now.toString(36).slice(-4).toUpperCase()}`, prices: [{ currency_id: USDT, price: "0.5" }], ...over };
  const create = await api("/admin/launch/projects", { token: op.token, body });
  expect(create.body).toMatchObject({ type: "ok", message: { status: "draft" } });
  return create.body.message as { id: number; token_id: number; end_at: number };
}

const publish = (op: TestUser, id: number) => api("/admin/launch/publish", { token: op.token, body: { id, reason: "go" } });
const commitTo = (user: TestUser, project_id: number, amount: string) => api("/launch/commit", { token: user.token, body: { project_id, currency_id: USDT, amount } });
const holdsScreen = async (user: TestUser) => (await api("/wallet/holds", { token: user.token })).body.message.groups as { currency_id: number; frozen: string; holds: { purpose: string; amount: string; label: string; ref: { type: string; id: number } }[] }[];
const subOf = (userId: number, projectId: number) =>
  env.DB.prepare("SELECT id, status, alloc, cost, refund, claimed FROM launch_subscriptions WHERE user_id = ? AND project_id = ?").bind(userId, projectId).first<Record<string, number | string>>();

/** The user's statement lines of one currency as [kind, amount, held]. */
async function statement(user: TestUser, currencyId: number) {
  const r = await api(`/wallet/statement?currency_id=${currencyId}`, { token: user.token });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return (r.body.message.lines as { kind: string; amount: string; held: string; ref: { type: string; id: number | null } }[]).map((l) => [l.kind, l.amount, l.held, l.ref.type, l.ref.id]);
}

describe("a launch on the account objects", () => {
  it("holds, allocates with the tokens locked in the user's object, refunds to the unit and pays a claim once", async () => {
    const op = await makeUser({ role: "operator" });
    const p = await draft(op);
    // The project's shard cannot reserve the supply: refused, still a draft, nothing held.
    expect((await publish(op, p.id)).body).toMatchObject({ type: "error", code: "launch_reserve_short" });
    expect(await shard(p.id, p.token_id)).toEqual([0n, 0n]);
    await fundShard(p.id, p.token_id, 10_000_000n);
    expect((await publish(op, p.id)).body).toMatchObject({ type: "ok", message: { status: "open" } });
    expect(await shard(p.id, p.token_id)).toEqual([0n, 10_000_000n]);

    const a = await objectUser([[USDT, "1000"]]);
    const b = await objectUser([[USDT, "1000"]]);
    expect((await commitTo(a, p.id, "300")).body).toMatchObject({ type: "ok", message: { status: "committed", amount: "300" } });
    expect((await commitTo(b, p.id, "250")).body.type).toBe("ok");
    expect((await commitTo(b, p.id, "150")).body).toMatchObject({ type: "ok", message: { amount: "400" } });
    expect(await settled(a.id)).toEqual([["change", USDT, u8("700"), u8("300")]]);
    expect(await settled(b.id)).toEqual([["change", USDT, u8("600"), u8("400")]]);
    // Two commits, one line on the holds screen, as on D1's path.
    expect((await holdsScreen(b)).find((g) => g.currency_id === USDT)!.holds).toEqual([
      { purpose: "launch", amount: "400.00000000", label: expect.stringMatching(/^Objects sale/), ref: { type: "launch", id: p.id } },
    ]);
    // Short of balance: insufficient_balance, nothing held, the subscription unchanged.
    const poor = await objectUser([[USDT, "50"]]);
    expect((await commitTo(poor, p.id, "100")).body).toMatchObject({ type: "error", code: "insufficient_balance" });
    expect(await objectBalances(poor.id)).toEqual([["change", USDT, u8("50"), 0n]]);
    // Over the cap (the database's trigger): the hold goes back.
    expect((await commitTo(a, p.id, "150")).body).toMatchObject({ type: "error", code: "launch_cap" });
    expect(await objectBalances(a.id)).toEqual([["change", USDT, u8("700"), u8("300")]]);
    expect(await openHolds(a.id)).toHaveLength(1);
    await expectClean();

    const houseUsdt = await shard(p.id, USDT);
    // The window ends: demand 600 + 800 = 1,400 for 1,000 tokens.
    await runScheduled("* * * * *", env, p.end_at + 1000);
    expect(await subOf(a.id, p.id)).toMatchObject({ status: "allocated", alloc: 4_285_714, cost: 21_428_570_000, refund: 8_571_430_000 });
    expect(await settled(a.id)).toEqual([
      ["change", USDT, u8("785.7143"), 0n],
      ["change", p.token_id, 0n, 4_285_714n],
    ].sort((x, y) => Number(x[1]) - Number(y[1])));
    expect(await settled(b.id)).toContainEqual(["change", USDT, u8("714.28575"), 0n]);
    expect(await objectBalances(b.id)).toContainEqual(["change", p.token_id, 0n, 5_714_285n]);
    // The treasury's shard: the cost in, the tokens out of its reserve, the 0.0001 rest released.
    expect(await shard(p.id, USDT)).toEqual([houseUsdt[0] + 21_428_570_000n + 28_571_425_000n, 0n]);
    expect(await shard(p.id, p.token_id)).toEqual([1n, 0n]);
    expect(await unsentLegs()).toBe(0);
    const tokenHolds = (await holdsScreen(a)).find((g) => g.currency_id === p.token_id)!;
    expect(tokenHolds).toMatchObject({ frozen: "428.5714", holds: [{ purpose: "launch_locked", amount: "428.5714", ref: { type: "launch", id: p.id } }] });
    // The commit refused over the cap shows its hold and its return (net nothing).
    expect(await statement(a, USDT)).toEqual([
      ["launch_allocate", "-214.28570000", "-300.00000000", "launch", p.id],
      ["launch_returned", "0.00000000", "-150.00000000", "launch", p.id],
      ["launch_committed", "0.00000000", "150.00000000", "launch", p.id],
      ["launch_committed", "0.00000000", "300.00000000", "launch", p.id],
    ]);
    await expectClean();

    // A second run settles nothing twice; the settlement's legs sent again are seen.
    await settleProject(env, p.id, p.end_at + 61_000, 100);
    await runScheduled("* * * * *", env, p.end_at + 61_000);
    expect(await objectBalances(a.id)).toContainEqual(["change", USDT, u8("785.7143"), 0n]);

    const subId = Number((await subOf(a.id, p.id))!.id);
    const e = p.end_at;
    await expect(claim(env, a.id, subId, e + 19 * DAY)).rejects.toMatchObject({ key: "launch_nothing_to_claim" });
    // One third at day 20, paid once even when claimed three times at once.
    const tries = await Promise.allSettled([0, 1, 2].map(() => claim(env, a.id, subId, e + 20 * DAY)));
    expect(tries.filter((t) => t.status === "fulfilled")).toHaveLength(1);
    expect(await objectBalances(a.id)).toContainEqual(["change", p.token_id, 1_428_571n, 4_285_714n - 1_428_571n]);
    await deliverRecordLegs(env, [{ key: `launch:${p.id}:${subId}:claim:1428571`, to: `user:${a.id}`, ops: [{ t: "release", hold: `launch_locked:${p.id}`, cur: String(p.token_id), amt: 1_428_571 }] }]);
    expect(await objectBalances(a.id)).toContainEqual(["change", p.token_id, 1_428_571n, 4_285_714n - 1_428_571n]);
    expect(await claim(env, a.id, subId, e + 41 * DAY)).toMatchObject({ claimed: "428.5714", locked: "0" });
    expect(await settled(a.id)).toContainEqual(["change", p.token_id, 4_285_714n, 0n]);
    expect(await statement(a, p.token_id)).toEqual([
      ["launch_claim", "0.0000", "-285.7143", "launch", p.id],
      ["launch_claim", "0.0000", "-142.8571", "launch", p.id],
      ["launch_allocate", "428.5714", "428.5714", "launch", p.id],
    ]);
    expect(await d1LedgerRows(a.id)).toBe(0);
    expect(await d1LedgerRows(TREASURY)).toBe(0);
    await expectClean();
  });

  it("a cancelled launch refunds every commit from its holds, and the reserve goes back", async () => {
    const op = await makeUser({ role: "operator" });
    const p = await draft(op);
    await fundShard(p.id, p.token_id, 10_000_000n);
    expect((await publish(op, p.id)).body.type).toBe("ok");
    const a = await objectUser([[USDT, "500"]]);
    expect((await commitTo(a, p.id, "100")).body.type).toBe("ok");
    expect((await commitTo(a, p.id, "50")).body.type).toBe("ok");
    expect((await api("/admin/launch/cancel", { token: op.token, body: { id: p.id, reason: "issuer withdrew" } })).body).toMatchObject({ type: "ok", message: { status: "cancelled" } });
    expect(await settled(a.id)).toEqual([["change", USDT, u8("500"), 0n]]);
    expect(await openHolds(a.id)).toEqual([]);
    expect(await shard(p.id, p.token_id)).toEqual([10_000_000n, 0n]);
    expect((await statement(a, USDT))[0]).toEqual(["launch_refund", "0.00000000", "-150.00000000", "launch", p.id]);
    expect(await unsentLegs()).toBe(0);
    await expectClean();
  });

  it("a claim waits for its allocation's legs: sent first when they were left behind, and refused while they cannot land", async () => {
    const op = await makeUser({ role: "operator" });
    const p = await draft(op, { cliff_days: 0, vest_days: 0, vest_steps: 0, end_at: Date.now() + 30_000 });
    await fundShard(p.id, p.token_id, 10_000_000n);
    await publish(op, p.id);
    const a = await objectUser([[USDT, "100"]]);
    expect((await commitTo(a, p.id, "100")).body.type).toBe("ok");
    // The objects cannot be reached while the settlement commits in D1: its legs stay owed in record_legs.
    const down = { ...env, USER: { idFromName: () => { throw new Error("objects down"); }, get: () => { throw new Error("objects down"); } } as unknown as Env["USER"] };
    await env.DB.prepare("UPDATE launch_projects SET status = 'allocating' WHERE id = ?").bind(p.id).run();
    expect(await settleProject(down, p.id, p.end_at + 1000, 100)).toEqual({ settled: 1, finished: true });
    const sub = (await subOf(a.id, p.id))!;
    expect(sub).toMatchObject({ status: "allocated", alloc: 2_000_000 });
    expect(await objectBalances(a.id)).toEqual([["change", USDT, 0n, u8("100")]]);
    expect(await unsentLegs()).toBeGreaterThan(0);
    // Still unreachable: the claim is refused and writes nothing.
    await expect(claim(down, a.id, Number(sub.id), p.end_at + 1000)).rejects.toMatchObject({ key: "try_again" });
    expect((await subOf(a.id, p.id))!.claimed).toBe(0);
    // Reachable again: the claim sends the allocation first, then releases what vested, once.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(p.end_at + 1000);
    expect((await api("/launch/claim", { token: a.token, body: { id: sub.id } })).body).toMatchObject({ type: "ok", message: { claimed: "200" } });
    expect((await api("/launch/claim", { token: a.token, body: { id: sub.id } })).body).toMatchObject({ type: "error", code: "launch_nothing_to_claim" });
    vi.useRealTimers();
    expect(await settled(a.id)).toEqual([["change", p.token_id, 2_000_000n, 0n]]);
    // The treasury's side left behind is sent by the every-minute job.
    await runScheduled("* * * * *", env, p.end_at + 120_000);
    expect(await unsentLegs()).toBe(0);
    expect(await shard(p.id, p.token_id)).toEqual([8_000_000n, 0n]);
    await expectClean();
  });
});
