/**
 * Proofs of liabilities that reveal nobody else (issue #26), tried over a snapshot of 70 users with
 * varied balances, as an outsider comparing proofs would: no sibling sum in any user's proof equals
 * any user's balances (even for users with 1 minimal unit, equal balances, several currencies, or
 * balances that are the sum of two others'); each user's two leaves add up to exactly their
 * balances; the leaves' order is a secret shuffle that is not the id order and changes with each
 * snapshot; and a proof checked as another account than the one it is bound to is refused.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { parseUnits } from "../../schemas/decimal.ts";
import { TREE_UNITS, bindingOf, fromHex, proofBalances, toHex, verifyProof, type LiabilityProof } from "../../schemas/liabilities.ts";
import { liabilitiesJob } from "../../worker/jobs/liabilities.ts";
import { proofOf as proofFromServer } from "../../worker/domain/transparency/read.ts";
import { runSnapshot, startSnapshot } from "../../worker/domain/transparency/snapshot.ts";
import { api, balancesTable, creditMany, drainAccounts, makeUser, seedCurrencies, type TestUser, units } from "./helpers.ts";

const BTC = 1;
const ETH = 2;
const USDT = 3;
const MIDNIGHT = Date.UTC(2026, 10, 25);
const NAMES = new Map<number, string>([
  [BTC, "BTC"],
  [ETH, "ETH"],
  [USDT, "USDT"],
]);

let alice: TestUser;
let bob: TestUser;
/** Every user of the snapshot: id → balances per currency id (minimal units). */
const held = new Map<number, Map<number, bigint>>();

/** The balance sets of the crowd: chosen to tempt a coincidence (tiny, equal, sums of others, several currencies). */
function crowd(): [number, bigint][][] {
  const sets: [number, bigint][][] = [
    [[USDT, 1n]],
    [[USDT, 1n]],
    [[BTC, 1n]],
    [[USDT, 2n]],
    [[USDT, 3n]], // 1 + 2
    [[USDT, 100n]],
    [[USDT, 100n]],
    [[USDT, 200n]],
    [[BTC, 1n], [USDT, 1n]],
    [[BTC, 1n], [ETH, 1n], [USDT, 1n]],
    [[USDT, units("5")]],
    [[USDT, units("5")]],
    [[USDT, units("10")]], // 5 + 5
    [[BTC, units("0.5")], [USDT, units("1000")]],
    [[BTC, units("0.5")], [USDT, units("1000")]],
    [[ETH, units("21000000")]],
    [[USDT, 4_000_000_000_000_000n]],
  ];
  for (let i = 0; sets.length < 66; i++) {
    const set: [number, bigint][] = [[USDT, BigInt(1000 + i * 7919)]];
    if (i % 3 === 0) set.push([BTC, BigInt(7 + i * 104_729)]);
    if (i % 5 === 0) set.push([ETH, BigInt(i + 1)]);
    sets.push(set);
  }
  return sets;
}

beforeAll(async () => {
  await seedCurrencies();
  alice = await makeUser({ balances: [{ currencyId: USDT, units: units("42") }] });
  bob = await makeUser({ balances: [{ currencyId: USDT, units: units("42") }] });
  await makeUser(); // no balance: no leaf
  const sets = crowd();
  const ids: number[] = [];
  for (let i = 0; i < sets.length; i++) {
    const row = await env.DB.prepare("INSERT INTO users (account, account_type, password_hash, extension_code, role, created_at) VALUES (?, 1, 'x', ?, 'user', ?) RETURNING id")
      .bind(`private${i}@liabilities.test`, `PRIV${i}`, Date.now())
      .first<{ id: number }>();
    ids.push(row!.id);
  }
  await creditMany(
    "test-credit:private",
    sets.flatMap((set, i) => set.map(([currencyId, amount]) => ({ userId: ids[i]!, currencyId, amount }))),
  );
  // The snapshot reads the read model in objects mode: every object's movements in it.
  await drainAccounts();
  const { results } = await env.DB.prepare(`SELECT user_id, currency_id, CAST(SUM(available + frozen) AS TEXT) AS t FROM ${balancesTable()} WHERE user_id > 0 GROUP BY user_id, currency_id`).all<{
    user_id: number;
    currency_id: number;
    t: string;
  }>();
  for (const r of results) {
    if (!held.has(r.user_id)) held.set(r.user_id, new Map());
    held.get(r.user_id)!.set(r.currency_id, BigInt(r.t));
  }
  for (const [id, b] of held) if ([...b.values()].every((v) => v === 0n)) held.delete(id);
  await liabilitiesJob.run(env, { cron: "0 0 * * *", now: MIDNIGHT });
}, 120_000);

/** A vector of per-currency amounts in the tree's units, keyed by currency name, as one comparable string. */
const key = (byName: Map<string, bigint>, names: string[]) => names.map((n) => `${n}:${byName.get(n) ?? 0n}`).join(",");

describe("a snapshot of 70 users", () => {
  it("has no sibling, in any user's proof, whose sums equal any user's balances", async () => {
    const first = await proofFromServer(env, alice.id);
    const currencies = first.currencies.map((c) => c.name);
    const balances = new Set(
      [...held.values()].map((b) => key(new Map([...b].map(([id, v]) => [NAMES.get(id)!, v * TREE_UNITS])), currencies)),
    );
    expect(held.size).toBeGreaterThanOrEqual(50);
    expect(first.user_count).toBe(held.size);
    let siblings = 0;
    for (const id of held.keys()) {
      const proof = await proofFromServer(env, id);
      for (const leaf of proof.leaves) {
        for (const step of leaf.path) {
          const sums = new Map(step.sums.map((v, i) => [currencies[i]!, parseUnits(v, proof.currencies[i]!.scale)!]));
          expect(balances.has(key(sums, currencies)), `user ${id}'s sibling ${step.sums.join(", ")}`).toBe(false);
          siblings++;
        }
        // A leaf alone is not one user's balances either.
        const own = new Map(leaf.balances.map((v, i) => [currencies[i]!, parseUnits(v, proof.currencies[i]!.scale)!]));
        expect(balances.has(key(own, currencies))).toBe(false);
      }
    }
    // Every proof has two leaves, each with a sibling at every level of a 140-leaf tree.
    expect(siblings).toBeGreaterThanOrEqual(held.size * 2 * 7);
  });

  it("gives each user two leaves that add up to exactly their balances, and which verify", async () => {
    const published = (await api("/transparency/liabilities")).body.message;
    for (const [id, b] of held) {
      const proof = await proofFromServer(env, id);
      const account = (await env.DB.prepare("SELECT account FROM users WHERE id = ?").bind(id).first<{ account: string }>())!.account;
      const total = proofBalances(proof)!;
      const mine = proof.currencies.map((c, i) => parseUnits(total[i]!, c.scale)!);
      const byName = new Map([...b].map(([cid, v]) => [NAMES.get(cid)!, v]));
      expect(mine, `user ${id}`).toEqual(proof.currencies.map((c) => TREE_UNITS * (byName.get(c.name) ?? 0n)));
      for (const leaf of proof.leaves) for (const v of leaf.balances) expect(v.startsWith("-")).toBe(false);
      expect((await verifyProof(proof, account, published)).ok, `user ${id}`).toBe(true);
    }
  });

  it("orders its leaves by a secret shuffle: not by user id, and not as the snapshot before", async () => {
    const ranks = async (snapshot: number) =>
      (await env.DB.prepare("SELECT user_id FROM liab_users WHERE snapshot_id = ? ORDER BY idx").bind(snapshot).all<{ user_id: number }>()).results.map((r) => r.user_id);
    const before = (await proofFromServer(env, alice.id)).snapshot_id;
    const order1 = await ranks(before);
    expect(order1).toHaveLength(held.size);
    expect(order1).not.toEqual([...order1].sort((a, b) => a - b));
    const id = (await startSnapshot(env.DB, { trigger: "operator", now: Date.now() }))!;
    // Read the new order before the old copy is pruned by publication.
    await runSnapshot(env, id, { statements: 12, ms: 60_000 });
    const order2 = await ranks(id);
    expect(order2).toHaveLength(held.size);
    expect(order2).not.toEqual(order1);
    await runSnapshot(env, id);
    expect((await proofFromServer(env, alice.id)).snapshot_id).toBe(id);
  });
});

describe("the binding of a user's leaves", () => {
  let proofA: LiabilityProof;
  beforeAll(async () => {
    const r = await api("/transparency/liabilities/proof", { token: alice.token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    proofA = r.body.message;
  });

  it("verifies for the account it is bound to, typed in any case", async () => {
    const published = (await api("/transparency/liabilities")).body.message;
    expect((await verifyProof(proofA, alice.account, published)).ok).toBe(true);
    expect((await verifyProof(proofA, ` ${alice.account.toUpperCase()} `, published)).ok).toBe(true);
  });

  it("is refused when checked as someone else: Alice's proof, as Bob, fails the binding check", async () => {
    const published = (await api("/transparency/liabilities")).body.message;
    // Bob holds exactly what Alice holds: an exchange serving him her leaves would pass on amounts alone.
    const asBob = await verifyProof(proofA, bob.account, published);
    expect(asBob.ok).toBe(false);
    expect(asBob.checks.at(-1)).toMatchObject({ check: "binding", ok: false });
    expect(asBob.checks.at(-1)!.detail).toContain(bob.account);
    // Bob's own proof has other bindings and another nonce, and is his.
    const own = (await api("/transparency/liabilities/proof", { token: bob.token })).body.message as LiabilityProof;
    expect(own.nonce).not.toBe(proofA.nonce);
    expect((await verifyProof(own, bob.account, published)).ok).toBe(true);
    // Re-binding Alice's leaves to Bob's account (with her nonce) changes the leaves, so the root fails.
    const rebound = structuredClone(proofA);
    for (const l of rebound.leaves) l.binding = toHex(await bindingOf(fromHex(rebound.nonce)!, rebound.snapshot_id, l.part, bob.account));
    const forged = await verifyProof(rebound, bob.account, published);
    expect(forged.ok).toBe(false);
    expect(forged.checks.at(-1)!.check).toBe("root_hash");
  });
});
