/**
 * Proof of liabilities (issue #20 §2): the Merkle-sum tree's hashing and the proof verifier, pure
 * TypeScript (WebCrypto SHA-256, bigint; no zod, nothing of ours outside schemas/). The same code
 * builds the tree in the worker's daily job, verifies a proof in the browser, and verifies a
 * downloaded proof.json offline (`npm run verify-liabilities -- proof.json`).
 *
 * The tree, per snapshot, over the snapshot's currencies in a fixed order (their ids ascending):
 *   sums      one non-negative integer per currency, in the currency's minimal units;
 *   enc(s)    each sum as 16 bytes, unsigned big-endian (so no amount can be read two ways);
 *   leaf      hash = SHA-256(0x00 ‖ nonce (32 bytes) ‖ enc(balances)), sums = balances: one user's
 *             available + frozen over every account, i.e. every hold. No user id goes in; the nonce
 *             is secret to the user (the server derives it, see worker/domain/transparency/), so
 *             a leaf hash says nothing about whose balances they are or what they are;
 *   node      hash = SHA-256(0x01 ‖ left.hash ‖ enc(left.sums) ‖ right.hash ‖ enc(right.sums)),
 *             sums = left.sums + right.sums. A sibling's sums are inside its parent's hash, so a
 *             proof cannot shift money between siblings without changing the root;
 *   levels    leaves in the snapshot's order; each level pairs nodes (0,1), (2,3), …; an odd last
 *             node is carried up unchanged (no sibling at that level, no path entry);
 *   root      the single node of the top level: its hash and sums are published (the sums are
 *             the per-currency totals of liabilities);
 *   empty     a snapshot with no user (an exchange before its first balance) publishes the root
 *             hash = SHA-256(0x02 ‖ enc(zeros)), sums = zeros: well defined, distinct from any
 *             leaf or node, and no proof leads to it.
 */
import { formatUnits, parseUnits } from "./decimal.ts";

export const PROOF_VERSION = 1;

/** A node of the tree: its hash (32 bytes) and its per-currency sums (minimal units). */
export interface TreeNode {
  hash: Uint8Array;
  sums: bigint[];
}

export interface ProofCurrency {
  name: string;
  /** decimals of the currency's minimal unit */
  scale: number;
}

/** One step up the path: the sibling's hash and sums, and which side of the pair it sits on. */
export interface ProofStep {
  side: "left" | "right";
  hash: string;
  /** decimal strings, one per currency of the proof */
  sums: string[];
}

/** A user's proof of inclusion (GET /api/transparency/liabilities/proof, and the proof.json file). */
export interface LiabilityProof {
  version: number;
  snapshot_id: number;
  /** when the balances were taken (epoch ms) */
  taken_at: number;
  currencies: ProofCurrency[];
  leaf: { nonce: string; balances: string[] };
  path: ProofStep[];
  root: { hash: string; sums: string[] };
  user_count: number;
}

/** The published totals, when the verifier also compares against them (GET /api/transparency/liabilities). */
export interface PublishedRoot {
  id: number;
  root_hash: string;
  totals: { currency: string; total: string }[];
}

const TAG_LEAF = 0;
const TAG_NODE = 1;
const TAG_EMPTY = 2;
const SUM_BYTES = 16;
const MAX_SUM = (1n << 128n) - 1n;
const MASK64 = (1n << 64n) - 1n;

export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += (bytes[i]! < 16 ? "0" : "") + bytes[i]!.toString(16);
  return s;
}

export function fromHex(hex: string): Uint8Array | null {
  if (!/^(?:[0-9a-f]{2})*$/.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Writes `sums` at `offset` as 16-byte big-endian unsigned integers; throws on a negative or oversized sum. */
function putSums(view: DataView, offset: number, sums: readonly bigint[]): number {
  for (const s of sums) {
    if (s < 0n || s > MAX_SUM) throw new RangeError(`sum out of range: ${s}`);
    view.setBigUint64(offset, s >> 64n);
    view.setBigUint64(offset + 8, s & MASK64);
    offset += SUM_BYTES;
  }
  return offset;
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

/** The leaf of one user: SHA-256(0x00 ‖ nonce ‖ enc(balances)). Throws on a negative balance. */
export async function leafNode(nonce: Uint8Array, balances: readonly bigint[]): Promise<TreeNode> {
  if (nonce.length !== 32) throw new RangeError("nonce must be 32 bytes");
  const buf = new Uint8Array(1 + 32 + balances.length * SUM_BYTES);
  buf[0] = TAG_LEAF;
  buf.set(nonce, 1);
  putSums(new DataView(buf.buffer), 33, balances);
  return { hash: await sha256(buf), sums: [...balances] };
}

/** The parent of two nodes: SHA-256(0x01 ‖ left.hash ‖ enc(left.sums) ‖ right.hash ‖ enc(right.sums)). */
export async function parentNode(left: TreeNode, right: TreeNode): Promise<TreeNode> {
  const k = left.sums.length;
  if (right.sums.length !== k) throw new RangeError("sums of different lengths");
  const buf = new Uint8Array(1 + 2 * (32 + k * SUM_BYTES));
  const view = new DataView(buf.buffer);
  buf[0] = TAG_NODE;
  buf.set(left.hash, 1);
  const o = putSums(view, 33, left.sums);
  buf.set(right.hash, o);
  putSums(view, o + 32, right.sums);
  const sums = left.sums.map((s, i) => s + right.sums[i]!);
  return { hash: await sha256(buf), sums };
}

/** The root of a tree with no leaves over `currencies` currencies: SHA-256(0x02 ‖ enc(zeros)), zero sums. */
export async function emptyRoot(currencies: number): Promise<TreeNode> {
  const sums = Array.from({ length: currencies }, () => 0n);
  const buf = new Uint8Array(1 + currencies * SUM_BYTES);
  buf[0] = TAG_EMPTY;
  putSums(new DataView(buf.buffer), 1, sums);
  return { hash: await sha256(buf), sums };
}

/** The next level up: pairs (0,1), (2,3), …; an odd last node is carried up unchanged. */
export async function levelUp(nodes: readonly TreeNode[]): Promise<TreeNode[]> {
  const out: Promise<TreeNode>[] = [];
  for (let i = 0; i + 1 < nodes.length; i += 2) out.push(parentNode(nodes[i]!, nodes[i + 1]!));
  const up = await Promise.all(out);
  if (nodes.length % 2 === 1) up.push(nodes[nodes.length - 1]!);
  return up;
}

/** Every level from the leaves up to the root (levels[0] = leaves, last = [root]). */
export async function buildLevels(leaves: readonly TreeNode[]): Promise<TreeNode[][]> {
  if (leaves.length === 0) throw new RangeError("a tree needs at least one leaf");
  const levels: TreeNode[][] = [[...leaves]];
  while (levels[levels.length - 1]!.length > 1) levels.push(await levelUp(levels[levels.length - 1]!));
  return levels;
}

/** Node counts per level for `n` leaves (counts[0] = n, last = 1). */
export function levelCounts(n: number): number[] {
  const counts = [n];
  while (counts[counts.length - 1]! > 1) counts.push(Math.ceil(counts[counts.length - 1]! / 2));
  return counts;
}

/**
 * Where the siblings of leaf `index` are: one entry per level that has a sibling (an odd last node
 * has none there), with the sibling's index at that level and its side.
 */
export function pathPositions(index: number, n: number): { level: number; index: number; side: "left" | "right" }[] {
  const counts = levelCounts(n);
  const out: { level: number; index: number; side: "left" | "right" }[] = [];
  let i = index;
  for (let level = 0; level < counts.length - 1; level++) {
    const sib = i ^ 1;
    if (sib < counts[level]!) out.push({ level, index: sib, side: sib < i ? "left" : "right" });
    i = i >> 1;
  }
  return out;
}

// ——— verification ———

export interface ProofCheck {
  /** a stable id of what was checked (the app translates it; the script prints it) */
  check: "format" | "leaf" | "path" | "root_hash" | "root_sums" | "published";
  ok: boolean;
  detail: string;
}

export interface ProofResult {
  ok: boolean;
  checks: ProofCheck[];
  /** the recomputed root hash (hex), when the proof could be read at all */
  root_hash?: string;
}

function amountsOf(values: unknown, currencies: ProofCurrency[], what: string): bigint[] {
  if (!Array.isArray(values) || values.length !== currencies.length) throw new Error(`${what}: expected ${currencies.length} amounts`);
  return values.map((v, i) => {
    const u = typeof v === "string" ? parseUnits(v, currencies[i]!.scale) : null;
    if (u === null) throw new Error(`${what}: "${String(v)}" is not a non-negative ${currencies[i]!.name} amount with at most ${currencies[i]!.scale} decimals`);
    return u;
  });
}

function hashOf(value: unknown, what: string): Uint8Array {
  const h = typeof value === "string" ? fromHex(value) : null;
  if (!h || h.length !== 32) throw new Error(`${what}: not a 64-character hex SHA-256`);
  return h;
}

export const formatSums = (sums: readonly bigint[], currencies: readonly ProofCurrency[]): string[] =>
  sums.map((s, i) => trimDecimal(formatUnits(s, currencies[i]!.scale)));

const trimDecimal = (s: string) => (s.includes(".") ? s.replace(/\.?0+$/, "") : s);

/**
 * Verifies a proof: recomputes the leaf from the nonce and balances, folds the path up to a root
 * and compares it with the proof's root hash and sums, and, when `published` is given, with the
 * published root and totals. Never throws: anything unreadable is a failed check.
 */
export async function verifyProof(proof: unknown, published?: PublishedRoot): Promise<ProofResult> {
  const checks: ProofCheck[] = [];
  const fail = (check: ProofCheck["check"], detail: string): ProofResult => ({ ok: false, checks: [...checks, { check, ok: false, detail }] });
  const p = proof as LiabilityProof;
  let currencies: ProofCurrency[];
  let balances: bigint[];
  let nonce: Uint8Array;
  let rootHash: Uint8Array;
  let rootSums: bigint[];
  try {
    if (!p || typeof p !== "object") throw new Error("not a proof object");
    if (p.version !== PROOF_VERSION) throw new Error(`unknown proof version ${String(p.version)}`);
    if (!Array.isArray(p.currencies) || p.currencies.length === 0) throw new Error("no currencies");
    currencies = p.currencies.map((c) => {
      if (typeof c?.name !== "string" || !Number.isInteger(c.scale) || c.scale < 0 || c.scale > 18) throw new Error("bad currency");
      return { name: c.name, scale: c.scale };
    });
    nonce = hashOf(p.leaf?.nonce, "leaf nonce");
    balances = amountsOf(p.leaf?.balances, currencies, "leaf balances");
    rootHash = hashOf(p.root?.hash, "root hash");
    rootSums = amountsOf(p.root?.sums, currencies, "root sums");
    if (!Array.isArray(p.path) || p.path.length > 64) throw new Error("path: not a list of at most 64 steps");
  } catch (err) {
    return fail("format", (err as Error).message);
  }
  checks.push({ check: "format", ok: true, detail: `snapshot ${p.snapshot_id}, ${currencies.length} currencies, ${p.path.length} path steps` });

  let node = await leafNode(nonce, balances);
  checks.push({
    check: "leaf",
    ok: true,
    detail: `leaf ${toHex(node.hash)} = SHA-256(0x00 ‖ nonce ‖ ${formatSums(balances, currencies).map((a, i) => `${a} ${currencies[i]!.name}`).join(", ")})`,
  });
  for (let i = 0; i < p.path.length; i++) {
    const step = p.path[i]!;
    let sibling: TreeNode;
    try {
      if (step?.side !== "left" && step?.side !== "right") throw new Error(`step ${i + 1}: side must be "left" or "right"`);
      sibling = { hash: hashOf(step.hash, `step ${i + 1} hash`), sums: amountsOf(step.sums, currencies, `step ${i + 1} sums`) };
    } catch (err) {
      return fail("path", (err as Error).message);
    }
    node = step.side === "left" ? await parentNode(sibling, node) : await parentNode(node, sibling);
  }
  checks.push({ check: "path", ok: true, detail: `${p.path.length} siblings folded, every sum non-negative` });

  const computed = toHex(node.hash);
  const expected = toHex(rootHash);
  if (computed !== expected) return { ...fail("root_hash", `computed root ${computed} is not the proof's root ${expected}`), root_hash: computed };
  checks.push({ check: "root_hash", ok: true, detail: `root ${computed}` });
  const sumsOk = node.sums.every((s, i) => s === rootSums[i]);
  if (!sumsOk) return { ...fail("root_sums", `computed totals ${formatSums(node.sums, currencies).join(", ")} are not the proof's ${formatSums(rootSums, currencies).join(", ")}`), root_hash: computed };
  checks.push({ check: "root_sums", ok: true, detail: formatSums(node.sums, currencies).map((a, i) => `${a} ${currencies[i]!.name}`).join(", ") });

  if (published) {
    const problems: string[] = [];
    if (published.id !== p.snapshot_id) problems.push(`published snapshot is ${published.id}, the proof is of ${p.snapshot_id}`);
    if (published.root_hash !== computed) problems.push(`published root ${published.root_hash} is not ${computed}`);
    const byName = new Map(published.totals.map((t) => [t.currency, t.total]));
    currencies.forEach((c, i) => {
      const total = byName.get(c.name);
      const units = total === undefined ? null : parseUnits(total, c.scale);
      if (units !== node.sums[i]) problems.push(`published ${c.name} total ${total ?? "missing"} is not ${formatSums([node.sums[i]!], [c])[0]}`);
    });
    if (problems.length > 0) return { ...fail("published", problems.join("; ")), root_hash: computed };
    checks.push({ check: "published", ok: true, detail: `matches the published snapshot ${published.id}` });
  }
  return { ok: true, checks, root_hash: computed };
}
