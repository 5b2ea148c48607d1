#!/usr/bin/env node
// `npm run verify-liabilities -- proof.json --account you@example.com [--api https://exchange.example]`:
// verifies a proof of liabilities downloaded from the app (personal centre → Proof of liabilities →
// Download proof.json) offline, with the same code the app runs (schemas/liabilities.ts): that both
// of your leaves are bound to YOUR account (from the nonce in the file and the account you type, so
// a proof made for someone else fails), each leaf from its binding and amounts, every sibling on the
// way up to the root, and the root's hash and per-currency totals.
//
// Without --api the root it checks against is the one in the file (the root the exchange served
// with the proof). With --api it also fetches the published root and totals from that exchange
// (GET /api/transparency/liabilities) and checks that your proof leads to exactly those.
// Prints every check; exits 0 when all pass, 1 when any fails, 2 on a usage error.
import { readFileSync } from "node:fs";
import { proofBalances, verifyProof } from "../schemas/liabilities.ts";

const args = process.argv.slice(2);
const valueOf = (flag) => {
  const i = args.indexOf(flag);
  return i >= 0 ? (args[i + 1] ?? "") : undefined;
};
const api = valueOf("--api");
const account = valueOf("--account");
const taken = new Set(["--api", "--account"].flatMap((f) => (args.includes(f) ? [args.indexOf(f), args.indexOf(f) + 1] : [])));
const file = args.find((a, i) => !a.startsWith("--") && !taken.has(i));
if (!file || api === "" || !account) {
  console.error("usage: npm run verify-liabilities -- proof.json --account <the account you log in with> [--api https://exchange.example]");
  process.exit(2);
}

let proof;
try {
  proof = JSON.parse(readFileSync(file, "utf8"));
} catch (err) {
  console.error(`cannot read ${file}: ${err.message}`);
  process.exit(2);
}

let published;
if (api) {
  const res = await fetch(new URL("/api/transparency/liabilities", api));
  const body = await res.json().catch(() => null);
  if (!res.ok || body?.type !== "ok") {
    console.error(`cannot fetch the published root from ${api}: HTTP ${res.status} ${body?.message ?? ""}`);
    process.exit(1);
  }
  published = body.message;
  console.log(`published root fetched from ${api}: snapshot ${published.id}, ${published.root_hash}`);
} else {
  console.log("checking against the root in the file (add --api <exchange URL> to compare with the published root too)");
}

const result = await verifyProof(proof, account, published);
for (const c of result.checks) console.log(`${c.ok ? "ok  " : "FAIL"} ${c.check.padEnd(9)} ${c.detail}`);
if (result.ok) {
  const names = proof.currencies.map((c) => c.name);
  const mine = proofBalances(proof) ?? [];
  console.log(`VERIFIED: your balances (${mine.map((b, i) => `${b} ${names[i]}`).join(", ")}), bound to ${account.trim().toLowerCase()}, are included in snapshot ${proof.snapshot_id}'s totals`);
  process.exit(0);
}
console.log("NOT VERIFIED: this proof is not bound to your account or does not lead to the root");
process.exit(1);
