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
  buildLevels,
  formatSums,
  leafNode,
  levelCounts,
  parentNode,
  pathPositions,
  toHex,
  verifyProof,
  type LiabilityProof,
  type ProofCurrency,
  type TreeNode,
} from "../../schemas/liabilities.ts";

const currencies: ProofCurrency[] = [
  { name: "BTC", scale: 8 },
  { name: "USDT", scale: 6 },
  { name: "DOGE", scale: 0 },
];

function nonce(i: number): Uint8Array {
  const n = new Uint8Array(32);
  new DataView(n.buffer).setUint32(0, i * 2654435761);
  n[31] = i & 0xff;
  return n;
}

async function tree(balances: bigint[][]) {
  const leaves = await Promise.all(balances.map((b, i) => leafNode(nonce(i), b)));
  return buildLevels(leaves);
}

function proofFor(levels: TreeNode[][], index: number, balances: bigint[]): LiabilityProof {
  const root = levels[levels.length - 1]![0]!;
  return {
    version: PROOF_VERSION,
    snapshot_id: 7,
    taken_at: 0,
    currencies,
    leaf: { nonce: toHex(nonce(index)), balances: formatSums(balances, currencies) },
    path: pathPositions(index, levels[0]!.length).map((p) => {
      const n = levels[p.level]![p.index]!;
      return { side: p.side, hash: toHex(n.hash), sums: formatSums(n.sums, currencies) };
    }),
    root: { hash: toHex(root.hash), sums: formatSums(root.sums, currencies) },
    user_count: levels[0]!.length,
  };
}

const sample = (n: number) => Array.from({ length: n }, (_, i) => [BigInt(i * 12345) % 100000000n, BigInt(i % 5) * 1_000_000n, i % 7 === 0 ? 0n : BigInt(i)]);

describe("the Merkle-sum tree", () => {
  it("has a root whose sums are the totals of every leaf, for any number of leaves", async () => {
    for (const n of [1, 2, 3, 5, 8, 13, 33]) {
      const b = sample(n);
      const levels = await tree(b);
      expect(levels.map((l) => l.length)).toEqual(levelCounts(n));
      const root = levels[levels.length - 1]![0]!;
      expect(root.sums).toEqual([0, 1, 2].map((j) => b.reduce((s, row) => s + row[j]!, 0n)));
    }
  });

  it("gives every leaf a path that verifies, including the odd last leaf carried up", async () => {
    const b = sample(13);
    const levels = await tree(b);
    for (let i = 0; i < 13; i++) {
      const r = await verifyProof(proofFor(levels, i, b[i]!));
      expect(r.ok, `leaf ${i}: ${JSON.stringify(r.checks)}`).toBe(true);
    }
    // Leaf 12 is alone at level 0 (13 leaves): its path has no sibling there.
    expect(pathPositions(12, 13)[0]!.level).toBeGreaterThan(0);
  });

  it("refuses a negative balance in a leaf", async () => {
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

  it("depends on the nonce: the same balances under another nonce make another leaf", async () => {
    const x = await leafNode(nonce(1), [1n, 2n, 3n]);
    const y = await leafNode(nonce(2), [1n, 2n, 3n]);
    expect(toHex(x.hash)).not.toBe(toHex(y.hash));
  });
});

describe("the verifier", () => {
  it("fails a proof with one balance changed, a sibling's sum changed, a side swapped or the totals changed", async () => {
    const b = sample(9);
    const levels = await tree(b);
    const good = proofFor(levels, 4, b[4]!);
    expect((await verifyProof(good)).ok).toBe(true);
    const tamper = (f: (p: LiabilityProof) => void) => {
      const p = structuredClone(good);
      f(p);
      return verifyProof(p);
    };
    const balance = await tamper((p) => (p.leaf.balances[0] = "1"));
    expect(balance.ok).toBe(false);
    expect(balance.checks.at(-1)!.check).toBe("root_hash");
    expect((await tamper((p) => (p.path[1]!.sums[1] = "999"))).ok).toBe(false);
    expect((await tamper((p) => (p.path[0]!.side = p.path[0]!.side === "left" ? "right" : "left"))).ok).toBe(false);
    const totals = await tamper((p) => (p.root.sums[2] = "1"));
    expect(totals.checks.at(-1)!.check).toBe("root_sums");
    expect((await tamper((p) => (p.leaf.nonce = "00".repeat(32)))).ok).toBe(false);
  });

  it("says why a malformed proof cannot be read, without throwing", async () => {
    const levels = await tree(sample(4));
    const good = proofFor(levels, 1, sample(4)[1]!);
    for (const bad of [null, {}, { ...good, version: 2 }, { ...good, leaf: { ...good.leaf, balances: ["-1", "0", "0"] } }, { ...good, leaf: { ...good.leaf, balances: ["0.000000001", "0", "0"] } }, { ...good, root: { ...good.root, hash: "xyz" } }]) {
      const r = await verifyProof(bad);
      expect(r.ok).toBe(false);
      expect(r.checks.at(-1)!.check).toBe("format");
    }
    const r = await verifyProof({ ...good, path: [{ side: "up", hash: good.path[0]!.hash, sums: good.path[0]!.sums }] });
    expect(r.checks.at(-1)).toMatchObject({ check: "path", ok: false });
  });

  it("compares the proof with the published root and totals when given them", async () => {
    const b = sample(6);
    const levels = await tree(b);
    const p = proofFor(levels, 2, b[2]!);
    const published = { id: 7, root_hash: p.root.hash, totals: currencies.map((c, i) => ({ currency: c.name, total: p.root.sums[i]! })) };
    expect((await verifyProof(p, published)).ok).toBe(true);
    const other = await verifyProof(p, { ...published, totals: published.totals.map((t) => (t.currency === "USDT" ? { ...t, total: "0.5" } : t)) });
    expect(other.checks.at(-1)).toMatchObject({ check: "published", ok: false });
    expect((await verifyProof(p, { ...published, root_hash: "ab".repeat(32) })).ok).toBe(false);
  });
});

describe("npm run verify-liabilities", () => {
  const run = (file: string) =>
    new Promise<{ code: number; out: string }>((resolve) => {
      execFile(process.execPath, ["scripts/verify-liabilities.mjs", file], (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }));
    });

  it("prints what it checked and exits 0 on a good proof, non-zero on a tampered one", async () => {
    const b = sample(11);
    const levels = await tree(b);
    const dir = mkdtempSync(join(tmpdir(), "liab-"));
    const good = proofFor(levels, 3, b[3]!);
    writeFileSync(join(dir, "good.json"), JSON.stringify(good));
    const bad = structuredClone(good);
    bad.leaf.balances[1] = "1000000";
    writeFileSync(join(dir, "bad.json"), JSON.stringify(bad));
    const ok = await run(join(dir, "good.json"));
    expect(ok.out).toContain("VERIFIED");
    expect(ok.out).toMatch(/ok\s+root_hash/);
    expect(ok.code).toBe(0);
    const no = await run(join(dir, "bad.json"));
    expect(no.out).toMatch(/FAIL\s+root_hash/);
    expect(no.code).toBe(1);
  });
});
