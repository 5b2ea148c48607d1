/**
 * Proof of liabilities (issue #20 §2), tried as users and operators would: the daily job publishes
 * a Merkle-sum root whose totals equal the ledger; a user downloads their proof and it verifies;
 * a proof with a balance or a sibling's sum changed does not; a negative balance or totals that
 * differ from the ledger stop publication; nobody is ever served another user's leaf.
 *
 * The snapshots of this file follow each other in one database: each test reads one behaviour off
 * the snapshot the tests before it left.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { emptyRoot, proofBalances, toHex, verifyProof, type LiabilityProof, type PublishedRoot } from "../../schemas/liabilities.ts";
import { JOBS } from "../../worker/scheduled.ts";
import { liabilitiesJob } from "../../worker/jobs/liabilities.ts";
import { runSnapshot, startSnapshot } from "../../worker/domain/transparency/snapshot.ts";
import { formatUnits, parseUnits } from "../../schemas/decimal.ts";
import { api, balancesTable, creditMany, drainAccounts, holdFunds, makeUser, movementsTable, seedCurrencies, type TestUser, units } from "./helpers.ts";
import { makeOperator } from "./wallet-fixtures.ts";

const BTC = 1;
const USDT = 3;
const MIDNIGHT = Date.UTC(2026, 10, 20);
const DAY = 86_400_000;

let op: TestUser;
let demo1: TestUser;
let demo2: TestUser;
let empty: TestUser;

/** Ledger sums of users > 0 per currency name, as decimal units (bigint): D1's ledger, or in objects mode the read model's movements. */
async function ledgerTotals(): Promise<Map<string, bigint>> {
  const { results } = await env.DB.prepare(
    `SELECT c.name, CAST(SUM(l.d_available + l.d_frozen) AS TEXT) AS t FROM ${movementsTable()} l JOIN currencies c ON c.id = l.currency_id WHERE l.user_id > 0 GROUP BY c.name`,
  ).all<{ name: string; t: string }>();
  return new Map(results.map((r) => [r.name, BigInt(r.t)]));
}

async function published(): Promise<PublishedRoot & { user_count: number; taken_at: number }> {
  const r = await api("/transparency/liabilities");
  expect(r.status).toBe(200);
  return r.body.message;
}

async function proofOf(u: TestUser): Promise<LiabilityProof> {
  const r = await api("/transparency/liabilities/proof", { token: u.token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.message;
}

/** The users and balances the tests from "the daily snapshot" on read (the first describe needs none). */
async function populate() {
  await seedCurrencies();
  op = await makeOperator();
  demo1 = await makeUser({ balances: [{ currencyId: BTC, units: units("0.5") }, { currencyId: USDT, units: units("1000") }, { currencyId: USDT, units: units("250.25"), account: "lever" }] });
  await holdFunds(demo1.id, USDT, units("100"), `hold:${demo1.id}`);
  demo2 = await makeUser({ balances: [{ currencyId: USDT, units: units("42") }] });
  // Enough users for a tree of several levels (some above the levels a proof recomputes): inserted
  // directly (they never log in) and credited as one crowd.
  const ids: number[] = [];
  for (let i = 0; i < 37; i++) {
    const row = await env.DB.prepare("INSERT INTO users (account, account_type, password_hash, extension_code, role, created_at) VALUES (?, 1, 'x', ?, 'user', ?) RETURNING id")
      .bind(`crowd${i}@liabilities.test`, `LIAB${i}`, Date.now())
      .first<{ id: number }>();
    ids.push(row!.id);
  }
  await creditMany(
    "test-credit:crowd",
    ids.map((userId, i) => ({ userId, currencyId: i % 3 === 0 ? BTC : USDT, amount: BigInt(1000 + i * 7919) })),
  );
  empty = await makeUser();
  // The snapshot reads the read model in objects mode: every object's movements in it.
  await drainAccounts();
}

describe("an exchange with no users yet", () => {
  beforeAll(seedCurrencies);

  it("publishes its daily snapshot with zero users, zero totals and the empty root, without an alarm", async () => {
    expect((await api("/transparency/liabilities")).body).toMatchObject({ type: "error", code: "liabilities_none" });
    const errors = vi.spyOn(console, "error");
    try {
      await liabilitiesJob.run(env, { cron: "0 0 * * *", now: MIDNIGHT - 2 * DAY });
      expect(errors.mock.calls.flat().join("\n")).not.toContain("liabilities_not_published");
    } finally {
      errors.mockRestore();
    }
    const p = await published();
    expect(p.user_count).toBe(0);
    expect(p.totals.length).toBeGreaterThan(0);
    for (const t of p.totals) expect(t.total, t.currency).toBe("0");
    expect(p.root_hash).toBe(toHex((await emptyRoot(p.totals.length)).hash));
    const run = await env.DB.prepare("SELECT status, problem, day FROM liab_snapshots WHERE id = ?").bind(p.id).first();
    expect(run).toEqual({ status: "published", problem: null, day: "2026-11-18" });
  });
});

describe("the daily snapshot", () => {
  beforeAll(populate, 120_000);

  it("is one of the 00:00 UTC jobs and the every-minute job goes on with it", () => {
    expect(JOBS["0 0 * * *"]).toContain(liabilitiesJob);
    expect(JOBS["* * * * *"]).toContain(liabilitiesJob);
  });

  it("publishes a root whose per-currency totals equal the ledger's sums over every user", async () => {
    await liabilitiesJob.run(env, { cron: "0 0 * * *", now: MIDNIGHT });
    const p = await published();
    const ledger = await ledgerTotals();
    expect(p.root_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(p.totals.find((t) => t.currency === "BTC")!.total).not.toBe("0");
    for (const t of p.totals) expect(units(t.total), t.currency).toBe(ledger.get(t.currency) ?? 0n);
    // Every user owed something counts (one with only zero balances has no leaf).
    const users = await env.DB.prepare(`SELECT COUNT(*) AS n FROM (SELECT user_id FROM ${balancesTable()} WHERE user_id > 0 GROUP BY user_id HAVING MAX(available + frozen) > 0)`).first<{ n: number }>();
    expect(p.user_count).toBe(users!.n);
    // The same day's cron again starts nothing new.
    await liabilitiesJob.run(env, { cron: "0 0 * * *", now: MIDNIGHT + 1000 });
    expect((await published()).id).toBe(p.id);
  });

  it("gives demo1 a proof that verifies against the published root, with their balances and holds", async () => {
    const proof = await proofOf(demo1);
    const result = await verifyProof(proof, demo1.account, await published());
    expect(result.ok, JSON.stringify(result.checks)).toBe(true);
    const total = proofBalances(proof)!;
    const mine = Object.fromEntries(proof.currencies.map((c, i) => [c.name, total[i]]));
    // 0.5 BTC; USDT 1000 (100 of it frozen) + 250.25 in the lever account, split over two leaves.
    expect(mine).toMatchObject({ BTC: "0.5", USDT: "1250.25" });
    expect(proof.leaves).toHaveLength(2);
    expect(proof.leaves.map((l) => l.balances)).not.toContainEqual(total);
    for (const l of proof.leaves) expect(l.path.length).toBeGreaterThan(3);
  });

  it("does not verify a proof with one balance changed, or one sibling's sum changed", async () => {
    const proof = await proofOf(demo1);
    const root = await published();
    const usdt = proof.currencies.findIndex((c) => c.name === "USDT");
    const scale = proof.currencies[usdt]!.scale;
    const at = (v: string) => parseUnits(v, scale)!;
    const richer = structuredClone(proof);
    richer.leaves[0]!.balances[usdt] = formatUnits(at(richer.leaves[0]!.balances[usdt]!) + 1n, scale);
    expect((await verifyProof(richer, demo1.account, root)).ok).toBe(false);
    const sibling = structuredClone(proof);
    sibling.leaves[1]!.path[0]!.sums[usdt] = formatUnits(at(sibling.leaves[1]!.path[0]!.sums[usdt]!) + at("1"), scale);
    expect((await verifyProof(sibling, demo1.account, root)).ok).toBe(false);
    // Moving money from the sibling to the leaf keeps the totals but not the root.
    const moved = structuredClone(proof);
    const path = moved.leaves[0]!.path;
    const k = path.findIndex((st) => at(st.sums[usdt]!) > 0n);
    moved.leaves[0]!.balances[usdt] = formatUnits(at(moved.leaves[0]!.balances[usdt]!) + 1n, scale);
    path[k]!.sums[usdt] = formatUnits(at(path[k]!.sums[usdt]!) - 1n, scale);
    const r = await verifyProof(moved, demo1.account, root);
    expect(r.ok).toBe(false);
    expect(r.checks.at(-1)!.check).toBe("root_hash");
  });

  it("serves only one's own proof: never another user's leaf, none to a user without balances", async () => {
    const p1 = await proofOf(demo1);
    const p2 = await proofOf(demo2);
    expect(p2.nonce).not.toBe(p1.nonce);
    const b2 = proofBalances(p2)!;
    expect(Object.fromEntries(p2.currencies.map((c, i) => [c.name, b2[i]]))).toMatchObject({ BTC: "0", USDT: "42" });
    // A user id in the query changes nothing: the session decides whose proof it is.
    const asked = await api(`/transparency/liabilities/proof?user_id=${demo2.id}`, { token: demo1.token });
    expect(asked.body.message.leaves).toEqual(p1.leaves);
    const none = await api("/transparency/liabilities/proof", { token: empty.token, lang: "zh" });
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ type: "error", code: "liabilities_not_included" });
    expect((await api("/transparency/liabilities/proof")).body.type).toBe("999");
  });
});

describe("a missed 00:00 invocation", () => {
  const day = MIDNIGHT + DAY;
  const ofDay = async () => (await env.DB.prepare("SELECT id, trigger, status FROM liab_snapshots WHERE day = '2026-11-21'").all()).results;

  it("is made up by the every-minute job: it starts the day's snapshot, which publishes, and starts it only once", async () => {
    expect(await ofDay()).toEqual([]);
    await liabilitiesJob.run(env, { cron: "* * * * *", now: day + 7 * 60_000 });
    const [s] = await ofDay();
    expect(s).toMatchObject({ trigger: "cron", status: "published" });
    expect((await published()).id).toBe(s!.id);
    const count = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM liab_snapshots").first<{ n: number }>())!.n;
    const n = await count();
    await liabilitiesJob.run(env, { cron: "* * * * *", now: day + 8 * 60_000 });
    await liabilitiesJob.run(env, { cron: "* * * * *", now: day + DAY - 1 });
    expect(await count()).toBe(n);
    expect(await ofDay()).toHaveLength(1);
  });
});

describe("a snapshot too big for one invocation", () => {
  it("is built over several invocations within their statement budget, and its proofs still verify", async () => {
    const id = (await startSnapshot(env.DB, { trigger: "operator", now: Date.now(), blockLevel: 2, storedLevel: 1 }))!;
    let s = await runSnapshot(env, id, { statements: 14, ms: 60_000 });
    expect(s.status).toBe("running");
    const before = s.statements;
    expect(before).toBeLessThanOrEqual(15);
    // The every-minute job goes on with it.
    for (let i = 0; i < 30 && s.phase !== "done"; i++) {
      await liabilitiesJob.run(env, { cron: "* * * * *", now: Date.now() });
      s = (await env.DB.prepare("SELECT * FROM liab_snapshots WHERE id = ?").bind(id).first())! as typeof s;
    }
    expect(s.status).toBe("published");
    expect(s.invocations).toBeGreaterThan(1);
    const p = await published();
    expect(p.id).toBe(id);
    for (const u of [demo1, demo2]) expect((await verifyProof(await proofOf(u), u.account, p)).ok).toBe(true);
    // The older snapshot's copy and nodes are pruned once the new one is published.
    const left = await env.DB.prepare("SELECT (SELECT COUNT(*) FROM liab_users WHERE snapshot_id < ?1) + (SELECT COUNT(*) FROM liab_nodes WHERE snapshot_id < ?1) AS n").bind(id).first<{ n: number }>();
    expect(left!.n).toBe(0);
  });
});

describe("publication stops", () => {
  it("when a user's balance is negative (forced in the test database), and the last good root stays published", async () => {
    const before = await published();
    await env.DB.batch([
      env.DB.prepare("PRAGMA ignore_check_constraints = ON"),
      env.DB.prepare(`UPDATE ${balancesTable()} SET available = -5 WHERE user_id = ? AND currency_id = ? AND account = 'change'`).bind(demo2.id, USDT),
      env.DB.prepare("PRAGMA ignore_check_constraints = OFF"),
    ]);
    try {
      const r = await api("/admin/transparency/liabilities/run", { token: op.token, body: { reason: "check after incident" } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.message).toMatchObject({ status: "failed", problem: { negative_users: 1 } });
      expect((await published()).root_hash).toBe(before.root_hash);
    } finally {
      await env.DB.batch([
        env.DB.prepare("PRAGMA ignore_check_constraints = ON"),
        env.DB.prepare(`UPDATE ${balancesTable()} SET available = 42 * 100000000 WHERE user_id = ? AND currency_id = ? AND account = 'change'`).bind(demo2.id, USDT),
        env.DB.prepare("PRAGMA ignore_check_constraints = OFF"),
      ]);
    }
  });

  it("when the balances' totals differ from the ledger's, and the console shows which currency", async () => {
    await env.DB.prepare(`UPDATE ${balancesTable()} SET available = available + 7 WHERE user_id = ? AND currency_id = ? AND account = 'change'`).bind(demo1.id, BTC).run();
    try {
      const r = await api("/admin/transparency/liabilities/run", { token: op.token, body: { reason: "check after incident" } });
      expect(r.body.message.status).toBe("failed");
      const runs = (await api("/admin/transparency/liabilities/runs", { token: op.token })).body.message;
      const run = runs.data[0];
      expect(run.problem.mismatches).toEqual([expect.objectContaining({ currency: "BTC" })]);
      const btc = run.problem.mismatches[0];
      expect(units(btc.balances) - units(btc.ledger)).toBe(7n);
    } finally {
      await env.DB.prepare(`UPDATE ${balancesTable()} SET available = available - 7 WHERE user_id = ? AND currency_id = ? AND account = 'change'`).bind(demo1.id, BTC).run();
    }
  });
});

describe("the console", () => {
  it("lets an operator take a snapshot now (audited) and lists the runs with statements and invocations", async () => {
    const r = await api("/admin/transparency/liabilities/run", { token: op.token, body: { reason: "monthly attestation" } });
    expect(r.body.message).toMatchObject({ status: "published", trigger: "operator" });
    const audit = await env.DB.prepare("SELECT operator_id, reason FROM audit_log WHERE action = 'liabilities.snapshot' AND target_id = ?").bind(String(r.body.message.id)).first();
    expect(audit).toEqual({ operator_id: op.id, reason: "monthly attestation" });
    const runs = (await api("/admin/transparency/liabilities/runs", { token: op.token })).body.message;
    expect(runs.total).toBeGreaterThanOrEqual(5);
    const first = runs.data.at(-1);
    expect(first).toMatchObject({ trigger: "cron", status: "published" });
    expect(first.statements).toBeGreaterThan(0);
    expect(first.invocations).toBeGreaterThanOrEqual(1);
    for (const t of runs.data[0].totals) expect([t.snapshot, t.tree]).toEqual([t.ledger, t.ledger]);
  });

  it("refuses users, a missing reason and a second snapshot while one builds, and changes nothing", async () => {
    expect((await api("/admin/transparency/liabilities/runs", { token: demo1.token })).status).toBe(403);
    expect((await api("/admin/transparency/liabilities/run", { token: demo1.token, body: { reason: "x" } })).status).toBe(403);
    const count = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM liab_snapshots").first<{ n: number }>())!.n;
    const n = await count();
    const bad = await api("/admin/transparency/liabilities/run", { token: op.token, body: {}, lang: "es" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: "error", code: "reason_required" });
    expect((await api("/admin/transparency/liabilities/runs?limit=500", { token: op.token })).status).toBe(400);
    const id = await startSnapshot(env.DB, { trigger: "operator", now: Date.now() });
    expect(id).not.toBeNull();
    const busy = await api("/admin/transparency/liabilities/run", { token: op.token, body: { reason: "again" } });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ type: "error", code: "liabilities_running" });
    expect(await count()).toBe(n + 1);
    await runSnapshot(env, id!);
  });
});
