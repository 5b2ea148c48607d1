#!/usr/bin/env node
/**
 * Crash safety of every product besides spot and seconds (those are bench/crash.mjs), sharing its
 * harness (bench/lib): load on the real Worker with DEV_CLOCK=on — leveraged positions (open at
 * market, TP/SL, close, cancel; a price shock now and then so stops and liquidations come due; a
 * third of the opens by an account demo2 invited, so its fees earn demo2 daily rebates), C2C
 * against the seeded merchant's sell advert (order, paid, release, cancel, appeal, and the appeal
 * decided by an operator: coins to the buyer or back to the seller; the payment window's timeout by
 * moving the clock), transfers between one's accounts, conversion, withdrawals (request with the
 * fund password set at the start, approve or reject, the chain's success or failure), savings
 * (subscribe, redeem), cover (buy; a 30 s seconds contract whose tie loses past the 50 % threshold;
 * claim), launch (commit, claim vested tokens), listing votes, mining (buy shares; operators record
 * and approve ended hours), and every cron run through POST /api/dev/cron with the dev clock moved
 * ahead between runs (POST /api/dev/clock: minutes, a day, now and then a week), so interest days,
 * cover days, mining hours, rebate days, overnight fees, launch windows and C2C windows all come
 * due while the kills happen — then `kill -9` of the whole server process group at random moments
 * and a restart on the same state, N times. A request cut by a kill has an unknown outcome and is
 * not re-sent (the checks read the state). At the end: the clock 16 days ahead, every cron, the
 * pair objects woken, the reconciler run ("0 0 * * *"), and the invariants read from D1:
 *  - the reconciler's report is clean: per currency the ledger sums to zero, every balance equals
 *    its ledger rows, every movement nets to zero, nothing negative, and every frozen amount equals
 *    the product holds that explain it (the treasury's included: seconds and lever house holds,
 *    covers, savings budgets, mining payouts approved and unpaid);
 *  - C2C: the merchant's frozen USDT in the legal account = deposit + sell-advert escrow + the open
 *    orders' amounts (unpaid, paid, appealed); no order both released and returned; a decided
 *    appeal ended its order its way, once, an open one not at all;
 *  - lever: each user's frozen lever USDT = the margin (less overnight fees taken) of their open
 *    positions; no position closed twice (one close movement each);
 *  - withdrawals: one freeze per request, one final movement per ended one, none while open;
 *  - cover: one payout per paid claim, one settlement per ended cover, none while live;
 *  - launch: one settlement per subscription once its window ended;
 *  - crons: each savings interest day accrued once per position (flexible: exactly one payment
 *    movement per accrual), each mining hour paid once per holder, each overnight fee once per
 *    position and day, each rebate day paid once per inviter with the sum of its lines.
 *
 *   node bench/crash-products.mjs [--crashes 10] [--seed 1] [--min-run-ms 800] [--max-run-ms 3000]
 *                                 [--concurrency 6] [--port P] [--json FILE] [--accounts objects]
 *
 * --accounts objects (issue #28): after the cut-over (users' D1 balances and the treasury opened in
 * the account objects) the server runs with ACCOUNTS=objects and the load is every product (lever
 * opens by demo1 and demo2 only), plus deposits, the invitee's spot trades (rebates), launches
 * published after the cut-over, balance adjustments and treasury funding (OBJECT_ACTIONS). The checks
 * are the objects' (bench/lib/objects.mjs: conservation, balances = movements, frozen = open holds,
 * every open hold an open record's, read model = objects, the reconciler clean), lever's (each open
 * position's two holds open, each closed or revoked one's resolved, one close leg per closed
 * position, the overnight fees the object took = D1's record), the D1 products'
 * (bench/lib/products-objects.mjs) and those of launches and adjustments (bench/lib/launch-objects.mjs).
 */
import fs from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, claimPort, d1, freePort, fundingSql, log, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";
import { currencies } from "../scripts/seed-data/reference.mjs";
import { runWhenMain } from "./lib/cli.mjs";
import { httpClient, login, now, prng } from "./lib/client.mjs";
import { ACCOUNTS, PAIRS, orderRequest, warmupOrders } from "./lib/orders.mjs";
import { checkAccountObjects, cutOver, openReservation, spotHoldExplainer, sqlite } from "./lib/objects.mjs";
import { d1RecordHoldsView } from "./lib/products-objects.mjs";

export const DEFAULTS = { crashes: 10, seed: 1, minRunMs: 800, maxRunMs: 3000, concurrency: 6, port: null, root: null, json: null, quiet: false, accounts: "d1" };
/**
 * The products whose money moves on the account objects (`--accounts objects`): every one (launches,
 * balance adjustments and treasury funding since session 15's launch28). Lever opens by the invitee
 * stay out (their rebates are counted in the fee shards; the invitee's spot trades carry the rebates).
 */
const OBJECT_PRODUCTS = new Set(["lever", "transfer", "cron", "clock", "c2c", "conversion", "withdraw", "vote", "savings", "cover", "mining", "deposit", "rebate", "launch", "adjust", "fund"]);
/**
 * Objects mode only: deposits (a user's claim with a proof picture, an operator's approval or
 * rejection: the credit comes as legs from the deposits shard) and the invitee's spot trades (their
 * fees are what a day's rebates pay demo2 in objects mode, from the fee shards).
 */
const OBJECT_ACTIONS = [
  ["deposit", "claim", 2],
  ["deposit", "approve", 1],
  ["deposit", "reject", 1],
  ["rebate", "trade", 2],
  // Launches published after the cut-over (their reserve held in a treasury shard), cancelled now and then;
  // more commits and claims than in D1 mode (kill points in a purchase and an unlock).
  ["launch", "publish", 1],
  ["launch", "commit", 2],
  ["launch", "claim", 1],
  ["launch", "cancel", 0.3],
  // Balance adjustments of the two traders (credit or debit), and treasury funding (in, or money leaving), four eyes.
  ["adjust", "request", 2],
  ["adjust", "approve", 2],
  ["adjust", "reject", 0.5],
  ["fund", "request", 1],
  ["fund", "approve", 1],
];

const USERS = {
  ...ACCOUNTS,
  // Invited by demo2 (written before the server starts): its lever fees earn demo2 daily rebates.
  inv: { account: "invitee@exchange.test", password: "Demo1234" },
  merchant: { account: "merchant@exchange.test", password: "Merchant1234" },
  op1: { account: "operator@exchange.test", password: "Operator1234" },
  op2: { account: "operator2@exchange.test", password: "Operator1234" },
};
const HOUR = 3_600_000;
const FUND_PASSWORD = "246810";
/** The seeded merchant's fund password (scripts/seed-data/accounts.mjs): a release needs it. */
const MERCHANT_FUND_PASSWORD = "135790";
const CHAIN_ADDRESS = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGNsaGhgYGBgYmBgYGBgAAAEHAEFCg9a8QAAAABJRU5ErkJggg==", "base64");

/** The actions of the load, by product, with their weights. */
const ACTIONS = [
  ["lever", "open", 6],
  ["lever", "setstop", 2],
  ["lever", "close", 3],
  ["lever", "cancel", 1],
  ["lever", "shock", 1],
  ["c2c", "order", 4],
  ["c2c", "paid", 4],
  ["c2c", "release", 3],
  ["c2c", "cancel", 1],
  ["c2c", "appeal", 2],
  ["c2c", "decide", 2],
  ["transfer", "transfer", 3],
  ["conversion", "convert", 2],
  ["withdraw", "request", 2],
  ["withdraw", "approve", 1],
  ["withdraw", "reject", 1],
  ["withdraw", "chain", 1],
  ["launch", "commit", 1],
  ["launch", "claim", 1],
  ["vote", "cast", 1],
  ["savings", "subscribe", 2],
  ["savings", "redeem", 1],
  ["cover", "buy", 1],
  ["cover", "lose", 1],
  ["cover", "claim", 2],
  ["mining", "buy", 2],
  ["mining", "record", 1],
  ["cron", "run", 3],
  ["clock", "advance", 2],
];

/**
 * An account invited by demo2, verified at level 2 (what rebates need), with demo1's password
 * hash (same pepper, so the same password): rows the registration and the identity review write.
 */
function inviteeSql(now) {
  const id = (account) => `(SELECT id FROM users WHERE account = '${account}')`;
  return `INSERT INTO users (account, account_type, country_code, password_hash, extension_code, parent_id, review_status, real_name, created_at)
      SELECT 'invitee@exchange.test', 1, '86', password_hash, 'CRASHINV', ${id("demo2@exchange.test")}, 2, 'Invitee Crash', ${now} FROM users WHERE account = 'demo1@exchange.test';
    INSERT INTO kyc_submissions (user_id, level, name, type, card_id, status, reviewed_at, created_at)
      VALUES (${id("invitee@exchange.test")}, 2, 'Invitee Crash', 3, 'CRASHINV', 2, ${now}, ${now});`;
}

export async function main(options = {}) {
  const o = { ...DEFAULTS, ...options };
  const say = o.quiet ? () => {} : log;
  const t0 = now();
  const rnd = prng(o.seed);
  const killRnd = prng(o.seed + 0x9e3779b9);
  const root = o.root ?? snapshotTree(ROOT);
  const dir = tempDir("exchange-crash-products-");
  const pepper = randomPepper();
  const objects = o.accounts === "objects";
  const vars = { DEV_CLOCK: "on", C2C_APPEAL_AFTER_SECONDS: "60", ...(objects ? { ACCOUNTS: "objects" } : {}) };
  const actions = objects ? [...ACTIONS, ...OBJECT_ACTIONS].filter(([p]) => OBJECT_PRODUCTS.has(p)) : ACTIONS;
  const total = actions.reduce((a, [, , w]) => a + w, 0);
  say(`preparing state in ${dir}`);
  await prepareState({ root, dir, pepper });
  await d1(root, dir, `${inviteeSql(Date.now())}\n${fundingSql(currencies, ["invitee@exchange.test"], Date.now())}`);
  let cut = null;
  if (objects) {
    say("cut-over: every user's balances and the treasury opened in their account objects (ACCOUNTS=objects)");
    cut = await cutOver({ root, dir, pepper });
  }
  // A deposit address users claim deposits to (objects mode's deposits), read before the server runs.
  const [[depositAddress]] = await d1(root, dir, "SELECT address FROM deposit_addresses WHERE currency_id = 3 AND enabled = 1 ORDER BY rowid LIMIT 1");
  // A pinned --port for runs side by side: a killed server frees its port for a moment, where
  // another run's freePort() could take it.
  if (o.port && !claimPort(o.port)) throw new Error(`port ${o.port} is claimed by another bench run`);
  const port = o.port ?? (await freePort());
  let server = await startServer({ root, dir, port, pepper, vars });
  let client = httpClient(server.url, { timeoutMs: 20_000 });
  const call = async (who, method, p, body) => {
    const r = await client.request(method, p, { token: who ? tokens[who] : undefined, body });
    if (!who || r.body?.code !== "login_required") return r;
    // Sessions last 30 days of clock time: once the dev clock has moved past that, log in again.
    try {
      tokens[who] = await login(client, USERS[who].account, USERS[who].password);
    } catch {
      return r; // the server went down meanwhile (a kill): the next call logs in again
    }
    stats.relogins = (stats.relogins ?? 0) + 1;
    return client.request(method, p, { token: tokens[who], body });
  };
  const tokens = {};
  for (const [k, a] of Object.entries(USERS)) tokens[k] = await login(client, a.account, a.password);

  // Setup (before any kill): a BTC/USDT book (the index of lever), margin in the lever account,
  // seconds-account money for covers, a bank card and a proof picture for each C2C buyer.
  const pair = PAIRS[0];
  for (const w of warmupOrders(pair)) {
    const rq = orderRequest(pair, w, null);
    const r = await call(w.who, "POST", rq.path, rq.body);
    if (r.body?.type !== "ok") throw new Error(`warm-up refused: ${JSON.stringify(r.body)}`);
  }
  const proof = {};
  const inv = await call("inv", "POST", "/api/wallet/change", { number: "20000", from_field: "change", to_field: "lever", currency_id: 3 });
  if (inv.body?.type !== "ok") throw new Error(`invitee's transfer to lever: ${JSON.stringify(inv.body)}`);
  for (const who of ["demo1", "demo2"]) {
    // A fund password (set with the login password) for withdrawals.
    const fp = await call(who, "POST", "/api/user/fund_password", { fund_password: FUND_PASSWORD, re_fund_password: FUND_PASSWORD, login_password: USERS[who].password });
    if (fp.body?.type !== "ok") throw new Error(`fund password: ${JSON.stringify(fp.body)}`);
    for (const to of ["lever", "micro"]) {
      const r = await call(who, "POST", "/api/wallet/change", { number: "20000", from_field: "change", to_field: to, currency_id: 3 });
      if (r.body?.type !== "ok") throw new Error(`transfer to ${to}: ${JSON.stringify(r.body)}`);
    }
    await call(who, "POST", "/api/user/cash_save", { real_name: who === "demo1" ? "Demo One" : "Demo Two", bank_account: "6228480402564890018", bank_name: "", bank_branch: "Main" });
    const form = new FormData();
    form.append("file", new Blob([PNG], { type: "image/png" }), "proof.png");
    form.append("scene", "c2c/proof.png");
    const up = await fetch(`${server.url}/api/new/upload`, { method: "POST", headers: { authorization: tokens[who], lang: "en" }, body: form, signal: AbortSignal.timeout(20_000) });
    proof[who] = ((await up.json()).data ?? {}).id;
  }
  const coverPlan = ((await call("", "GET", "/api/insurance/plans")).body?.message?.plans ?? [])[0]?.id;
  const miningPlan = ((await call("", "GET", "/api/mining/plans")).body?.message ?? [])[0]?.id;
  const project = ((await call("demo1", "GET", "/api/launch/projects")).body?.message ?? []).find?.((p) => p.prices?.length);
  const rounds = (await call("demo1", "GET", "/api/vote/rounds")).body?.message ?? [];
  const candidates = (Array.isArray(rounds) ? rounds : (rounds.data ?? [])).flatMap((r) => (r.candidates ?? []).map((c) => c.id));
  let shockDown = true;
  /** The index the load last moved the book to (a market open names it; a moved one is refused). */
  let index = "60000.00";
  // A flexible savings product besides the seeded 30-day one, so interest is paid day by day (in
  // objects mode its budget is held in its treasury shard).
  const flex = await call("op1", "POST", "/api/admin/earn/products", { currency_id: 3, term_days: 0, apr: "5", min_amount: "10", max_amount: "1000", budget: "1000", reason: "crash run" });
  const savingsProducts = [1, ...(flex.body?.message ?? []).filter((p) => p.term_days === 0).map((p) => p.id).slice(-1)];
  // Objects mode: a launch token of its own (created with a first draft), the treasury funded with it (every shard gets a
  // part: a project's reserve is held in shard id mod 8), requested by one operator and approved by the other.
  const userIds = {};
  let crashToken = null;
  if (objects) {
    const devNowAtStart = (await call("", "GET", "/api/dev/clock")).body.message.now;
    for (const k of ["demo1", "demo2"]) userIds[k] = (await call(k, "GET", "/api/user/info")).body?.message?.id;
    const draft = await call("op1", "POST", "/api/admin/launch/projects", { title: "Crash token", token_name: "CRASHT", token_scale: 6, prices: [{ currency_id: 3, price: "0.1" }], supply: "1000", cap: "100", start_at: devNowAtStart, end_at: devNowAtStart + 86_400_000, cliff_days: 0, vest_days: 0, reason: "crash run: the token" });
    crashToken = draft.body?.message?.token_id;
    if (!crashToken || !userIds.demo1 || !userIds.demo2) throw new Error(`launch token or user ids: ${JSON.stringify(draft.body)} ${JSON.stringify(userIds)}`);
    // One funding reaches every shard (an equal part each).
    const q = await call("op1", "POST", "/api/admin/adjustments", { user_id: -3, currency_id: crashToken, amount: "800000", reason: "crash run: launch supply" });
    const a = await call("op2", "POST", `/api/admin/adjustments/${q.body?.message?.id}/approve`, { reason: "crash run" });
    if (a.body?.type !== "ok") throw new Error(`treasury funding: ${JSON.stringify(q.body)} ${JSON.stringify(a.body)}`);
  }

  // ---------------------------------------------------------------- load
  const stats = { sent: 0, ok: 0, refused: {}, cut: 0, perProduct: {}, killsInFlight: {}, killsInFlightByAction: {} };
  const count = (product, action, outcome) => {
    const p = (stats.perProduct[product] ??= {});
    const a = (p[action] ??= { ok: 0, refused: 0, cut: 0 });
    a[outcome]++;
  };
  /** Ids the load acts on later (only from answers it got). */
  const seen = { positions: [], c2cUnpaid: [], c2cPaid: [], c2cDisputed: [], savings: [], covers: [], withdrawals: [], withdrawalsApproved: [], launch: [], deposits: [], projects: [], adjustments: [], fundings: [] };
  const pick = (list) => (list.length ? list[Math.floor(rnd() * list.length)] : null);
  const take = (list) => (list.length ? list.splice(Math.floor(rnd() * list.length), 1)[0] : null);
  const drop = (list, item) => list.includes(item) && list.splice(list.indexOf(item), 1);
  let devNow = (await call("", "GET", "/api/dev/clock")).body.message.now;

  /**
   * Actions on something an earlier answer named: [list, taken off it?, (item) => [who, path, body],
   * what an "ok" adds]. An empty list skips the action.
   */
  const stops = (type) => {
    const at = (pct) => (Number(index) * (1 + ((type === 1 ? 1 : -1) * pct) / 100)).toFixed(2);
    return { stop_profit: at(1), stop_loss: at(-1) };
  };
  const ON_SEEN = {
    // Stops on the right side of the index for the direction (long: profit above, loss below).
    "lever.setstop": ["positions", false, (p) => [p.who, "/api/lever/setstop", { id: p.id, ...stops(p.type) }]],
    "lever.close": ["positions", true, (p) => [p.who, "/api/lever/close", { id: p.id }]],
    "lever.cancel": ["positions", true, (p) => [p.who, "/api/lever/cancel", { id: p.id }]],
    // Half the paid orders the merchant leaves alone: their buyers appeal them.
    "c2c.paid": ["c2cUnpaid", true, (c) => [c.who, "/api/user_legal_pay", { id: c.id, pay_orders_img: proof[c.who] }], (c) => (rnd() < 0.5 ? seen.c2cPaid : seen.c2cDisputed).push(c)],
    "c2c.release": ["c2cPaid", true, (c) => ["merchant", "/api/legal_deal_user_sure", { id: c.id, password: MERCHANT_FUND_PASSWORD }]],
    "c2c.cancel": ["c2cUnpaid", true, (c) => [c.who, "/api/legal_deal_cancel_order", { id: c.id }]],
    // Appealed (once the clock has moved past the 60 s), the order leaves the merchant's hands: an operator decides it.
    "c2c.appeal": ["c2cDisputed", false, (c) => [c.who, `/api/c2c/orders/${c.id}/appeal`, { reason: "paid, not released", evidence: [proof[c.who]] }], (c) => drop(seen.c2cDisputed, c)],
    "withdraw.approve": ["withdrawals", true, (w) => ["op1", `/api/admin/withdrawals/${w.id}/approve`, { reason: "crash run" }], (w) => seen.withdrawalsApproved.push(w)],
    "withdraw.reject": ["withdrawals", true, (w) => ["op1", `/api/admin/withdrawals/${w.id}/reject`, { reason: "crash run: rejected" }]],
    "withdraw.chain": [
      "withdrawalsApproved",
      true,
      (w) => ["op2", `/api/admin/withdrawals/${w.id}/${rnd() < 0.7 ? "chain-success" : "chain-failure"}`, { reason: "crash run: chain result", txid: `crash${o.seed}tx${w.id}${"0".repeat(40)}` }],
    ],
    // A claim names the subscription (the commit's answer), not the project.
    "launch.claim": ["launch", false, (x) => [x.who, "/api/launch/claim", { id: x.id }]],
    "savings.redeem": ["savings", true, (x) => [x.who, "/api/earn/redeem", { position_id: x.id }]],
    "cover.claim": ["covers", false, (c) => [c.who, "/api/insurance/claim", { id: c.id }]],
    "deposit.approve": ["deposits", true, (d) => ["op1", `/api/admin/deposits/${d.id}/approve`, { reason: "crash run: seen on chain" }]],
    "deposit.reject": ["deposits", true, (d) => ["op1", `/api/admin/deposits/${d.id}/reject`, { reason: "crash run: no such transaction" }]],
    "launch.cancel": ["projects", true, (p) => ["op1", "/api/admin/launch/cancel", { id: p.id, reason: "crash run: cancelled" }]],
    "adjust.approve": ["adjustments", true, (a) => ["op2", `/api/admin/adjustments/${a.id}/approve`, { reason: "crash run: approved" }]],
    "adjust.reject": ["adjustments", true, (a) => ["op2", `/api/admin/adjustments/${a.id}/reject`, { reason: "crash run: rejected" }]],
    "fund.approve": ["fundings", true, (a) => ["op2", `/api/admin/adjustments/${a.id}/approve`, { reason: "crash run: approved" }]],
  };
  /** Products with a request in flight (a kill point counts for each product it cut through). */
  const inFlight = new Map();
  const inFlightAction = new Map();
  let depositNo = 0;

  async function act() {
    let x = rnd() * total;
    const [product, action] = actions.find(([, , w]) => (x -= w) < 0) ?? actions[0];
    const named = `${product}.${action}`;
    inFlight.set(product, (inFlight.get(product) ?? 0) + 1);
    inFlightAction.set(named, (inFlightAction.get(named) ?? 0) + 1);
    try {
      await actOn(product, action);
    } finally {
      inFlight.set(product, inFlight.get(product) - 1);
      inFlightAction.set(named, inFlightAction.get(named) - 1);
    }
  }

  async function actOn(product, action) {
    const who = rnd() < 0.5 ? "demo1" : "demo2";
    let r;
    let after = () => {};
    const onSeen = ON_SEEN[`${product}.${action}`];
    if (onSeen) {
      const [list, remove, request, added] = onSeen;
      const item = remove ? take(seen[list]) : pick(seen[list]);
      if (!item) return;
      const [by, p, body] = request(item);
      r = await call(by, "POST", p, body);
      if (added) after = () => added(item);
    }
    switch (onSeen ? "" : `${product}.${action}`) {
      case "":
        break;
      case "lever.open": {
        const type = rnd() < 0.5 ? 1 : 2;
        // One open in three by the invitee: its fees are demo2's rebates.
        const opener = rnd() < 0.34 && !objects ? "inv" : who;
        r = await call(opener, "POST", "/api/lever/submit", { currency_id: 1, legal_id: 3, type, share: 1, multiple: rnd() < 0.5 ? 10 : 100, index_price: index });
        after = (m) => seen.positions.push({ who: opener, id: m.id, type });
        break;
      }
      case "lever.shock": {
        // The index swings about 1.4 % (a taker eats one side and rests beyond it, the market maker
        // quotes the emptied side again): stops and liquidations of 100x positions come due.
        const down = shockDown;
        shockDown = !shockDown;
        r = await call(down ? "demo1" : "demo2", "POST", down ? "/api/transaction/walletOut" : "/api/transaction/walletIn", { currency_id: 1, legal_id: 3, price: down ? "59200.00" : "60800.00", num: "0.050000", mode: 2 });
        await call("mm", "POST", down ? "/api/transaction/walletIn" : "/api/transaction/walletOut", { currency_id: 1, legal_id: 3, price: down ? "59100.00" : "60900.00", num: "0.001000", mode: 2 });
        index = down ? "59150.00" : "60850.00";
        break;
      }
      case "deposit.claim":
        r = await call(who, "POST", "/api/wallet/charge_req", { currency: 3, acc: depositAddress.address, amount: String(5 + Math.floor(rnd() * 20)), pic: proof[who], hash: `crash${o.seed}d${++depositNo}` });
        after = (m) => seen.deposits.push({ who, id: m.id });
        break;
      case "rebate.trade": {
        // The invitee takes a little of the book (a fee on the trade: demo2's rebate the next day), buying or selling.
        const buy = rnd() < 0.5;
        r = await call("inv", "POST", buy ? "/api/transaction/walletIn" : "/api/transaction/walletOut", { currency_id: 1, legal_id: 3, price: (Number(index) * (buy ? 1.01 : 0.99)).toFixed(2), num: "0.000100", mode: 2 });
        break;
      }
      case "conversion.convert":
        r = await call(who, "POST", "/api/user/shandui_sub", { from_currency: 1, to_currency: 3, money: "0.001" });
        break;
      case "launch.commit": {
        // Objects mode: the seeded project (published before the cut-over) or one published since.
        const target = objects && seen.projects.length && rnd() < 0.7 ? pick(seen.projects) : project;
        if (!target) return;
        r = await call(who, "POST", "/api/launch/commit", { project_id: target.id, currency_id: target.prices[0].currency_id, amount: String(5 + Math.floor(rnd() * 20)) });
        after = (m) => seen.launch.some((x) => x.who === who && x.project === target.id) || seen.launch.push({ who, project: target.id, id: m.id });
        break;
      }
      case "launch.publish": {
        // A draft in the token the treasury was funded with, a window of a day or two, vesting over two days in two steps; then its publication (the reserve held in treasury shard id mod 8).
        const end = devNow + (2 + Math.floor(rnd() * 4)) * 86_400_000;
        const draft = await call("op1", "POST", "/api/admin/launch/projects", { title: `Crash launch ${o.seed}`, token_id: crashToken, prices: [{ currency_id: 3, price: "0.1" }], supply: "400", cap: "300", start_at: devNow, end_at: end, cliff_days: 0, vest_days: 3, vest_steps: 3, reason: "crash run" });
        if (draft.body?.type !== "ok") {
          count("launch", "draft", draft.status === 0 || draft.status >= 500 ? "cut" : "refused");
          return;
        }
        r = await call("op1", "POST", "/api/admin/launch/publish", { id: draft.body.message.id, reason: "crash run" });
        after = (m) => seen.projects.push({ id: m.id, prices: m.prices });
        break;
      }
      case "adjust.request": {
        const amount = `${rnd() < 0.5 ? "-" : ""}${1 + Math.floor(rnd() * 9)}.5`;
        r = await call("op1", "POST", "/api/admin/adjustments", { user_id: who === "demo1" ? userIds.demo1 : userIds.demo2, currency_id: 3, account: rnd() < 0.8 ? "change" : "micro", amount, reason: "crash run" });
        after = (m) => seen.adjustments.push({ id: m.id });
        break;
      }
      case "fund.request": {
        // Treasury funding (in from outside) in USDT or the launch token, or money leaving the treasury.
        const x = rnd();
        const [currency, amount] = x < 0.4 ? [3, "50"] : x < 0.7 ? [crashToken, "2500"] : [3, "-20"];
        r = await call("op1", "POST", "/api/admin/adjustments", { user_id: -3, currency_id: currency, amount, reason: "crash run: treasury" });
        after = (m) => seen.fundings.push({ id: m.id });
        break;
      }
      case "c2c.decide": {
        // An operator decides an open appeal: coins to the buyer (accepted) or back to the seller.
        const list = (await call("op1", "GET", "/api/admin/c2c/appeals?status=0")).body?.message?.lists ?? [];
        const open = list.filter((a) => a.status === 0 && !a.own);
        if (!open.length) return;
        const a = pick(open);
        const release = rnd() < 0.6;
        action = release ? "accept" : "reject";
        r = await call("op1", "POST", `/api/admin/c2c/appeals/${a.id}/${release ? "release" : "return"}`, { reason: release ? "crash run: the payment arrived" : "crash run: no payment" });
        break;
      }
      case "withdraw.request":
        r = await call(who, "POST", "/api/wallet/out", { currency: 3, address: CHAIN_ADDRESS, number: String(10 + Math.floor(rnd() * 20)), type: 1, password: FUND_PASSWORD });
        after = (m) => seen.withdrawals.push({ who, id: m.id });
        break;
      case "cover.lose":
        // A 30 s seconds contract of 60 USDT: with the index unmoved it ends in a tie, which loses,
        // taking a 100 USDT cover bought earlier below its 50 % claim threshold.
        r = await call(who, "POST", "/api/microtrade/submit", { match_id: 1, currency_id: 3, type: rnd() < 0.5 ? 1 : 2, seconds: 30, number: "60" });
        break;
      case "vote.cast":
        if (!candidates.length) return;
        r = await call(who, "POST", "/api/vote/cast", { candidate_id: pick(candidates) });
        break;
      case "c2c.order":
        r = await call(who, "POST", "/api/do_legal_deal", { id: 1, value: String(15 + Math.floor(rnd() * 20)) });
        after = (m) => seen.c2cUnpaid.push({ who, id: m.data.id });
        break;
      case "transfer.transfer": {
        const [from, to] = rnd() < 0.5 ? ["change", "micro"] : ["micro", "change"];
        r = await call(who, "POST", "/api/wallet/change", { number: "1.5", from_field: from, to_field: to, currency_id: 3 });
        break;
      }
      case "savings.subscribe":
        r = await call(who, "POST", "/api/earn/subscribe", { product_id: pick(savingsProducts), amount: "20" });
        after = (m) => seen.savings.push({ who, id: m.id });
        break;
      case "cover.buy":
        if (!coverPlan) return;
        r = await call(who, "POST", "/api/insurance/buy", { plan_id: coverPlan, amount: "100" });
        after = (m) => seen.covers.push({ who, id: m.id });
        break;
      case "mining.buy":
        if (!miningPlan) return;
        r = await call(who, "POST", "/api/mining/buy", { plan_id: miningPlan, shares: 1 });
        break;
      case "mining.record": {
        // The hour before the clock's: recorded by one operator, approved by the other.
        const hour = Math.floor(devNow / HOUR) * HOUR - HOUR;
        r = await call("op1", "POST", "/api/admin/mining/payouts", { plan_id: miningPlan, hour, amount: "0.001", evidence: `0xcrash${o.seed}h${hour}`, reason: "crash run" });
        after = async (m) => {
          const a = await call("op2", "POST", "/api/admin/mining/payouts/approve", { id: m.id, reason: "crash run" });
          count("mining", "approve", a.status === 200 && a.body?.type === "ok" ? "ok" : a.status === 0 || a.status >= 500 ? "cut" : "refused");
        };
        break;
      }
      case "cron.run": {
        const cron = pick(["* * * * *", "* * * * *", "0 * * * *", "0 0 * * *"]);
        r = await call("", "POST", "/api/dev/cron", { cron });
        if (r.body?.message?.failed) stats.cronJobsFailed = (stats.cronJobsFailed ?? 0) + r.body.message.failed;
        break;
      }
      case "clock.advance": {
        // Mostly minutes, one in seven a day, one in ten a week (launch windows and vesting, fixed savings terms, covers' ends).
        const x = rnd();
        const s = x < 0.1 ? 7 * 86_400 : x < 0.25 ? 86_400 : 60 + Math.floor(rnd() * 3600);
        r = await call("", "POST", "/api/dev/clock", { advance_s: s });
        after = (m) => (devNow = m.now);
        break;
      }
      default:
        return;
    }
    stats.sent++;
    if (r.status === 200 && r.body?.type === "ok") {
      stats.ok++;
      count(product, action, "ok");
      await after(r.body.message);
    } else if (r.status === 0 || r.status >= 500) {
      stats.cut++;
      count(product, action, "cut");
      await sleep(20);
    } else {
      const code = `${product}.${action}:${r.body?.code ?? r.status}`;
      stats.refused[code] = (stats.refused[code] ?? 0) + 1;
      count(product, action, "refused");
    }
  }

  let running = false;
  let serverUp = true;
  async function loop() {
    while (running) {
      if (!serverUp) {
        await sleep(20);
        continue;
      }
      await act();
    }
  }
  running = true;
  const loadPromise = Promise.all(Array.from({ length: o.concurrency }, loop));

  const crashLog = [];
  for (let i = 1; i <= o.crashes; i++) {
    const runMs = Math.round(o.minRunMs + killRnd() * (o.maxRunMs - o.minRunMs));
    await sleep(runMs);
    serverUp = false;
    const cutThrough = [...inFlight].filter(([, n]) => n > 0).map(([p]) => p);
    for (const [a, n] of inFlightAction) if (n > 0) stats.killsInFlightByAction[a] = (stats.killsInFlightByAction[a] ?? 0) + 1;
    server.kill9();
    await server.exited;
    const tKill = now();
    client.close();
    client = httpClient(server.url, { timeoutMs: 20_000 });
    server = await startServer({ root, dir, port, pepper, vars });
    serverUp = true;
    crashLog.push({ crash: i, afterMs: runMs, restartMs: Math.round(now() - tKill), sentSoFar: stats.sent, inFlight: cutThrough });
    for (const p of cutThrough) stats.killsInFlight[p] = (stats.killsInFlight[p] ?? 0) + 1;
    say(`crash ${i}/${o.crashes}: kill -9 after ${runMs} ms of load; restart ${Math.round(now() - tKill)} ms; ${stats.sent} actions so far`);
  }
  await sleep(1000);
  running = false;
  await loadPromise;

  // ---------------------------------------------------------------- quiet: a day ahead, every cron, the objects drained
  // Fifteen days, then one more: every launch window has ended (the seeded one is 14 days), so each commitment settles.
  say("load stopped; moving the clock 16 days ahead and running every cron");
  for (let round = 0; round < 4; round++) {
    if (round < 2) await call("", "POST", "/api/dev/clock", { advance_s: round === 0 ? 15 * 86_400 : 86_400 });
    for (const cron of ["* * * * *", "0 * * * *"]) await call("", "POST", "/api/dev/cron", { cron });
    await call("", "GET", `/api/currency/depth?currency_id=${pair.currencyId}&legal_id=3`);
    await sleep(1500);
  }
  // Objects mode: the last legs delivered and every object drained before the reconciler reads them, and its own drains after.
  if (objects) await sleep(3000);
  await call("", "POST", "/api/dev/cron", { cron: "0 0 * * *" });
  if (objects) await sleep(3000);
  client.close();
  await server.stop();

  say("checking invariants");
  const checks = objects ? await checkLeverObjects({ root, dir, cut }) : await checkProducts({ root, dir });
  const failed = checks.filter((c) => !c.ok);
  const report = { seed: o.seed, crashPoints: o.crashes, crashLog, stats, checks, passed: failed.length === 0, seconds: +((now() - t0) / 1000).toFixed(1) };
  if (!o.quiet) {
    console.log(`\nSeed ${o.seed}: ${o.crashes} kills; ${stats.sent} actions (${stats.ok} ok, ${stats.cut} cut by a kill), cron jobs failed: ${stats.cronJobsFailed ?? 0}, logins again after the clock passed 30 days: ${stats.relogins ?? 0}`);
    for (const [p, acts] of Object.entries(stats.perProduct)) console.log(`  ${p.padEnd(9)} ${Object.entries(acts).map(([a, c]) => `${a} ${c.ok}/${c.refused}/${c.cut}`).join(", ")}   (ok/refused/cut)`);
    console.log(`Kill points per product (kills with a request of it in flight): ${JSON.stringify(stats.killsInFlight)}`);
    console.log(`Kill points per action: ${JSON.stringify(stats.killsInFlightByAction)}`);
    console.log(`Refused: ${JSON.stringify(stats.refused)}`);
    console.log(`States after the run: ${checks.info.statuses.map((r) => `${r.t}/${r.status}: ${r.n}`).join(", ")}`);
    for (const c of checks) console.log(`${c.ok ? "PASS" : "FAIL"}  ${c.name}${c.detail ? `: ${c.detail}` : ""}`);
    console.log(`\n${report.passed ? "All invariants hold" : `${failed.length} invariant(s) FAILED`} (${report.seconds} s)`);
  }
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(report, null, 2));
  return report;
}

const countBy = (rows, k) => rows.reduce((a, r) => ((a[r[k]] = (a[r[k]] ?? 0) + 1), a), {});

/** Reads D1 and checks the per-product invariants. */
export async function checkProducts({ root, dir }) {
  const [reports, merchant, c2cOrders, c2cBoth, leverFrozen, leverOpen, leverCloses, accruals, earnPays, miningPaid, miningKeys, nights, withdrawals, orphanFreezes, appeals, covers, rebates, rebatePays, launchSubs, ...statuses] = await d1(
    root,
    dir,
    `SELECT ok, differences, stats FROM reconciliation_reports ORDER BY id DESC LIMIT 1;
     SELECT u.id, CAST(b.frozen AS TEXT) AS frozen,
            CAST((SELECT COALESCE(SUM(deposit), 0) FROM c2c_merchants WHERE user_id = u.id AND status IN (0, 1)) AS TEXT) AS deposit,
            CAST((SELECT COALESCE(SUM(remaining), 0) FROM c2c_adverts WHERE user_id = u.id AND type = 'sell' AND status IN (1, 2, 4)) AS TEXT) AS adverts,
            CAST((SELECT COALESCE(SUM(amount), 0) FROM c2c_orders WHERE seller_id = u.id AND is_sure IN (0, 3)) AS TEXT) AS open_orders
       FROM users u JOIN balances b ON b.user_id = u.id AND b.currency_id = 3 AND b.account = 'legal' WHERE u.account = 'merchant@exchange.test';
     SELECT is_sure, count(*) AS n FROM c2c_orders GROUP BY is_sure;
     SELECT key FROM movements WHERE key LIKE 'c2c:%';
     SELECT user_id, CAST(frozen AS TEXT) AS frozen FROM balances WHERE account = 'lever' AND currency_id = 3 AND user_id > 0;
     SELECT user_id, CAST(SUM(margin - overnight) AS TEXT) AS margin, count(*) AS n FROM lever_positions WHERE status IN (0, 1, 2, 3) GROUP BY user_id;
     SELECT p.id, p.status, (SELECT count(*) FROM movements m WHERE m.key = 'lever:' || p.id || ':close') AS closes FROM lever_positions p;
     SELECT a.position_id, a.day, CAST(a.amount AS TEXT) AS amount, p.term_days FROM earn_accruals a JOIN earn_positions p ON p.id = a.position_id;
     SELECT key FROM movements WHERE key LIKE 'earn:%:day:%';
     SELECT plan_id, hour, status, CAST(amount AS TEXT) AS amount FROM mining_payouts;
     SELECT key FROM movements WHERE key LIKE 'mining:%:%:%';
     SELECT key FROM movements WHERE key LIKE 'lever:%:night:%';
     SELECT w.id, w.status, (SELECT count(*) FROM movements m WHERE m.key = w.freeze_key) AS freezes,
            (SELECT count(*) FROM movements m WHERE m.key = 'withdrawal-final:' || w.id) AS finals FROM withdrawals w WHERE w.status <> 5;
     SELECT key FROM movements WHERE key LIKE 'withdrawal-freeze:%' AND key NOT IN (SELECT freeze_key FROM withdrawals);
     SELECT p.id, p.order_id, p.status, o.is_sure,
            (SELECT count(*) FROM movements m WHERE m.key = 'c2c:' || p.order_id || ':release') AS released,
            (SELECT count(*) FROM movements m WHERE m.key = 'c2c:' || p.order_id || ':return') AS returned
       FROM c2c_appeals p JOIN c2c_orders o ON o.id = p.order_id;
     SELECT v.id, v.status, (SELECT count(*) FROM movements m WHERE m.key = 'insurance:' || v.id || ':settle') AS settles,
            (SELECT kind FROM movements m WHERE m.key = 'insurance:' || v.id || ':settle') AS kind FROM insurance_covers v;
     SELECT day, inviter_id, CAST(SUM(amount) AS TEXT) AS amount FROM invite_rebates GROUP BY day, inviter_id;
     SELECT l.movement_key AS key, l.user_id, CAST(l.d_available AS TEXT) AS amount FROM ledger l WHERE l.movement_key LIKE 'invite-rebate:%' AND l.user_id > 0;
     SELECT s.id, s.status, (SELECT count(*) FROM movements m WHERE m.key = 'launch:sub:' || s.id || ':settle') AS settles FROM launch_subscriptions s;
     SELECT 'lever' AS t, coalesce(close_reason, status) AS status, count(*) AS n FROM lever_positions GROUP BY 2;
     SELECT 'earn' AS t, status, count(*) AS n FROM earn_positions GROUP BY status;
     SELECT 'cover' AS t, status, count(*) AS n FROM insurance_covers GROUP BY status;
     SELECT 'mining_payout' AS t, status, count(*) AS n FROM mining_payouts GROUP BY status;
     SELECT 'c2c' AS t, is_sure AS status, count(*) AS n FROM c2c_orders GROUP BY is_sure;
     SELECT 'launch' AS t, status, count(*) AS n FROM launch_subscriptions GROUP BY status;
     SELECT 'withdrawal' AS t, status, count(*) AS n FROM withdrawals GROUP BY status;
     SELECT 'c2c_appeal' AS t, status, count(*) AS n FROM c2c_appeals GROUP BY status;
     SELECT 'invite_run' AS t, phase AS status, count(*) AS n FROM invite_runs GROUP BY phase;
     SELECT 'vote_hold' AS t, released_at IS NOT NULL AS status, count(*) AS n FROM vote_holds GROUP BY 2;`,
  );
  const checks = [];
  const check = (name, ok, detail = "") => checks.push({ name, ok, detail: String(detail).slice(0, 1500) });
  const big = (v) => BigInt(v ?? 0);

  const rep = reports[0];
  check(
    "the reconciler's report (run last, by the daily cron): ledger sums to zero per currency, balances = ledger, movements net to zero, nothing negative, every frozen amount = the product holds explaining it (treasury included)",
    !!rep && rep.ok === 1,
    rep ? (rep.ok === 1 ? JSON.parse(rep.stats).hold_sources?.join(", ") : rep.differences) : "no report",
  );

  const m = merchant[0];
  const escrowOk = m && big(m.frozen) === big(m.deposit) + big(m.adverts) + big(m.open_orders);
  check("C2C: the merchant's frozen USDT = deposit + sell-advert escrow + open orders' amounts", !!escrowOk, m ? `frozen ${m.frozen} = ${m.deposit} + ${m.adverts} + ${m.open_orders}; orders by is_sure ${JSON.stringify(c2cOrders)}` : "no merchant");
  const ends = new Map();
  for (const { key } of c2cBoth) {
    const mm = /^c2c:(\d+):(release|return)$/.exec(key);
    if (mm) ends.set(mm[1], [...(ends.get(mm[1]) ?? []), mm[2]]);
  }
  const twice = [...ends].filter(([, ks]) => ks.length > 1);
  check("C2C: no order ended twice (released and returned, or either twice)", twice.length === 0, twice.length ? JSON.stringify(twice.slice(0, 10)) : `${ends.size} ended orders by movement key; keys seen ${c2cBoth.length}`);

  const open = new Map(leverOpen.map((r) => [r.user_id, r]));
  const badLever = leverFrozen.filter((b) => big(b.frozen) !== big(open.get(b.user_id)?.margin));
  check("lever: each user's frozen lever USDT = the margin (less overnight fees taken) of their open positions", badLever.length === 0, badLever.length ? JSON.stringify(badLever.map((b) => ({ ...b, margin: open.get(b.user_id)?.margin ?? "0" }))) : `${leverOpen.reduce((a, r) => a + r.n, 0)} open positions`);
  const badClose = leverCloses.filter((p) => p.closes > 1 || (p.status === 4 && p.closes !== 1));
  check("lever: every closed position has exactly one close movement, none has two", badClose.length === 0, badClose.length ? JSON.stringify(badClose.slice(0, 10)) : `${leverCloses.length} positions`);

  const dayKeys = new Set(earnPays.map((r) => r.key));
  const perDay = new Map();
  for (const a of accruals) perDay.set(`${a.position_id}:${a.day}`, (perDay.get(`${a.position_id}:${a.day}`) ?? 0) + 1);
  const badEarn = [...perDay].filter(([, n]) => n > 1);
  const flexPaid = accruals.filter((a) => a.term_days === 0 && big(a.amount) > 0n);
  const missing = flexPaid.filter((a) => !dayKeys.has(`earn:${a.position_id}:day:${a.day}`));
  check("savings: each interest day accrued once per position, each flexible day paid by exactly one movement", badEarn.length === 0 && missing.length === 0 && dayKeys.size === flexPaid.length, `${accruals.length} accruals, ${dayKeys.size} day payments${missing.length ? `; missing ${JSON.stringify(missing.slice(0, 5))}` : ""}`);

  const perHour = new Map();
  for (const { key } of miningKeys) {
    const mm = /^mining:(\d+):(\d+):(\w+)$/.exec(key);
    if (mm) perHour.set(`${mm[1]}:${mm[2]}`, [...(perHour.get(`${mm[1]}:${mm[2]}`) ?? []), mm[3]]);
  }
  const dupHolders = [...perHour].filter(([, who]) => new Set(who).size !== who.length);
  const paidWithout = miningPaid.filter((p) => p.status === "paid" && !perHour.has(`${p.plan_id}:${p.hour}`));
  const keysWithout = [...perHour.keys()].filter((k) => !miningPaid.some((p) => `${p.plan_id}:${p.hour}` === k && (p.status === "paid" || p.status === "approved")));
  check("mining: each recorded hour paid at most once per holder, and only approved hours paid", dupHolders.length === 0 && keysWithout.length === 0, `${miningPaid.filter((p) => p.status === "paid").length} hours paid, ${miningKeys.length} payout movements${paidWithout.length ? `; ${paidWithout.length} paid hours with no holder (none held)` : ""}`);

  const nightDup = new Map();
  for (const { key } of nights) nightDup.set(key, (nightDup.get(key) ?? 0) + 1);
  check("lever: each overnight fee at most once per position and day", [...nightDup.values()].every((n) => n === 1), `${nights.length} overnight fees`);

  // Withdrawals: one freeze per request, one final movement per ended one (sent, failed, rejected), none while open.
  const badW = withdrawals.filter((w) => w.freezes !== 1 || w.finals !== ([2, 3, 4].includes(w.status) ? 1 : 0));
  check("withdrawals: each request froze once; each sent, failed or rejected one settled by exactly one movement, an open one by none; no freeze without its record", badW.length === 0 && orphanFreezes.length === 0, badW.length || orphanFreezes.length ? JSON.stringify({ bad: badW.slice(0, 10), orphanFreezes: orphanFreezes.slice(0, 5) }) : `${withdrawals.length} withdrawals, by status ${JSON.stringify(countBy(withdrawals, "status"))}`);

  // C2C appeals: a decided one ended its order the way it was decided, once; an open one not at all.
  const badAppeal = appeals.filter((a) => (a.status === 0 ? a.released + a.returned !== 0 : a.status === 1 ? a.released !== 1 || a.returned !== 0 : a.status === 2 ? a.returned !== 1 || a.released !== 0 : a.released + a.returned > 1));
  check("C2C appeals: an accepted appeal released its order's coins to the buyer once, a rejected one returned them to the seller once, an open one moved nothing", badAppeal.length === 0, badAppeal.length ? JSON.stringify(badAppeal.slice(0, 10)) : `${appeals.length} appeals, by status ${JSON.stringify(countBy(appeals, "status"))}`);

  // Covers: a paid cover by exactly one payout, an ended one by one release of its reserve, a live or queued one by none.
  const badCover = covers.filter((v) => (v.status <= 1 ? v.settles !== 0 : v.settles !== 1 || (v.status === 2) !== (v.kind === "insurance_payout")));
  check("cover: each paid claim paid by exactly one payout movement, each ended cover settled once, a live or queued cover not at all", badCover.length === 0, badCover.length ? JSON.stringify(badCover.slice(0, 10)) : `${covers.length} covers, by status ${JSON.stringify(countBy(covers, "status"))}`);

  // Rebates: each settled day pays each inviter exactly the sum of its rebate lines, by one movement.
  const paid = new Map(rebatePays.map((r) => [r.key, r]));
  const owed = rebates.filter((r) => big(r.amount) > 0n);
  const badRebate = owed.filter((r) => big(paid.get(`invite-rebate:${r.day}:${r.inviter_id}`)?.amount) !== big(r.amount));
  const strayRebate = rebatePays.filter((p) => !owed.some((r) => `invite-rebate:${r.day}:${r.inviter_id}` === p.key));
  check("rebates: each settled day paid each inviter the sum of its rebate lines by exactly one movement, and nothing else", badRebate.length === 0 && strayRebate.length === 0, badRebate.length || strayRebate.length ? JSON.stringify({ badRebate: badRebate.slice(0, 5), strayRebate: strayRebate.slice(0, 5) }) : `${owed.length} (day, inviter) payments`);

  // Launch: each commitment settled (allocated or refunded) by exactly one movement once its window ended, none before.
  const badLaunch = launchSubs.filter((x) => x.settles !== (x.status === "committed" ? 0 : 1));
  check("launch: each subscription settled by exactly one movement once its window ended, none before", badLaunch.length === 0, badLaunch.length ? JSON.stringify(badLaunch.slice(0, 10)) : `${launchSubs.length} subscriptions, by status ${JSON.stringify(countBy(launchSubs, "status"))}`);
  checks.info = { statuses: statuses.flat() };
  return checks;
}

/**
 * Objects mode: the account objects' invariants (bench/lib/objects.mjs) and lever's, read from the
 * objects' SQLite files and D1's read model (lever_positions, spot_orders).
 */
export async function checkLeverObjects({ root, dir, cut }) {
  const [positions, spotOrders, pairRows, currencyRows, ...statuses] = await d1(
    root,
    dir,
    `SELECT id, user_id, status, close_reason, CAST(margin AS TEXT) AS margin, CAST(fee AS TEXT) AS fee, CAST(hold AS TEXT) AS hold, CAST(overnight AS TEXT) AS overnight, CAST(COALESCE(profit, 0) - COALESCE(close_fee, 0) AS TEXT) AS won, fee_held FROM lever_positions;
     SELECT id, user_id, pair_id, side, price, qty, filled, reserved_units, reserved_currency, status FROM spot_orders;
     SELECT id, currency_id, legal_id, price_decimals, qty_decimals FROM pairs;
     SELECT id, scale FROM currencies;
     SELECT 'lever' AS t, coalesce(close_reason, status) AS status, count(*) AS n FROM lever_positions GROUP BY 2;
     SELECT 'spot' AS t, status, count(*) AS n FROM spot_orders GROUP BY status;`,
  );
  const big = (v) => BigInt(v ?? 0);
  const scale = new Map(currencyRows.map((c) => [c.id, c.scale]));
  const pairById = new Map(pairRows.map((p) => [p.id, p]));
  const spotHold = spotHoldExplainer(spotOrders, (r) => openReservation(r, pairById.get(r.pair_id), scale));
  const byId = new Map(positions.map((p) => [String(p.id), p]));
  const isOpen = (p) => p.status <= 3;
  // What a position's user hold holds while it is open: the margin, the open fee while held (a pending limit's until its
  // fill, `fee_held` 1, migrations/0056; 2: a pending limit carried over the cut-over, whose fee its fee shard holds),
  // less the overnight fees taken.
  const userHeld = (p) => big(p.margin) + (Number(p.fee_held ?? 1) === 1 ? big(p.fee) : 0n) - big(p.overnight);
  const { products, launches, explain: recordHold } = await d1RecordHoldsView(root, dir);
  const explain = (owner, h) => {
    const [kind, id] = h.hold.split(":");
    if (kind === "spot_order") return spotHold(owner, h);
    if (kind !== "lever_margin") {
      // null: explained; undefined: not one of the D1 products' holds either.
      const problem = recordHold(owner, h);
      return problem === undefined ? "no product explains it" : problem;
    }
    const p = byId.get(id);
    if (!p || !isOpen(p)) return `position ${id} ${p ? `has status ${p.status}` : "is not in D1"}`;
    const rest = h.amount - h.spent - h.released;
    const held = userHeld(p);
    if (owner.shard === null) return owner.userId === p.user_id && h.kind === "lever" && rest === held ? null : `position ${id} holds margin + fee (while held) - overnight = ${held}`;
    return owner.userId === -3 && owner.shard === Number(id) % 8 && rest === big(p.hold) ? null : `position ${id}'s cover is ${p.hold} in shard ${Number(id) % 8}`;
  };
  const positionHolds = {
    name: "lever: each open position's two holds open, each closed or revoked one's resolved (a revoked one's released whole); one close leg per closed position, none otherwise; the overnight fees its hold paid = D1's record",
    detail: `${positions.length} positions`,
    check: (objects) => {
      const bad = [];
      for (const p of positions) {
        const user = objects.users.get(p.user_id);
        const house = objects.shards.get(`-3:${Number(p.id) % 8}`);
        const u = user?.holdByName.get(`lever_margin:${p.id}`);
        const hh = house?.holdByName.get(`lever_margin:${p.id}`);
        if (!u || !hh) {
          bad.push({ id: p.id, problem: "a hold is missing", user: !!u, house: !!hh });
          continue;
        }
        // A trading position whose overnight fees took its whole margin has spent its user hold in full (resolved) and
        // stays open on its unrealised profit (the liquidation rule counts margin plus profit): only its cover is still open.
        if ((isOpen(p) && userHeld(p) > 0n) !== u.open || isOpen(p) !== hh.open) bad.push({ id: p.id, status: p.status, problem: "holds' state", user: u.open, house: hh.open, held: String(userHeld(p)) });
        if (p.status === 5 && (u.spent !== 0n || hh.spent !== 0n || u.released !== u.amount || hh.released !== hh.amount)) bad.push({ id: p.id, problem: "revoked but a hold was spent" });
        const refs = (o, like) => sqlite(o.file, `SELECT ref, CAST(d_frozen AS TEXT) AS f FROM money_movements WHERE ref LIKE '${like}'`);
        const closes = new Set(refs(user, `lever:${p.id}:close:%`).map((r) => r.ref.split("#")[0]));
        // A close with nothing left in the user's hold (overnight fees took the margin) and no win beyond the close fee
        // moves nothing of theirs: no leg (durable/pair/desks/lever-objects.ts leverCloseLegs keeps only non-zero ops).
        const closeLeg = p.status === 4 && (userHeld(p) > 0n || big(p.won) > 0n);
        if (closes.size !== (closeLeg ? 1 : 0)) bad.push({ id: p.id, status: p.status, problem: "close legs", closes: [...closes], held: String(userHeld(p)), won: p.won });
        const nights = refs(user, `lever:${p.id}:fee:%`);
        const taken = nights.reduce((a, r) => a - big(r.f), 0n);
        if (taken !== big(p.overnight)) bad.push({ id: p.id, problem: "overnight fees taken differ from D1's", object: String(taken), d1: p.overnight, legs: nights.length });
      }
      return bad;
    },
  };
  const external = new Map(products.external);
  for (const [c, v] of launches.external) external.set(c, (external.get(c) ?? 0n) + v);
  const checks = await checkAccountObjects({ root, dir, ...cut, explain, records: [positionHolds, ...products.records, ...launches.records], external });
  checks.info = { statuses: [...statuses.flat(), ...products.statuses, ...launches.statuses] };
  return checks;
}

runWhenMain(import.meta.url, main, { "--crashes": "crashes", "--seed": "seed", "--min-run-ms": "minRunMs", "--max-run-ms": "maxRunMs", "--concurrency": "concurrency", "--port": "port" });
