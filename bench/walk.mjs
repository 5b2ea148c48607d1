#!/usr/bin/env node
/**
 * A new user's walk through every product's money flow with balances in the account objects
 * (issue #28's acceptance line "a fresh clone, walked as a new user: every product's money flow end
 * to end, balances exact"; docs/architecture/account-objects.md, "A fresh clone walked in objects
 * mode (session 17)"). On a fresh seeded state, cut over (ACCOUNTS=objects, the dev clock on), one
 * user signs up through the public /api the way the app does (captcha and e-mail code from the dev
 * outbox), is verified by an operator, deposits, trades spot (limit, market, a cancel, a maker fill
 * in two parts), converts, transfers, takes seconds contracts to expiry, opens and closes a
 * leveraged position, buys from the C2C merchant, saves, votes, commits to the launch, buys a cover
 * and claims it, buys mining shares and is paid an hour, earns an invitation rebate from an invitee,
 * withdraws (chain and in-site), lets savings mature, the vote end and the launch allocate and vest.
 * After every step three things must agree exactly with what the step's amounts, fees and prices
 * say: the wallet (`POST /api/wallet/list`), the statement (every line: sums, the newest line's
 * balances, each older line's running balance) and the held funds (`GET /api/wallet/holds`: the
 * holds sum to each frozen balance, none unexplained). At the end the reconciler must be clean and
 * the liabilities proof's leaves must sum to the user's totals; then the server restarts on the same
 * state and every balance, hold and open order of the walked users must be unchanged.
 *
 *   node bench/walk.mjs [--port P] [--root DIR]
 *
 * Exit 0 when every check held, 1 when one failed (each is printed), 2 when the walk itself broke.
 * Demo1 and demo2 quote the book (no market maker). About two minutes here.
 */
import { claimPort, freePort, log, prepareState, randomPepper, ROOT, snapshotTree, startServer, tempDir } from "./lib/server.mjs";
import { cutOver } from "./lib/objects.mjs";
import { runWhenMain } from "./lib/cli.mjs";

const USDT = 3;
const BTC = 1;
/** Currencies the wallet list leaves out (a launch's token is created unlisted): checked through the statement and the holds. */
const UNLISTED = new Set(["HNST"]);

// ---- exact decimals (bigint at 18 places) -------------------------------------------------------
const TEN = 10n ** 18n;
export function dec(x) {
  if (typeof x === "bigint") return x;
  const s = String(x).trim();
  const neg = s.startsWith("-");
  const [i, f = ""] = (neg ? s.slice(1) : s).split(".");
  const v = BigInt(i || "0") * TEN + BigInt((f + "0".repeat(18)).slice(0, 18));
  return neg ? -v : v;
}
export function str(v) {
  const neg = v < 0n;
  const a = neg ? -v : v;
  const f = (a % TEN).toString().padStart(18, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${a / TEN}${f ? `.${f}` : ""}`;
}
const cut = (v, places) => (v / 10n ** BigInt(18 - places)) * 10n ** BigInt(18 - places);
const up = (v, places) => {
  const q = 10n ** BigInt(18 - places);
  return v % q === 0n ? v : (v / q + 1n) * q;
};
/** a × b, cut to `places` */
export const mul = (a, b, places = 18) => cut((dec(a) * dec(b)) / TEN, places);

// ---- the API ------------------------------------------------------------------------------------
function client(base) {
  const call = async (method, path, body, token, { soft = false } = {}) => {
    const headers = { "content-type": "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = { raw: text.slice(0, 300) };
    }
    if (!soft && (res.status >= 400 || (json.type !== undefined && json.type !== "ok"))) throw new Error(`${method} ${path} ${JSON.stringify(body ?? "")} → ${res.status} ${text.slice(0, 500)}`);
    return json;
  };
  return { get: (p, t, o) => call("GET", p, undefined, t, o), post: (p, b, t, o) => call("POST", p, b ?? {}, t, o) };
}

/** A tiny PNG (an identity document, a deposit's proof, a payment's receipt). */
function png(seed) {
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) {
      c ^= b;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const w = 32;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(w, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc((w * 3 + 1) * w);
  for (let y = 0; y < w; y++) for (let x = 0; x < w; x++) raw.set([(x * 8 + seed * 40) & 255, (y * 8) & 255, (seed * 70) & 255], y * (w * 3 + 1) + 1 + x * 3);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", zlibDeflate(raw)), chunk("IEND", Buffer.alloc(0))]);
}
let zlibDeflate;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(fn, what, tries = 120) {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v) return v;
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// ---- the checks ---------------------------------------------------------------------------------
/** The expected balances: {account: {coin: {avail, frozen}}} as bigints; `add` moves them. */
function book() {
  const m = {};
  return {
    m,
    add(account, coin, avail = 0n, frozen = 0n) {
      const e = ((m[account] ??= {})[coin] ??= { avail: 0n, frozen: 0n });
      e.avail += dec(avail);
      e.frozen += dec(frozen);
      if (e.avail < 0n || e.frozen < 0n) throw new Error(`the expected ${account} ${coin} went below zero`);
    },
  };
}

async function wallet(api, token) {
  const w = (await api.post("/api/wallet/list", {}, token)).message;
  const out = {};
  const put = (acc, b, a, f) => {
    if (dec(a) !== 0n || dec(f) !== 0n) (out[acc] ??= {})[b.currency_name] = { avail: dec(a), frozen: dec(f) };
  };
  for (const b of w.change_wallet.balance) put("change", b, b.change_balance, b.lock_change_balance);
  for (const b of w.micro_wallet.balance) put("micro", b, b.micro_balance, b.lock_micro_balance);
  for (const b of w.legal_wallet.balance) put("legal", b, b.legal_balance, b.lock_legal_balance);
  for (const b of w.lever_wallet?.balance ?? []) put("lever", b, b.lever_balance, b.lock_lever_balance);
  return out;
}

async function statement(api, token) {
  const lines = [];
  for (let cursor = null; ; ) {
    const r = (await api.get(`/api/wallet/statement?limit=100${cursor ? `&cursor=${cursor}` : ""}`, token)).message;
    lines.push(...r.lines);
    if (!r.next) return lines;
    cursor = r.next;
  }
}

/** Every difference between the expectation and the wallet, the statement and the holds (empty: all exact). */
async function differences(api, token, expected) {
  const out = [];
  const w = await wallet(api, token);
  for (const n of UNLISTED) for (const [acc, m] of Object.entries(expected)) if (m[n] && !w[acc]?.[n]) (w[acc] ??= {})[n] = m[n];
  const keys = new Set();
  for (const src of [expected, w]) for (const [acc, m] of Object.entries(src)) for (const n of Object.keys(m)) keys.add(`${acc}/${n}`);
  const zero = { avail: 0n, frozen: 0n };
  const lines = await statement(api, token);
  const holds = (await api.get("/api/wallet/holds", token)).message.groups;
  for (const k of keys) {
    const [acc, n] = k.split("/");
    const e = expected[acc]?.[n] ?? zero;
    const a = w[acc]?.[n] ?? zero;
    if (e.avail !== a.avail || e.frozen !== a.frozen) out.push(`wallet ${k}: expected ${str(e.avail)} available / ${str(e.frozen)} frozen, got ${str(a.avail)} / ${str(a.frozen)}`);
    const mine = lines.filter((l) => `${l.account}/${l.currency}` === k);
    const total = a.avail + a.frozen;
    const sum = mine.reduce((t, l) => t + dec(l.amount), 0n);
    const held = mine.reduce((t, l) => t + dec(l.held), 0n);
    if (sum !== total || held !== a.frozen) out.push(`statement ${k}: lines sum to ${str(sum)} / held ${str(held)}, the balance is ${str(total)} / ${str(a.frozen)}`);
    if (mine.length > 0 && (dec(mine[0].balance_after) !== total || dec(mine[0].held_after) !== a.frozen)) out.push(`statement ${k}: the newest line ends at ${mine[0].balance_after} / ${mine[0].held_after}`);
    for (let i = 0; i + 1 < mine.length; i++) {
      const [newer, older] = [mine[i], mine[i + 1]];
      if (dec(newer.balance_after) - dec(newer.amount) !== dec(older.balance_after) || dec(newer.held_after) - dec(newer.held) !== dec(older.held_after)) {
        out.push(`statement ${k}: the running balance breaks before ${newer.id}`);
        break;
      }
    }
    if (mine.some((l) => dec(l.held_after) < 0n || dec(l.held_after) > dec(l.balance_after))) out.push(`statement ${k}: a line holds below zero or above its balance`);
    const g = holds.find((x) => `${x.account}/${x.currency}` === k);
    const hsum = (g?.holds ?? []).reduce((t, h) => t + dec(h.amount), 0n);
    if (hsum !== a.frozen || (g && dec(g.frozen) !== a.frozen)) out.push(`holds ${k}: ${str(hsum)} held for records, ${str(a.frozen)} frozen`);
    for (const h of g?.holds ?? []) if (h.purpose === "unexplained") out.push(`holds ${k}: ${h.amount} unexplained`);
  }
  return out;
}

// ---- the walk -----------------------------------------------------------------------------------
export async function walk(api, report) {
  const t = {};
  const exp = book();
  const inv = book();
  /** Waits (legs and drains are asynchronous) until the walked user's (or `who`'s) three views agree with the expectation. */
  const check = async (label, who = "me") => {
    const [token, e] = who === "me" ? [t.me, exp.m] : [t.invitee, inv.m];
    let diff = [];
    for (let i = 0; i < 60; i++) {
      diff = await differences(api, token, e);
      if (diff.length === 0) break;
      await sleep(500);
    }
    report(label, diff);
  };
  const login = async (user, password) => (await api.post("/api/user/login", { user_string: user, password, type: 1 })).message.token;
  const captcha = async () => {
    const id = (await api.post("/api/login/smscode")).message.code_id;
    return { code_id: id, code: (await api.get(`/api/dev/outbox?to=${encodeURIComponent(id)}`)).message[0].code };
  };
  const upload = async (token, seed, scene) => (await api.post("/api/new/upload/base64", { file_base64: `data:image/png;base64,${png(seed).toString("base64")}`, scene }, token)).data.id;
  t.op = await login("operator@exchange.test", "Operator1234");
  t.op2 = await login("operator2@exchange.test", "Operator1234");
  t.d1 = await login("demo1@exchange.test", "Demo1234");
  t.d2 = await login("demo2@exchange.test", "Demo1234");

  /** A new user: signed up, e-mail proven, identity (level 2) approved, `amounts` deposited and approved. */
  const newcomer = async (name, code, seed, amounts) => {
    const email = `${name}${Date.now() % 1_000_000}@example.test`;
    const password = "Walk28pass";
    const token = (await api.post("/api/user/register", { type: 1, user_string: email, password, re_password: password, ...(code ? { extension_code: code } : {}), ...(await captcha()) })).message.token;
    const mail = (await api.get(`/api/dev/outbox?to=${encodeURIComponent(email)}`)).message.find((x) => x.code);
    await api.post("/api/user/verify_contact", { code: mail.code }, token);
    const pics = [await upload(token, seed, "identity"), await upload(token, seed + 1, "identity"), await upload(token, seed + 2, "identity")];
    await api.post("/api/user/real_name", { level: 2, name: `Walker ${name}`, type: 1, card_id: `W28${seed}X${Date.now() % 100000}`, front_pic: pics[0], reverse_pic: pics[1], hand_pic: pics[2] }, token);
    const info = (await api.get("/api/user/info", token)).message;
    for (const k of (await api.get(`/api/admin/kyc?user_id=${info.id}`, t.op)).message.lists.filter((x) => x.status !== 2)) await api.post(`/api/admin/kyc/${k.id}/approve`, { reason: "walk: documents match" }, t.op);
    for (const [currency, amount] of amounts) {
      const address = (await api.post("/api/wallet/get_in_address", { currency }, token)).message.list[0];
      const claim = (await api.post("/api/wallet/charge_req", { currency, type: address.network, acc: address.address, amount, pic: await upload(token, seed + 3, "deposit"), hash: `walk${seed}${currency}` }, token)).message;
      const txid = `walk${seed}tx${claim.id}`;
      const first = (await api.post(`/api/admin/deposits/${claim.id}/approve`, { reason: "walk: seen on chain", txid }, t.op)).message;
      if (first.awaiting_second_approval) await api.post(`/api/admin/deposits/${claim.id}/approve`, { reason: "walk: second look", txid }, t.op2);
    }
    return { email, password, token, id: info.id, code: info.extension_code };
  };
  const spot = (token, side, body) => api.post(side === "buy" ? "/api/transaction/walletIn" : "/api/transaction/walletOut", { currency_id: BTC, legal_id: USDT, ...body }, token);
  const fee = (x) => mul(x, "0.001", 8);
  const clock = (s) => api.post("/api/dev/clock", { advance_s: s });
  const cron = (c) => api.post("/api/dev/cron", { cron: c });
  /** Logs in again once the dev clock has moved past a session's 30 days. */
  const relogin = async () => {
    if ((await api.get("/api/user/info", t.me, { soft: true })).type !== "ok") t.me = await login(me.email, me.password);
    if ((await api.get("/api/user/info", t.op, { soft: true })).type !== "ok") t.op = await login("operator@exchange.test", "Operator1234");
  };

  // Sign-up, identity, deposits.
  const me = await newcomer("walker", null, 1, [
    [USDT, "5000"],
    [BTC, "0.05"],
  ]);
  t.me = me.token;
  exp.add("change", "USDT", "5000");
  exp.add("change", "BTC", "0.05");
  await check("signed up, verified, 5,000 USDT and 0.05 BTC deposited");

  // Spot: demo2 quotes 60,000 / 59,000.
  await spot(t.d2, "sell", { mode: 2, price: "60000", num: "0.05" });
  await spot(t.d2, "buy", { mode: 2, price: "59000", num: "0.05" });
  const resting = (await spot(t.me, "buy", { mode: 2, price: "59500", num: "0.01" })).message;
  exp.add("change", "USDT", "-595", "595");
  await check("limit buy 0.01 @ 59,500 resting");
  await api.post("/api/transaction_del", { id: resting.order_id, type: "in" }, t.me);
  exp.add("change", "USDT", "595", "-595");
  await check("the resting buy cancelled");
  await spot(t.me, "buy", { mode: 2, price: "60000", num: "0.02" });
  exp.add("change", "USDT", "-1200");
  exp.add("change", "BTC", dec("0.02") - fee("0.02"));
  await check("limit buy 0.02 @ 60,000 filled (taker, fee in BTC)");
  await spot(t.me, "sell", { mode: 1, num: "0.01" });
  exp.add("change", "BTC", "-0.01");
  exp.add("change", "USDT", dec("590") - fee("590"));
  await check("market sell 0.01 at 59,000 (fee in USDT)");
  const byTotal = (await spot(t.me, "buy", { mode: 1, total: "100" })).message;
  exp.add("change", "USDT", -mul(byTotal.filled, "60000"));
  exp.add("change", "BTC", dec(byTotal.filled) - fee(byTotal.filled));
  await check(`market buy for a total of 100 USDT: ${byTotal.filled} BTC at 60,000, the rest released`);
  await spot(t.me, "sell", { mode: 2, price: "59800", num: "0.005" });
  exp.add("change", "BTC", "-0.005", "0.005");
  await check("limit sell 0.005 @ 59,800 resting");
  await spot(t.d2, "buy", { mode: 2, price: "59800", num: "0.002" });
  exp.add("change", "BTC", 0n, "-0.002");
  exp.add("change", "USDT", dec("119.6") - fee("119.6"));
  await check("the sell filled 0.002 (maker)");
  await spot(t.d2, "buy", { mode: 1, num: "0.003" });
  exp.add("change", "BTC", 0n, "-0.003");
  exp.add("change", "USDT", dec("179.4") - fee("179.4"));
  await check("the sell filled the other 0.003");

  // Conversion at the last price (59,800), 0.2 %.
  const quote = (await api.post("/api/user/shandui_quote", { from_currency: BTC, to_currency: USDT, money: "0.01" }, t.me)).message;
  await api.post("/api/user/shandui_sub", { quote_id: quote.quote_id }, t.me);
  const gross = mul("0.01", quote.price);
  exp.add("change", "BTC", "-0.01");
  exp.add("change", "USDT", gross - mul(gross, "0.002", 8));
  await check(`conversion of 0.01 BTC at ${quote.price}, 0.2 % fee`);

  // Transfers.
  for (const [to, n] of [
    ["micro", "500"],
    ["lever", "1000"],
    ["legal", "100"],
  ]) {
    await api.post("/api/wallet/change", { currency_id: USDT, number: n, from_field: "change", to_field: to }, t.me);
    exp.add("change", "USDT", `-${n}`);
    exp.add(to, "USDT", n);
  }
  await api.post("/api/wallet/change", { currency_id: USDT, number: "25.5", from_field: "legal", to_field: "change" }, t.me);
  exp.add("legal", "USDT", "-25.5");
  exp.add("change", "USDT", "25.5");
  await check("transfers between the four accounts");

  // Seconds: stake and fee held until the settle; with the index unchanged, down wins and up loses.
  const seconds = async (type, secs, stake, ratio) => {
    const c = (await api.post("/api/microtrade/submit", { match_id: 1, currency_id: USDT, type, seconds: secs, number: stake }, t.me)).message;
    exp.add("micro", "USDT", -(dec(stake) + dec(c.fee)), dec(stake) + dec(c.fee));
    return { ...c, ratio };
  };
  const contracts = [await seconds(2, 60, "100", "0.82"), await seconds(1, 30, "50", "0.80")];
  await check("seconds: down 100 / 60 s and up 50 / 30 s open");
  await clock(61);
  for (const c of contracts) {
    const done = await waitFor(async () => (await api.get("/api/new/microtrade/lists?page=1", t.me)).data.lists.find((x) => x.id === c.id && x.status === 3), `contract ${c.id} settled`);
    const won = c.type === 2 ? dec(done.end_price) <= dec(done.open_price) : dec(done.end_price) > dec(done.open_price);
    exp.add("micro", "USDT", won ? dec(c.number) + mul(c.number, c.ratio) : 0n, -(dec(c.number) + dec(c.fee)));
  }
  await check("seconds: both settled at expiry");

  // Lever: a long at 59,800; demo1 lifts demo2's ask, the index goes to 60,000; closed.
  const deal = (await api.get("/api/lever/deal?currency_id=1&legal_id=3", t.me)).message;
  const long = (await api.post("/api/lever/submit", { currency_id: BTC, legal_id: USDT, type: 1, share: 10, multiple: 10, index_price: deal.index_price }, t.me)).message;
  const lotValue = (price, lots) => mul(price, mul(String(lots), deal.lever_share_num));
  const feeRate = dec(deal.lever_trade_fee) / 100n;
  const openValue = lotValue(long.open_price, 10);
  const held = up(openValue / 10n, 8) + up(mul(openValue, feeRate), 8);
  exp.add("lever", "USDT", -held, held);
  await check(`lever: long 10 lots ×10 at ${long.open_price} (margin and open fee held)`);
  await spot(t.d1, "buy", { mode: 2, price: "60000", num: "0.01" });
  await waitFor(async () => (await api.get("/api/lever/deal?currency_id=1&legal_id=3", t.me)).message.index_price === "60000.00", "index 60,000");
  const closed = (await api.post("/api/lever/close", { id: long.id }, t.me)).message;
  const closeValue = lotValue(closed.close_price, 10);
  exp.add("lever", "USDT", held + cut(closeValue - openValue, 8) - up(mul(openValue, feeRate), 8) - up(mul(closeValue, feeRate), 8), -held);
  await check(`lever: closed at ${closed.close_price}`);

  // C2C: 100 USDT from the seeded merchant's sell advert.
  await api.post("/api/user/cash_save", { real_name: "Walker walker", bank_account: "6222020200112233446", bank_name: "ICBC" }, t.me);
  const advert = (await api.get("/api/new/legal_deal/index?page=1&type=sell&currency_id=3", t.me)).data.lists[0];
  const order = (await api.post("/api/do_legal_deal", { id: advert.id, value: "100" }, t.me)).message.data;
  await api.post("/api/user_legal_pay", { id: order.id, pay_orders_img: await upload(t.me, 9, "c2c") }, t.me);
  await api.post("/api/legal_deal_user_sure", { id: order.id, password: "135790" }, await login("merchant@exchange.test", "Merchant1234"));
  exp.add("legal", "USDT", "100");
  await check(`C2C: 100 USDT bought at ${advert.price} and released by the merchant`);

  // Savings, vote, launch, cover, mining.
  const sub1 = (await api.post("/api/earn/subscribe", { product_id: 1, amount: "1000" }, t.me)).message;
  exp.add("change", "USDT", "-1000", "1000");
  await check("savings: 1,000 subscribed");
  await api.post("/api/earn/redeem", { position_id: sub1.id }, t.me);
  exp.add("change", "USDT", "1000", "-1000");
  await check("savings: redeemed before maturity, principal back");
  const sub2 = (await api.post("/api/earn/subscribe", { product_id: 1, amount: "500" }, t.me)).message;
  exp.add("change", "USDT", "-500", "500");
  await api.post("/api/vote/cast", { candidate_id: 1 }, t.me);
  await api.post("/api/vote/cast", { candidate_id: 2 }, t.me);
  const round = (await api.get("/api/vote/rounds", t.me)).message.data[0];
  exp.add("change", "USDT", `-${round.min_balance}`, round.min_balance);
  await api.post("/api/launch/commit", { project_id: 1, currency_id: USDT, amount: "100" }, t.me);
  exp.add("change", "USDT", "-100", "100");
  const cover = (await api.post("/api/insurance/buy", { plan_id: 1, amount: "100" }, t.me)).message;
  exp.add("change", "USDT", `-${cover.premium}`);
  const mining = (await api.get("/api/mining/plans", t.me)).message[0];
  await api.post("/api/mining/buy", { plan_id: mining.id, shares: 2 }, t.me);
  exp.add("change", "USDT", -mul(mining.price, "2"));
  await check("savings 500 kept, two votes (one hold), launch 100 committed, a cover's premium, 2 mining shares");

  // An invitee: a spot sale and a seconds contract, both fees earning the walker a rebate.
  const invitee = await newcomer("invitee", me.code, 11, [[BTC, "0.01"]]);
  t.invitee = invitee.token;
  await spot(t.invitee, "sell", { mode: 1, num: "0.01" });
  inv.add("change", "USDT", dec("590") - fee("590"));
  await api.post("/api/wallet/change", { currency_id: USDT, number: "100", from_field: "change", to_field: "micro" }, t.invitee);
  inv.add("change", "USDT", "-100");
  inv.add("micro", "USDT", "100");
  const ic = (await api.post("/api/microtrade/submit", { match_id: 1, currency_id: USDT, type: 1, seconds: 30, number: "50" }, t.invitee)).message;
  inv.add("micro", "USDT", -(dec("50") + dec(ic.fee)), dec("50") + dec(ic.fee));
  await check("the invitee sold 0.01 BTC at 59,000 and opened a contract", "invitee");
  const feeDay = new Date((await api.get("/api/dev/clock")).message.now + 8 * 3_600_000).toISOString().slice(0, 10);

  // Withdrawals: chain (TRC20, the published fee) and in-site to the invitee.
  await api.post("/api/user/fund_password", { fund_password: "246810", re_fund_password: "246810", login_password: me.password }, t.me);
  const out = (await api.post("/api/wallet/out", { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "200", type: 1, password: "246810" }, t.me)).message;
  exp.add("change", "USDT", `-${out.total}`, out.total);
  await check(`withdrawal of 200 + fee ${out.charge} held`);
  await api.post(`/api/admin/withdrawals/${out.id}/approve`, { reason: "walk: checked" }, t.op);
  await api.post(`/api/admin/withdrawals/${out.id}/chain-success`, { reason: "walk: on chain", txid: "walkchaintx0001" }, t.op);
  exp.add("change", "USDT", 0n, `-${out.total}`);
  await check("withdrawal approved and sent");
  const inSite = (await api.post("/api/wallet/get_in_address", { currency: USDT }, t.invitee)).message.internal.address;
  const moved = (await api.post("/api/wallet/out", { currency: USDT, address: inSite, number: "30", type: 1, password: "246810" }, t.me)).message;
  exp.add("change", "USDT", `-${moved.total}`);
  inv.add("change", "USDT", "30");
  await check("in-site withdrawal of 30 to the invitee");

  // Two hours on: the invitee's contract settles (a tie: up loses), a mining hour ends and is paid.
  await clock(7200);
  const icDone = await waitFor(async () => (await api.get("/api/new/microtrade/lists?page=1", t.invitee)).data.lists.find((x) => x.id === ic.id && x.status === 3), "the invitee's contract settled");
  inv.add("micro", "USDT", dec(icDone.end_price) > dec(icDone.open_price) ? dec("50") + mul("50", "0.80") : 0n, -(dec("50") + dec(ic.fee)));
  await check("the invitee's contract settled", "invitee");
  const now = (await api.get("/api/dev/clock")).message.now;
  const hour = new Date(Math.floor(now / 3_600_000) * 3_600_000 - 3_600_000).toISOString().replace(".000", "");
  const payout = (await api.post("/api/admin/mining/payouts", { plan_id: mining.id, hour, amount: "0.001", evidence: "walk-pool-0001", reason: "walk: the pool's payout" }, t.op)).message;
  await api.post("/api/admin/mining/payouts/approve", { id: payout.id, reason: "walk: matches the pool" }, t.op2);
  await cron("0 * * * *");
  const grossShare = (dec("0.001") * 2n) / BigInt(mining.shares);
  exp.add("change", "BTC", cut((cut(grossShare, 8) * BigInt(10_000 - mining.fee_bps)) / 10_000n, 8));
  await check(`mining: the ${hour} hour paid (2 of ${mining.shares} shares, ${mining.fee_percent} % fee)`);

  // 36 hours on: the fees' Beijing day has ended; settle it. Then a lost contract and the cover's claim.
  await clock(130_000);
  await cron("0 0 * * *");
  let run = (await api.post("/api/admin/invite/run", { day: feeDay, reason: "walk: settle the day" }, t.op)).message;
  for (let i = 0; i < 20 && run.status !== "done"; i++) run = (await api.post("/api/admin/invite/run", { day: feeDay, reason: "walk: settle the day" }, t.op)).message;
  exp.add("lever", "USDT", mul(dec(fee("590")) + dec(ic.fee), "0.2", 8));
  await check(`invitation rebate of ${feeDay}: 20 % of the invitee's fees (${str(fee("590"))} spot + ${ic.fee} seconds)`);
  const loser = await seconds(1, 30, "60", "0.80");
  await check("seconds: up 60 open");
  await clock(31);
  await waitFor(async () => (await api.get("/api/new/microtrade/lists?page=1", t.me)).data.lists.find((x) => x.id === loser.id && x.status === 3), "the contract settled");
  exp.add("micro", "USDT", 0n, -(dec("60") + dec(loser.fee)));
  await check("seconds: up 60 lost at a tie");
  const claim = (await api.post("/api/insurance/claim", { id: cover.id }, t.me)).message;
  if (claim.result !== "paid") throw new Error(`the cover's claim was not paid: ${JSON.stringify(claim).slice(0, 300)}`);
  exp.add("micro", "USDT", cover.cover);
  await check(`cover: claim paid ${cover.cover} into the seconds account`);

  // 12.5 days on: the launch's window has ended, the tokens are allocated and locked.
  await clock(1_080_000);
  for (let i = 0; i < 3; i++) await cron("* * * * *");
  await relogin();
  const sub = await waitFor(async () => (await api.get("/api/launch/my", t.me)).message.find((x) => x.status !== "committed"), "the launch allocated");
  exp.add("change", "USDT", sub.refund, `-${sub.amount}`);
  exp.add("change", sub.token, 0n, sub.locked);
  await check(`launch: ${sub.alloc} ${sub.token} allocated and locked for ${sub.cost} USDT`);

  // 16 days on: savings matured (30 days of interest), the vote's round ended.
  await clock(1_382_400);
  await cron("0 0 * * *");
  for (let i = 0; i < 2; i++) await cron("* * * * *");
  await relogin();
  const pos = await waitFor(async () => (await api.get("/api/earn/positions", t.me)).message.find((x) => x.id === sub2.id && x.status !== "open"), "savings matured");
  exp.add("change", "USDT", dec("500") + mul(pos.daily, "30"), "-500");
  await waitFor(async () => (await api.get("/api/vote/rounds", t.me)).message.data[0].mine.released, "the vote's hold released");
  exp.add("change", "USDT", round.min_balance, `-${round.min_balance}`);
  await check(`savings matured (500 + 30 × ${pos.daily}) and the vote's hold released`);

  // 21 days on: the first vesting step, claimed.
  await clock(1_818_720);
  await relogin();
  const vested = (await api.get("/api/launch/my", t.me)).message[0];
  await api.post("/api/launch/claim", { id: vested.id }, t.me);
  exp.add("change", vested.token, vested.claimable, `-${vested.claimable}`);
  await check(`launch: ${vested.claimable} ${vested.token} vested and claimed`);

  // Left open across the restart: a resting buy and a short.
  await spot(t.me, "buy", { mode: 2, price: "58000", num: "0.001" });
  exp.add("change", "USDT", "-58", "58");
  const index = (await api.get("/api/lever/deal?currency_id=1&legal_id=3", t.me)).message.index_price;
  const short = (await api.post("/api/lever/submit", { currency_id: BTC, legal_id: USDT, type: 2, share: 5, multiple: 5, index_price: index }, t.me)).message;
  const shortValue = lotValue(short.open_price, 5);
  const shortHeld = up(shortValue / 5n, 8) + up(mul(shortValue, feeRate), 8);
  exp.add("lever", "USDT", -shortHeld, shortHeld);
  await check(`a resting buy 0.001 @ 58,000 and a short 5 lots ×5 at ${short.open_price} left open`);

  // The operator's view: the reconciler and the liabilities proof.
  const rec = (await api.get("/api/admin/reconcile", t.op)).message;
  report("the reconciler", rec.ok ? [] : rec.differences.map((x) => JSON.stringify(x)));
  await api.post("/api/admin/transparency/liabilities/run", { reason: "walk: the proof after the walk" }, t.op);
  const proof = await waitFor(async () => {
    const r = await api.get("/api/transparency/liabilities/proof", t.me, { soft: true });
    return r.type === "ok" ? r.message : null;
  }, "the liabilities proof");
  const totals = new Map();
  for (const l of proof.leaves) l.balances.forEach((b, i) => totals.set(proof.currencies[i].name, (totals.get(proof.currencies[i].name) ?? 0n) + dec(b)));
  const owned = new Map();
  for (const m of Object.values(exp.m)) for (const [n, v] of Object.entries(m)) owned.set(n, (owned.get(n) ?? 0n) + v.avail + v.frozen);
  report(
    "the liabilities proof's leaves sum to the user's totals",
    [...new Set([...totals.keys(), ...owned.keys()])].filter((n) => (totals.get(n) ?? 0n) !== (owned.get(n) ?? 0n)).map((n) => `${n}: proof ${str(totals.get(n) ?? 0n)}, owned ${str(owned.get(n) ?? 0n)}`),
  );
  return { t, me, invitee, exp, inv, short, shortHeld, feeRate, lotValue, check: (label) => check(label) };
}

/** What must survive a restart: each walked user's wallet, holds and open orders, and the operator's view of the walker. */
async function snapshot(api, w) {
  const out = {};
  for (const [who, u] of [
    ["walker", w.me],
    ["invitee", w.invitee],
  ]) {
    const token = (await api.post("/api/user/login", { user_string: u.email, password: u.password, type: 1 })).message.token;
    out[who] = { wallet: await wallet(api, token), holds: (await api.get("/api/wallet/holds", token)).message.groups, open: (await api.get("/api/new/transaction/index?currency_id=1", token)).data.lists.map((x) => x.id) };
  }
  const op = (await api.post("/api/user/login", { user_string: "operator@exchange.test", password: "Operator1234", type: 1 })).message.token;
  out.operatorView = (await api.get(`/api/admin/users/${w.me.id}`, op)).message.balances;
  return JSON.stringify(out, (_, v) => (typeof v === "bigint" ? String(v) : v));
}

export async function main(options = {}) {
  zlibDeflate = (await import("node:zlib")).deflateSync;
  const root = options.root ?? snapshotTree(ROOT);
  const dir = tempDir("exchange-walk-");
  const pepper = randomPepper();
  const vars = { ACCOUNTS: "objects", DEV_CLOCK: "on" };
  if (options.port && !claimPort(options.port)) throw new Error(`port ${options.port} is claimed by another bench run`);
  const port = options.port ?? (await freePort());
  log(`preparing a seeded state in ${dir}, then the cut-over`);
  await prepareState({ root, dir, pepper, fund: false });
  await cutOver({ root, dir, pepper });
  let server = await startServer({ root, dir, port, pepper, vars });
  const failures = [];
  const report = (label, diff) => {
    log(`${diff.length ? "FAIL" : "ok  "} ${label}`);
    for (const d of diff) log(`       ${d}`);
    if (diff.length) failures.push(label);
  };
  try {
    const api = client(server.url);
    const w = await walk(api, report);
    const before = await snapshot(api, w);
    log("restarting the server on the same state");
    await server.stop();
    server = await startServer({ root, dir, port, pepper, vars });
    const after = await snapshot(api, w);
    report("after the restart: every wallet, hold and open order unchanged", before === after ? [] : [`before ${before.slice(0, 800)}`, `after  ${after.slice(0, 800)}`]);
    w.t.me = (await api.post("/api/user/login", { user_string: w.me.email, password: w.me.password, type: 1 })).message.token;
    const open = (await api.get("/api/new/transaction/index?currency_id=1", w.t.me)).data.lists[0];
    await api.post("/api/transaction_del", { id: open.id, type: "in" }, w.t.me);
    w.exp.add("change", "USDT", "58", "-58");
    const closed = (await api.post("/api/lever/close", { id: w.short.id }, w.t.me)).message;
    const [o, c] = [w.lotValue(closed.open_price, 5), w.lotValue(closed.close_price, 5)];
    w.exp.add("lever", "USDT", w.shortHeld + cut(o - c, 8) - up(mul(o, w.feeRate), 8) - up(mul(c, w.feeRate), 8), -w.shortHeld);
    await w.check("after the restart: the resting buy cancelled and the short closed");
    const op = (await api.post("/api/user/login", { user_string: "operator@exchange.test", password: "Operator1234", type: 1 })).message.token;
    const rec = (await api.get("/api/admin/reconcile", op)).message;
    report("the reconciler at the end", rec.ok ? [] : rec.differences.map((x) => JSON.stringify(x)));
  } finally {
    await server.stop();
  }
  log(failures.length ? `${failures.length} check(s) failed: ${failures.join("; ")}` : "every check held");
  return { passed: failures.length === 0, failures };
}

runWhenMain(import.meta.url, main, { "--port": "port" });
