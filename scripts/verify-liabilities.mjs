#!/usr/bin/env node
// `npm run verify-liabilities -- proof.json [--api https://exchange.example]`: verifies a proof of
// liabilities downloaded from the app (Assets → Proof of liabilities → Download proof.json) offline,
// with the same code the app runs (schemas/liabilities.ts): the leaf from your nonce and balances,
// every sibling on the path up to the root, and the root's hash and per-currency totals.
//
// Without --api the root it checks against is the one in the file (the root the exchange served
// with the proof). With --api it also fetches the published root and totals from that exchange
// (GET /api/transparency/liabilities) and checks that your proof leads to exactly those.
// Prints every check; exits 0 when all pass, 1 when any fails, 2 on a usage error.
import { readFileSync } from "node:fs";
import { verifyProof } from "../schemas/liabilities.ts";

const args = process.argv.slice(2);
const apiAt = args.indexOf("--api");
const api = apiAt >= 0 ? args[apiAt + 1] : undefined;
const file = args.find((a, i) => !a.startsWith("--") && (apiAt < 0 || i !== apiAt + 1));
if (!file || (apiAt >= 0 && !api)) {
  console.error("usage: npm run verify-liabilities -- proof.json [--api https://exchange.example]");
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

const result = await verifyProof(proof, published);
for (const c of result.checks) console.log(`${c.ok ? "ok  " : "FAIL"} ${c.check.padEnd(9)} ${c.detail}`);
if (result.ok) {
  const names = proof.currencies.map((c) => c.name);
  console.log(`VERIFIED: your balances (${proof.leaf.balances.map((b, i) => `${b} ${names[i]}`).join(", ")}) are included in snapshot ${proof.snapshot_id}'s totals`);
  process.exit(0);
}
console.log("NOT VERIFIED: this proof does not lead to the root");
process.exit(1);
