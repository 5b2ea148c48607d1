/**
 * The liabilities Merkle-sum tree and its verifier (schemas/liabilities.ts), and the offline
 * verifier a user runs on their downloaded proof.json (`npm run verify-liabilities`).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  PROOF_VERSION,
  TREE_UNITS,
  bindingOf,
  buildLevels,
  formatSums,
  leafNode,
  leafOwner,
  leafPlaces,
  levelCounts,
  nextSnapshotAt,
  parentNode,
  pathPositions,
  proofBalances,
  splitBalances,
  toHex,
  userLeaves,
  verifyProof,
  type LiabilityProof,
  type ProofCurrency,
  type TreeNode,
} from "../../schemas/liabilities.ts";

/** The tree's currencies: each currency's own decimals + 2. */
const currencies: ProofCurrency[] = [
  { name: "BTC", scale: 10 },
  { name: "USDT", scale: 8 },
  { name: "DOGE", scale: 2 },
];
const SNAPSHOT = 7;
const account = (i: number) => `user${i}@example.test`;

function nonce(i: number): Uint8Array {
  const n = new Uint8Array(32);
  new DataView(n.buffer).setUint32(0, i * 2654435761);
  n[31] = i & 0xff;
  return n;
}

/** A whole snapshot's tree in memory: user i has rank i, balances[i] (minimal units). */
async function tree(balances: bigint[][]) {
  const leaves: TreeNode[] = new Array(2 * balances.length);
  const parts: { binding: Uint8Array; node: TreeNode; part: 0 | 1; index: number }[][] = [];
  for (let i = 0; i < balances.length; i++) {
    const mine = await userLeaves({ snapshotId: SNAPSHOT, rank: i, users: balances.length, nonce: nonce(i), account: account(i), balances: balances[i]! });
    parts.push(mine);
    for (const l of mine) leaves[l.index] = l.node;
  }
  return { levels: await buildLevels(leaves), parts };
}

function proofFor(t: Awaited<ReturnType<typeof tree>>, rank: number): LiabilityProof {
  const { levels, parts } = t;
  const root = levels[levels.length - 1]![0]!;
  return {
    version: PROOF_VERSION,
    snapshot_id: SNAPSHOT,
    taken_at: 0,
    currencies,
    nonce: toHex(nonce(rank)),
    leaves: parts[rank]!.map((l) => ({
      part: l.part,
      binding: toHex(l.binding),
      balances: formatSums(l.node.sums, currencies),
      path: pathPositions(l.index, levels[0]!.length).map((p) => {
        const n = levels[p.level]![p.index]!;
        return { side: p.side, hash: toHex(n.hash), sums: formatSums(n.sums, currencies) };
      }),
    })),
    root: { hash: toHex(root.hash), sums: formatSums(root.sums, currencies) },
    user_count: parts.length,
    leaf_count: levels[0]!.length,
  };
}

/** Balances with at least one positive amount each: some tiny, some equal, some several currencies. */
const sample = (n: number) =>
  Array.from({ length: n }, (_, i) => [BigInt(i * 12345) % 100000000n, BigInt(i % 5) * 1_000_000n, i % 7 === 0 ? 0n : BigInt(i % 4)]).map((b) =>
    b.every((v) => v === 0n) ? [0n, 1n, 0n] : b,
  );

describe("the Merkle-sum tree", () => {
  it("has a root whose sums are 100 × the totals of every user, for any number of users", async () => {
    for (const n of [1, 2, 3, 5, 8, 13, 33]) {
      const b = sample(n);
      const { levels } = await tree(b);
      expect(levels.map((l) => l.length)).toEqual(levelCounts(2 * n));
      const root = levels[levels.length - 1]![0]!;
      expect(root.sums).toEqual([0, 1, 2].map((j) => TREE_UNITS * b.reduce((s, row) => s + row[j]!, 0n)));
    }
  });

  it("gives every user a proof that verifies for their account, including the users whose leaves are carried up", async () => {
    const b = sample(13);
    const t = await tree(b);
    for (let i = 0; i < 13; i++) {
      const r = await verifyProof(proofFor(t, i), account(i));
      expect(r.ok, `user ${i}: ${JSON.stringify(r.checks)}`).toBe(true);
    }
  });

  it("refuses a negative amount in a leaf", async () => {
    await expect(leafNode(nonce(1), [1n, -1n, 0n])).rejects.toThrow(RangeError);
  });

  it("commits to each sibling's sums: moving money between siblings changes the parent's hash", async () => {
    const a = await leafNode(nonce(1), [5n, 0n, 0n]);
    const b = await leafNode(nonce(2), [5n, 0n, 0n]);
    const honest = await parentNode(a, b);
    const shifted = await parentNode({ ...a, sums: [6n, 0n, 0n] }, { ...b, sums: [4n, 0n, 0n] });
    expect(shifted.sums).toEqual(honest.sums);
    expect(toHex(shifted.hash)).not.toBe(toHex(honest.hash));
  });

  it("binds a leaf to one account: the same nonce, snapshot and part under another account is another binding", async () => {
    const mine = toHex(await bindingOf(nonce(1), SNAPSHOT, 0, "a@x.test"));
    expect(toHex(await bindingOf(nonce(1), SNAPSHOT, 0, " A@X.test "))).toBe(mine);
    expect(toHex(await bindingOf(nonce(1), SNAPSHOT, 0, "b@x.test"))).not.toBe(mine);
    expect(toHex(await bindingOf(nonce(1), SNAPSHOT, 1, "a@x.test"))).not.toBe(mine);
    expect(toHex(await bindingOf(nonce(1), SNAPSHOT + 1, 0, "a@x.test"))).not.toBe(mine);
    expect(toHex(await bindingOf(nonce(2), SNAPSHOT, 0, "a@x.test"))).not.toBe(mine);
  });
});

describe("the leaves' layout and split", () => {
  it("places each user's two leaves apart (never siblings) and finds their owner back", () => {
    for (const n of [1, 2, 3, 7, 64, 101]) {
      const seen = new Set<number>();
      for (let r = 0; r < n; r++) {
        const [a, b] = leafPlaces(r, n);
        expect(leafOwner(a, n)).toEqual({ rank: r, part: 0 });
        expect(leafOwner(b, n)).toEqual({ rank: r, part: 1 });
        if (n > 1) expect(a >> 1).not.toBe(b >> 1);
        seen.add(a).add(b);
      }
      expect(seen.size).toBe(2 * n);
    }
  });

  it("splits balances into two non-negative parts that add up to exactly 100 × the balances, both positive in a held currency", async () => {
    for (const b of [[1n, 0n, 0n], [0n, 0n, 1n], [5n, 7n, 0n], [0n, 123456789012345n, 3n]]) {
      const [p0, p1] = await splitBalances(b, 37n, nonce(9));
      b.forEach((v, i) => expect(p0[i]! + p1[i]!).toBe(TREE_UNITS * v));
      for (const v of [...p0, ...p1]) expect(v >= 0n).toBe(true);
      expect(p0.reduce((s, v) => s + v, 0n) % TREE_UNITS).toBe(37n);
      expect(p0.some((v) => v > 0n) && p1.some((v) => v > 0n)).toBe(true);
    }
    await expect(splitBalances([0n, 0n, 0n], 1n, nonce(1))).rejects.toThrow(RangeError);
  });

  it("makes no node below the root a multiple of 100 in every currency, so no sibling ever equals a user's balances", async () => {
    for (const n of [1, 2, 3, 4, 5, 9, 16, 17, 31, 50, 64, 77]) {
      // The worst cases for coincidences: every user holds exactly 1 minimal unit of the same
      // currency, or of one of three currencies.
      for (const spread of [1, 3]) {
        const { levels } = await tree(Array.from({ length: n }, (_, i) => [0n, 0n, 0n].map((_, j) => (j === i % spread ? 1n : 0n))));
        levels.slice(0, -1).forEach((level, l) =>
          level.forEach((node, i) => expect(node.sums.every((v) => v % TREE_UNITS === 0n), `${n} users, level ${l}, node ${i}`).toBe(false)),
        );
      }
    }
  });

  it("says when the next daily snapshot is taken: the next 00:00 UTC", () => {
    expect(nextSnapshotAt(Date.UTC(2026, 10, 29, 7, 40))).toBe(Date.UTC(2026, 10, 30));
    expect(nextSnapshotAt(Date.UTC(2026, 10, 30))).toBe(Date.UTC(2026, 11, 1));
  });
});

describe("the verifier", () => {
  it("fails a proof with one balance changed, a sibling's sum changed, a side swapped or the totals changed", async () => {
    const t = await tree(sample(9));
    const good = proofFor(t, 4);
    expect((await verifyProof(good, account(4))).ok).toBe(true);
    const tamper = (f: (p: LiabilityProof) => void) => {
      const p = structuredClone(good);
      f(p);
      return verifyProof(p, account(4));
    };
    const balance = await tamper((p) => (p.leaves[0]!.balances[0] = "1"));
    expect(balance.ok).toBe(false);
    expect(balance.checks.at(-1)!.check).toBe("root_hash");
    expect((await tamper((p) => (p.leaves[1]!.path[1]!.sums[1] = "999"))).ok).toBe(false);
    expect((await tamper((p) => (p.leaves[0]!.path[0]!.side = p.leaves[0]!.path[0]!.side === "left" ? "right" : "left"))).ok).toBe(false);
    const totals = await tamper((p) => (p.root.sums[2] = "1"));
    expect(totals.checks.at(-1)!.check).toBe("root_sums");
    const renonced = await tamper((p) => (p.nonce = "00".repeat(32)));
    expect(renonced.checks.at(-1)!.check).toBe("binding");
  });

  it("refuses a proof checked as another account than the one its leaves are bound to", async () => {
    const t = await tree(sample(9));
    const r = await verifyProof(proofFor(t, 4), account(5));
    expect(r.ok).toBe(false);
    expect(r.checks.at(-1)).toMatchObject({ check: "binding", ok: false });
    expect((await verifyProof(proofFor(t, 4), "")).checks.at(-1)!.check).toBe("format");
  });

  it("sums the user's two leaves into their balances", async () => {
    const b = sample(6);
    const p = proofFor(await tree(b), 3);
    expect(proofBalances(p)).toEqual(formatSums(b[3]!.map((v) => TREE_UNITS * v), currencies));
  });

  it("says why a malformed proof cannot be read, without throwing", async () => {
    const good = proofFor(await tree(sample(4)), 1);
    for (const bad of [
      null,
      {},
      { ...good, version: 1 },
      { ...good, leaves: [good.leaves[0]] },
      { ...good, leaves: [good.leaves[0], good.leaves[0]] },
      { ...good, leaves: [{ ...good.leaves[0], balances: ["-1", "0", "0"] }, good.leaves[1]] },
      { ...good, leaves: [{ ...good.leaves[0], balances: ["0.00000000001", "0", "0"] }, good.leaves[1]] },
      { ...good, root: { ...good.root, hash: "xyz" } },
    ]) {
      const r = await verifyProof(bad, account(1));
      expect(r.ok).toBe(false);
      expect(r.checks.at(-1)!.check).toBe("format");
    }
    const l0 = good.leaves[0]!;
    const r = await verifyProof({ ...good, leaves: [{ ...l0, path: [{ side: "up", hash: l0.path[0]!.hash, sums: l0.path[0]!.sums }] }, good.leaves[1]] }, account(1));
    expect(r.checks.at(-1)).toMatchObject({ check: "path", ok: false });
  });

  it("compares the proof with the published root and totals when given them", async () => {
    const p = proofFor(await tree(sample(6)), 2);
    const published = { id: SNAPSHOT, root_hash: p.root.hash, totals: currencies.map((c, i) => ({ currency: c.name, total: p.root.sums[i]! })) };
    expect((await verifyProof(p, account(2), published)).ok).toBe(true);
    const other = await verifyProof(p, account(2), { ...published, totals: published.totals.map((t) => (t.currency === "USDT" ? { ...t, total: "0.5" } : t)) });
    expect(other.checks.at(-1)).toMatchObject({ check: "published", ok: false });
    expect((await verifyProof(p, account(2), { ...published, root_hash: "ab".repeat(32) })).ok).toBe(false);
  });
});

describe("npm run verify-liabilities", () => {
  const run = (...args: string[]) =>
    new Promise<{ code: number; out: string }>((resolve) => {
      execFile(process.execPath, ["scripts/verify-liabilities.mjs", ...args], (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }));
    });

  it("prints what it checked and exits 0 on a good proof for its account, non-zero on a tampered one or another account", async () => {
    const t = await tree(sample(11));
    const dir = mkdtempSync(join(tmpdir(), "liab-"));
    const good = proofFor(t, 3);
    writeFileSync(join(dir, "good.json"), JSON.stringify(good));
    const bad = structuredClone(good);
    bad.leaves[0]!.balances[1] = "1000000";
    writeFileSync(join(dir, "bad.json"), JSON.stringify(bad));
    const ok = await run(join(dir, "good.json"), "--account", account(3));
    expect(ok.out).toContain("VERIFIED");
    expect(ok.out).toMatch(/ok\s+binding/);
    expect(ok.out).toMatch(/ok\s+root_hash/);
    expect(ok.code).toBe(0);
    const no = await run(join(dir, "bad.json"), "--account", account(3));
    expect(no.out).toMatch(/FAIL\s+root_hash/);
    expect(no.code).toBe(1);
    const other = await run(join(dir, "good.json"), "--account", account(4));
    expect(other.out).toMatch(/FAIL\s+binding/);
    expect(other.code).toBe(1);
    // Without an account the binding cannot be checked: a usage error.
    expect((await run(join(dir, "good.json"))).code).toBe(2);
    // Four Node processes: the bound only catches a hang on a loaded machine.
  }, 60_000);
});
