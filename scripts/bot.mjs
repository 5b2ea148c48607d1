#!/usr/bin/env node
/**
 * A trading bot's first steps with an API key (issue #29): it places a limit buy on a spot pair and
 * cancels it, signing every request; no password, no session. Make the key in the app
 * (Personal centre → Security → API keys, scopes "trade", and "read" to see open orders) and copy
 * its secret when it is shown, once.
 *
 *   node scripts/bot.mjs --url http://127.0.0.1:8787 --key hx... --secret ... [--pair 1:3] [--price 100] [--num 0.001]
 *   (or BOT_URL, BOT_API_KEY, BOT_API_SECRET in the environment)
 *
 * Without --price it bids 5 % under the best bid (inside the exchange's 10 % price band).
 *
 * Signing (also in GET /api/openapi.json, security schemes apiKey/apiTimestamp/apiSignature):
 *   X-API-KEY:       the key
 *   X-API-TIMESTAMP: now in milliseconds (the server refuses more than 5 s either way)
 *   X-API-SIGNATURE: lowercase hex HMAC-SHA256(secret, timestamp + METHOD + path with query + raw body)
 * Each signature is accepted once: a resent request needs a fresh timestamp.
 */
import { createHmac } from "node:crypto";

const args = new Map();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ""), process.argv[i + 1]);
const BASE = (args.get("url") ?? process.env.BOT_URL ?? "http://127.0.0.1:8787").replace(/\/$/, "");
const KEY = args.get("key") ?? process.env.BOT_API_KEY;
const SECRET = args.get("secret") ?? process.env.BOT_API_SECRET;
const [CURRENCY, LEGAL] = (args.get("pair") ?? "1:3").split(":").map(Number);
const NUM = args.get("num") ?? "0.001";

if (!KEY || !SECRET) {
  console.error("usage: node scripts/bot.mjs --url <base url> --key <api key> --secret <secret> [--pair 1:3] [--price P] [--num N]");
  process.exit(2);
}

let lastTimestamp = 0;

/** One signed request; answers the parsed JSON envelope. */
async function signed(method, path, body) {
  const raw = body === undefined ? "" : JSON.stringify(body);
  // Strictly increasing, so two requests in the same millisecond never share a signature.
  const timestamp = String((lastTimestamp = Math.max(Date.now(), lastTimestamp + 1)));
  const signature = createHmac("sha256", SECRET).update(timestamp + method + path + raw).digest("hex");
  const res = await fetch(BASE + path, {
    method,
    headers: {
      "x-api-key": KEY,
      "x-api-timestamp": timestamp,
      "x-api-signature": signature,
      lang: "en",
      ...(raw ? { "content-type": "application/json" } : {}),
    },
    body: raw || undefined,
    signal: AbortSignal.timeout(10_000),
  });
  return res.json();
}

/** 95 % of a decimal string, cut to its own decimals (no floating point). */
function fivePercentUnder(price) {
  const [int, frac = ""] = price.split(".");
  const units = (BigInt(int + frac) * 95n) / 100n;
  const s = units.toString().padStart(frac.length + 1, "0");
  return frac.length ? `${s.slice(0, -frac.length)}.${s.slice(-frac.length)}` : s;
}

async function main() {
  let price = args.get("price");
  if (!price) {
    const depth = await (await fetch(`${BASE}/api/currency/depth?currency_id=${CURRENCY}&legal_id=${LEGAL}`)).json();
    const bid = depth.message?.bids?.[0]?.[0];
    if (!bid) throw new Error("the book has no bids: give --price");
    price = fivePercentUnder(bid);
  }
  const placed = await signed("POST", "/api/transaction/walletIn", { currency_id: CURRENCY, legal_id: LEGAL, mode: 2, price, num: NUM });
  if (placed.type !== "ok") throw new Error(`order refused: ${placed.code}: ${placed.message}`);
  const id = placed.message.order_id;
  console.log(`placed order ${id}: buy ${NUM} at ${price} (${placed.message.status})`);

  const cancelled = await signed("POST", "/api/transaction_del", { id });
  if (cancelled.type !== "ok") throw new Error(`cancel refused: ${cancelled.code}: ${cancelled.message}`);
  console.log(`cancelled order ${id}`);
}

main().catch((err) => {
  console.error(String(err?.message ?? err));
  process.exit(1);
});
