/**
 * Proof of liabilities (issue #20 §2, issue #26): the Merkle-sum tree's hashing, the leaves'
 * layout and the proof verifier, pure TypeScript (WebCrypto SHA-256, bigint; no zod, nothing of
 * ours outside schemas/). The same code builds the tree in the worker's daily job, verifies a proof
 * in the browser, and verifies a downloaded proof.json offline (`npm run verify-liabilities`).
 *
 * The tree, per snapshot, over the snapshot's currencies in a fixed order (their ids ascending):
 *   units     tree amounts are in hundredths of each currency's minimal unit (the proof's `scale`
 *             is the currency's decimals + 2), so every user's balance is a multiple of 100 there;
 *   enc(s)    each amount as 16 bytes, unsigned big-endian (so no amount can be read two ways);
 *   users     every user owed something (a positive balance in some currency) gets a rank r in a
 *             secret shuffle drawn anew for each snapshot (never published, never derivable);
 *   leaves    each user's balances are split into two leaves with random shares (part 0 and
 *             part 1, both non-negative, summing exactly to the user's balances), placed at
 *             2r+1 and 2r+2 (the last user: 2N-1 and 0), so one user's two leaves are never
 *             siblings, and every node below the root holds a share of a user whose other share is
 *             outside it. Part 0 carries, over the sum of its amounts, a residue mod 100 chosen by
 *             its place (residueOf): the prefix sums of the leaves then have, at every node's edges,
 *             residues that differ, so NO node below the root sums to a multiple of 100 in every
 *             currency: no sibling anyone is shown ever equals a user's balances;
 *   binding   SHA-256(0x03 ‖ nonce (32 bytes) ‖ snapshot id (8 bytes) ‖ part (1 byte) ‖ the
 *             user's account in UTF-8, lower-case): the nonce is served only to its user, and the
 *             account is theirs, so a leaf can be claimed by one account only and the user checks it;
 *   leaf      hash = SHA-256(0x00 ‖ binding ‖ enc(amounts)), sums = amounts. No user id goes in;
 *   node      hash = SHA-256(0x01 ‖ left.hash ‖ enc(left.sums) ‖ right.hash ‖ enc(right.sums)),
 *             sums = left.sums + right.sums. A sibling's sums are inside its parent's hash, so a
 *             proof cannot shift money between siblings without changing the root;
 *   levels    leaves in index order; each level pairs nodes (0,1), (2,3), …; an odd last node is
 *             carried up unchanged (no sibling at that level, no path entry);
 *   root      the single node of the top level: its hash and sums are published (the sums are
 *             the per-currency totals of liabilities, ×100);
 *   empty     a snapshot with no user (an exchange before its first balance) publishes the root
 *             hash = SHA-256(0x02 ‖ enc(zeros)), sums = zeros: well defined, distinct from any
 *             leaf or node, and no proof leads to it.
 */
import { formatUnits, parseUnits } from "./decimal.ts";

export const PROOF_VERSION = 2;

const DAY_MS = 86_400_000;

/** When the daily job takes the next snapshot after `now` (epoch ms): the next 00:00 UTC. */
export const nextSnapshotAt = (now: number): number => Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;

/** Tree amounts per minimal unit of a currency (two more decimals): see "units" above. */
export const TREE_UNITS = 100n;
/** The decimals the tree adds to a currency's own. */
export const TREE_EXTRA_DECIMALS = 2;

/** A node of the tree: its hash (32 bytes) and its per-currency sums (tree units). */
export interface TreeNode {
  hash: Uint8Array;
  sums: bigint[];
}

export interface ProofCurrency {
  name: string;
  /** decimals of the tree's amounts: the currency's own decimals + 2 */
  scale: number;
}

/** One step up the path: the sibling's hash and sums, and which side of the pair it sits on. */
export interface ProofStep {
  side: "left" | "right";
  hash: string;
  /** decimal strings, one per currency of the proof */
  sums: string[];
}

/** One of the user's two leaves: which part, its binding, its amounts and its path to the root. */
export interface ProofLeaf {
  part: 0 | 1;
  /** SHA-256(0x03 ‖ nonce ‖ snapshot id ‖ part ‖ account): the verifier recomputes it from the account */
  binding: string;
  /** decimal strings, one per currency of the proof */
  balances: string[];
  path: ProofStep[];
}

/** A user's proof of inclusion (GET /api/transparency/liabilities/proof, and the proof.json file). */
export interface LiabilityProof {
  version: number;
  snapshot_id: number;
  /** when the balances were taken (epoch ms) */
  taken_at: number;
  currencies: ProofCurrency[];
  /** the user's secret for this snapshot (32 bytes, hex): it goes into both leaves' bindings */
  nonce: string;
  leaves: ProofLeaf[];
  root: { hash: string; sums: string[] };
  user_count: number;
  leaf_count: number;
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
const TAG_BINDING = 3;
const TAG_SPLIT = 4;
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

/** A leaf: SHA-256(0x00 ‖ binding ‖ enc(amounts)). Throws on a negative amount. */
export async function leafNode(binding: Uint8Array, amounts: readonly bigint[]): Promise<TreeNode> {
  if (binding.length !== 32) throw new RangeError("binding must be 32 bytes");
  const buf = new Uint8Array(1 + 32 + amounts.length * SUM_BYTES);
  buf[0] = TAG_LEAF;
  buf.set(binding, 1);
  putSums(new DataView(buf.buffer), 33, amounts);
  return { hash: await sha256(buf), sums: [...amounts] };
}

/** An account as the exchange stores it and binds leaves to it: trimmed, lower-case. */
export const bindingAccount = (account: string) => account.trim().toLowerCase();

/**
 * The binding of one of a user's leaves: SHA-256(0x03 ‖ nonce ‖ snapshot id (8 bytes, big-endian)
 * ‖ part (1 byte) ‖ account (UTF-8, trimmed, lower-case)). The account goes last, so nothing
 * before it can be read two ways.
 */
export async function bindingOf(nonce: Uint8Array, snapshotId: number, part: 0 | 1, account: string): Promise<Uint8Array> {
  if (nonce.length !== 32) throw new RangeError("nonce must be 32 bytes");
  const acct = new TextEncoder().encode(bindingAccount(account));
  const buf = new Uint8Array(1 + 32 + 8 + 1 + acct.length);
  buf[0] = TAG_BINDING;
  buf.set(nonce, 1);
  new DataView(buf.buffer).setBigUint64(33, BigInt(snapshotId));
  buf[41] = part;
  buf.set(acct, 42);
  return sha256(buf);
}

/** Where the user of rank `rank` (of `users`) has their two leaves: [part 0, part 1]. */
export function leafPlaces(rank: number, users: number): [number, number] {
  if (!Number.isInteger(rank) || rank < 0 || rank >= users) throw new RangeError(`rank ${rank} of ${users}`);
  return rank < users - 1 ? [2 * rank + 1, 2 * rank + 2] : [2 * users - 1, 0];
}

/** Whose part a leaf index is: the inverse of leafPlaces. */
export function leafOwner(index: number, users: number): { rank: number; part: 0 | 1 } {
  if (!Number.isInteger(index) || index < 0 || index >= 2 * users) throw new RangeError(`leaf ${index} of ${2 * users}`);
  if (index === 0) return { rank: users - 1, part: 1 };
  return { rank: (index - 1) >> 1, part: (index - 1) % 2 === 0 ? 0 : 1 };
}

const trailingZeros = (n: number) => {
  let z = 0;
  while (n % 2 === 0) {
    n /= 2;
    z++;
  }
  return z;
};

/**
 * The residue mod 100 that part 0 of the user of rank `rank` carries over the sum of its amounts
 * (part 1 carries its negative). With it, the prefix sum of the leaves before index i is ≡ 1 +
 * (trailing zeros of i) for 0 < i < 2N, and ≡ 0 at 0 and 2N. The two edges of any node below the
 * root (j·2^l and (j+1)·2^l, or the tree's end) have different trailing zeros, so the node's sum is
 * not ≡ 0: not a multiple of 100 in every currency, so never one user's balances.
 */
export function residueOf(rank: number, users: number): bigint {
  return rank < users - 1 ? BigInt(1 + trailingZeros(rank + 1)) : TREE_UNITS - 1n;
}

/** A uniform-enough draw in [0, n) from the split stream of `nonce` (SHA-256(0x04 ‖ nonce ‖ i)). */
async function draw(nonce: Uint8Array, i: number, n: bigint): Promise<bigint> {
  if (n <= 1n) return 0n;
  const buf = new Uint8Array(1 + 32 + 4);
  buf[0] = TAG_SPLIT;
  buf.set(nonce, 1);
  new DataView(buf.buffer).setUint32(33, i);
  const h = await sha256(buf);
  let x = 0n;
  for (const b of h) x = (x << 8n) | BigInt(b);
  return x % n;
}

/**
 * Splits a user's balances (minimal units, none negative, at least one positive) into their two
 * leaves' amounts (tree units): both non-negative, summing to exactly 100 × balances. In the first
 * currency held, part 0 gets 100·a + residue (a random in [0, balance − 1]), so both parts are
 * positive there; in every other currency held, part 0 gets 100·a (a random in [0, balance]).
 * The randomness comes from the user's nonce, so the job and a proof compute the same split.
 */
export async function splitBalances(balances: readonly bigint[], residue: bigint, nonce: Uint8Array): Promise<[bigint[], bigint[]]> {
  if (residue <= 0n || residue >= TREE_UNITS) throw new RangeError(`residue ${residue}`);
  const marker = balances.findIndex((b) => b > 0n);
  if (marker < 0 || balances.some((b) => b < 0n)) throw new RangeError("a split needs non-negative balances, one of them positive");
  const part0: bigint[] = [];
  for (let i = 0; i < balances.length; i++) {
    const b = balances[i]!;
    if (b === 0n) part0.push(0n);
    else if (i === marker) part0.push(TREE_UNITS * (await draw(nonce, i, b)) + residue);
    else part0.push(TREE_UNITS * (await draw(nonce, i, b + 1n)));
  }
  return [part0, balances.map((b, i) => TREE_UNITS * b - part0[i]!)];
}

/** One user's two leaves in a snapshot: their places, bindings and nodes (part 0 first). */
export async function userLeaves(
  u: { snapshotId: number; rank: number; users: number; nonce: Uint8Array; account: string; balances: readonly bigint[] },
): Promise<{ index: number; part: 0 | 1; binding: Uint8Array; node: TreeNode }[]> {
  const places = leafPlaces(u.rank, u.users);
  const shares = await splitBalances(u.balances, residueOf(u.rank, u.users), u.nonce);
  return Promise.all(
    ([0, 1] as const).map(async (part) => {
      const binding = await bindingOf(u.nonce, u.snapshotId, part, u.account);
      return { index: places[part], part, binding, node: await leafNode(binding, shares[part]) };
    }),
  );
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
  check: "format" | "binding" | "leaf" | "path" | "root_hash" | "root_sums" | "published";
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

const listAmounts = (sums: readonly bigint[], currencies: readonly ProofCurrency[]) =>
  formatSums(sums, currencies)
    .map((a, i) => `${a} ${currencies[i]!.name}`)
    .join(", ");

/**
 * The user's balances in a proof: the sum of their leaves, per currency, as decimal strings (the
 * tree's amounts; a whole number of the currency's units in an honest proof). Null when unreadable.
 */
export function proofBalances(proof: LiabilityProof): string[] | null {
  try {
    const sums = proof.currencies.map(() => 0n);
    for (const l of proof.leaves) amountsOf(l.balances, proof.currencies, "leaf").forEach((v, i) => (sums[i]! += v));
    return formatSums(sums, proof.currencies);
  } catch {
    return null;
  }
}

/**
 * Verifies a proof for `account` (the account the person checking logs in with): recomputes each
 * leaf's binding from the nonce and that account (a proof bound to another account fails here),
 * each leaf from its binding and amounts, folds each leaf's path up to a root and compares it with
 * the proof's root hash and sums, and, when `published` is given, with the published root and
 * totals. Never throws: anything unreadable is a failed check.
 */
export async function verifyProof(proof: unknown, account: string, published?: PublishedRoot): Promise<ProofResult> {
  const checks: ProofCheck[] = [];
  const fail = (check: ProofCheck["check"], detail: string): ProofResult => ({ ok: false, checks: [...checks, { check, ok: false, detail }] });
  const p = proof as LiabilityProof;
  let currencies: ProofCurrency[];
  let nonce: Uint8Array;
  let rootHash: Uint8Array;
  let rootSums: bigint[];
  let leaves: { part: 0 | 1; binding: Uint8Array; amounts: bigint[]; path: ProofStep[] }[];
  try {
    if (!p || typeof p !== "object") throw new Error("not a proof object");
    if (p.version !== PROOF_VERSION) throw new Error(`unknown proof version ${String(p.version)}`);
    if (typeof account !== "string" || bindingAccount(account) === "") throw new Error("no account to check the binding against");
    if (!Array.isArray(p.currencies) || p.currencies.length === 0) throw new Error("no currencies");
    if (!Number.isSafeInteger(p.snapshot_id) || p.snapshot_id < 0) throw new Error("bad snapshot id");
    currencies = p.currencies.map((c) => {
      if (typeof c?.name !== "string" || !Number.isInteger(c.scale) || c.scale < 0 || c.scale > 30) throw new Error("bad currency");
      return { name: c.name, scale: c.scale };
    });
    nonce = hashOf(p.nonce, "nonce");
    if (!Array.isArray(p.leaves) || p.leaves.length !== 2) throw new Error("expected the user's two leaves");
    leaves = p.leaves.map((l, i) => {
      if (l?.part !== 0 && l?.part !== 1) throw new Error(`leaf ${i + 1}: part must be 0 or 1`);
      if (!Array.isArray(l.path) || l.path.length > 64) throw new Error(`leaf ${i + 1}: path is not a list of at most 64 steps`);
      return { part: l.part, binding: hashOf(l.binding, `leaf ${i + 1} binding`), amounts: amountsOf(l.balances, currencies, `leaf ${i + 1} balances`), path: l.path };
    });
    if (leaves[0]!.part === leaves[1]!.part) throw new Error("the two leaves must be parts 0 and 1");
    rootHash = hashOf(p.root?.hash, "root hash");
    rootSums = amountsOf(p.root?.sums, currencies, "root sums");
  } catch (err) {
    return fail("format", (err as Error).message);
  }
  checks.push({ check: "format", ok: true, detail: `snapshot ${p.snapshot_id}, ${currencies.length} currencies, 2 leaves with ${leaves.map((l) => l.path.length).join(" and ")} path steps` });

  const who = bindingAccount(account);
  for (const l of leaves) {
    const expected = await bindingOf(nonce, p.snapshot_id, l.part, who);
    if (toHex(expected) !== toHex(l.binding)) return fail("binding", `leaf ${l.part + 1} is not bound to ${who}: SHA-256(0x03 ‖ nonce ‖ snapshot ${p.snapshot_id} ‖ part ${l.part} ‖ "${who}") is ${toHex(expected)}, the proof says ${toHex(l.binding)}`);
  }
  checks.push({ check: "binding", ok: true, detail: `both leaves are bound to ${who} with this nonce` });

  const nodes: TreeNode[] = [];
  for (const l of leaves) nodes.push(await leafNode(l.binding, l.amounts));
  const mine = currencies.map((_, i) => leaves[0]!.amounts[i]! + leaves[1]!.amounts[i]!);
  checks.push({ check: "leaf", ok: true, detail: `leaves ${nodes.map((n) => toHex(n.hash)).join(" and ")}: together ${listAmounts(mine, currencies)}` });

  const roots: TreeNode[] = [];
  for (let k = 0; k < leaves.length; k++) {
    let node = nodes[k]!;
    const path = leaves[k]!.path;
    for (let i = 0; i < path.length; i++) {
      const step = path[i]!;
      let sibling: TreeNode;
      try {
        if (step?.side !== "left" && step?.side !== "right") throw new Error(`leaf ${k + 1}, step ${i + 1}: side must be "left" or "right"`);
        sibling = { hash: hashOf(step.hash, `leaf ${k + 1}, step ${i + 1} hash`), sums: amountsOf(step.sums, currencies, `leaf ${k + 1}, step ${i + 1} sums`) };
      } catch (err) {
        return fail("path", (err as Error).message);
      }
      node = step.side === "left" ? await parentNode(sibling, node) : await parentNode(node, sibling);
    }
    roots.push(node);
  }
  checks.push({ check: "path", ok: true, detail: `${leaves.map((l) => l.path.length).join(" + ")} siblings folded, every sum non-negative` });

  const expected = toHex(rootHash);
  const computed = toHex(roots[0]!.hash);
  for (const r of roots) {
    const h = toHex(r.hash);
    if (h !== expected) return { ...fail("root_hash", `computed root ${h} is not the proof's root ${expected}`), root_hash: h };
  }
  checks.push({ check: "root_hash", ok: true, detail: `root ${computed}` });
  const node = roots[0]!;
  const sumsOk = node.sums.every((s, i) => s === rootSums[i]);
  if (!sumsOk) return { ...fail("root_sums", `computed totals ${formatSums(node.sums, currencies).join(", ")} are not the proof's ${formatSums(rootSums, currencies).join(", ")}`), root_hash: computed };
  checks.push({ check: "root_sums", ok: true, detail: listAmounts(node.sums, currencies) });

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
