#!/usr/bin/env node
// D1 statements and round trips per user action, counted on the real Worker run locally (issue #17
// §4, the scale plan in bench/README.md). No product code changes: the Worker is bundled from a
// snapshot of the sources (bench/lib/server.mjs) with a wrapper entry (written into the snapshot
// only) that re-exports worker/index.ts and patches the D1 client's prototype in the runtime's
// isolate, where the Worker and both Durable Object classes run. Every call that reaches the D1
// simulator goes through the session's `_send` (one round trip: a prepared statement's
// first/run/all/raw, or a whole `batch`), so the wrapper counts round trips and statements there,
// split into reads (SELECT, WITH … SELECT) and writes. The wrapper answers `GET /__d1count` with
// the counters; nothing else changes.
//
//   npm exec -- node bench/d1-count.mjs                 # every action, a markdown table
//   npm exec -- node bench/d1-count.mjs --json FILE     # the counts as JSON too
//   npm exec -- node bench/d1-count.mjs --only c2c,seconds   # some of them (spot, transfer, conversion, seconds, lever, deposit, withdrawal, c2c)
//   npm exec -- node bench/d1-count.mjs --accounts objects --only spot,transfer
//   npm exec -- node bench/d1-count.mjs --accounts objects --only spot --collectors 0
//                                                       # the accounts' drains without collector objects (as before session 15)
//                                                       # balances in the account objects (ACCOUNTS=objects, issue #28):
//                                                       # the users are opened in their objects first (the cut-over's migration)
//   npm exec -- node bench/d1-count.mjs --accounts objects --sql   # and each action's Worker-path statements (their first words)
//
// "Worker path" columns: the statements the Worker itself sent while handling the action's
// requests (an AsyncLocalStorage mark set around its fetch handler; the objects' alarms and
// drains run outside it): the synchronous path. The other columns count everything from quiet to
// quiet, drains included.
//
// Each action runs `--repeat` times (default 3) after one warm-up; after each, the script waits
// until the counters stop moving (the pair object's drain and the user channel's notices run after
// the answer), then takes the difference. Triggers are not counted (they run inside the
// statement that fires them). The market maker is off; the idle rate (heartbeat alarms, if any) is
// measured first and reported.
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { httpClient, login } from "./lib/client.mjs";
import { ACCOUNTS, PAIRS, batchRequest, batchStream, orderRequest, orderStream, warmupOrders } from "./lib/orders.mjs";
import { ROOT, d1, freePort, log, openAccountObjects, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";

const args = new Map();
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (!a.startsWith("--")) continue;
  const next = process.argv[i + 1];
  if (next === undefined || next.startsWith("--")) args.set(a.slice(2), true);
  else args.set(a.slice(2), process.argv[++i]);
}
const REPEAT = Number(args.get("repeat") ?? 3);
/** --accounts objects: the exchange's balances switch (worker/lib/accounts.ts); default d1. */
const ACCOUNTS_MODE = args.get("accounts") === "objects" ? "objects" : "d1";
/** --collectors N (objects mode): the read model's collector objects (wrangler.toml DRAIN_COLLECTORS; 0 = each account drains itself, as before session 15). */
const COLLECTORS = typeof args.get("collectors") === "string" ? args.get("collectors") : null;
/** --only spot,transfer,conversion,seconds,lever,deposit,withdrawal,c2c: a subset of the actions. */
const ONLY = typeof args.get("only") === "string" ? args.get("only").split(",") : null;
const want = (name) => !ONLY || ONLY.includes(name);

const ENTRY = `// bench/d1-count.mjs: counts D1 round trips and statements in this isolate (snapshot only).
import { AsyncLocalStorage } from "node:async_hooks";
import handler from "./index.ts";
export { PairDurableObject, UserDurableObject } from "./index.ts";

/** The Worker path's statements, their SQL's first words (--sql prints them per action). */
const workerSql: string[] = [];
const stats = { roundTrips: 0, statements: 0, reads: 0, writes: 0, batches: 0, rowsRead: 0, rowsWritten: 0, sqlMs: 0, patched: "", workerRoundTrips: 0, workerStatements: 0, workerReads: 0, workerWrites: 0 };
/** Set while the Worker's own fetch handler runs (not the objects' calls, alarms or drains). */
const inWorker = new AsyncLocalStorage<boolean>();
let patched = false;
function kind(sql: unknown): "read" | "write" {
  const s = String(sql ?? "").trimStart().toUpperCase();
  return s.startsWith("SELECT") || (s.startsWith("WITH") && !/\\b(INSERT|UPDATE|DELETE)\\b/.test(s)) ? "read" : "write";
}
function patch(db: D1Database) {
  if (patched) return;
  patched = true;
  const session = (db as unknown as { withSession(): object }).withSession();
  const proto = Object.getPrototypeOf(session) as Record<string, unknown>;
  const send = proto._send as ((...a: unknown[]) => Promise<unknown>) | undefined;
  if (typeof send !== "function") {
    stats.patched = "no _send on " + Object.getOwnPropertyNames(proto).join(",");
    return;
  }
  stats.patched = "D1DatabaseSession._send";
  proto._send = function (this: unknown, endpoint: unknown, query: unknown, ...rest: unknown[]) {
    stats.roundTrips += 1;
    const worker = inWorker.getStore() === true;
    if (worker) stats.workerRoundTrips += 1;
    const list = Array.isArray(query) ? query : [query];
    if (Array.isArray(query)) stats.batches += 1;
    for (const q of list) {
      stats.statements += 1;
      if (kind(q) === "read") stats.reads += 1;
      else stats.writes += 1;
      if (worker) {
        stats.workerStatements += 1;
        workerSql.push(String((q as { statement?: unknown; sql?: unknown })?.statement ?? (q as { sql?: unknown })?.sql ?? q).replace(/\\s+/g, " ").slice(0, 90));
        if (kind(q) === "read") stats.workerReads += 1;
        else stats.workerWrites += 1;
      }
    }
    const out = send.call(this, endpoint, query, ...rest) as Promise<unknown>;
    // D1's own figures per statement: rows read and written, and the SQL's execution time.
    return out.then((r) => {
      for (const x of Array.isArray(r) ? r : [r]) {
        const meta = (x as { meta?: { duration?: number; rows_read?: number; rows_written?: number } } | null)?.meta;
        if (!meta) continue;
        stats.rowsRead += meta.rows_read ?? 0;
        stats.rowsWritten += meta.rows_written ?? 0;
        stats.sqlMs += meta.duration ?? 0;
      }
      return r;
    });
  };
}
export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    patch(env.DB);
    if (new URL(request.url).pathname === "/__d1count") return Response.json(stats);
    if (new URL(request.url).pathname === "/__d1sql") return Response.json(workerSql.splice(0));
    return inWorker.run(true, () => handler.fetch(request, env, ctx));
  },
  scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    patch(env.DB);
    return handler.scheduled(controller, env, ctx);
  },
} satisfies ExportedHandler<Env>;
`;

/** One table row: the median of each figure over the runs. */
function rowOf(action, unit, per, runs) {
  const med = (k) => [...runs.map((r) => r[k])].sort((x, y) => x - y)[Math.floor(runs.length / 2)];
  return {
    action,
    unit,
    per,
    roundTrips: med("roundTrips"),
    statements: med("statements"),
    reads: med("reads"),
    writes: med("writes"),
    rowsRead: med("rowsRead"),
    rowsWritten: med("rowsWritten"),
    sqlMs: Number(med("sqlMs").toFixed(2)),
    workerStatements: med("workerStatements"),
    workerReads: med("workerReads"),
    workerWrites: med("workerWrites"),
    runs: runs.map((r) => `${r.roundTrips}/${r.statements}`),
  };
}

const PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGM4IScHQQxwFgBBAAYZPEVBlgAAAABJRU5ErkJggg==";
const FUND_PASSWORD = "135790";
const ABC_CARD = "6228480402564890018";
const USDT = 3;

async function main() {
  const root = snapshotTree(ROOT);
  fs.writeFileSync(path.join(root, "worker", "d1-count-entry.ts"), ENTRY);
  const toml = fs.readFileSync(path.join(root, "wrangler.toml"), "utf8");
  fs.writeFileSync(path.join(root, "wrangler.toml"), toml.replace(/^main = .*$/m, 'main = "worker/d1-count-entry.ts"'));
  // /__d1count must reach the Worker, not the SPA fallback.
  fs.writeFileSync(path.join(root, "wrangler.toml"), fs.readFileSync(path.join(root, "wrangler.toml"), "utf8").replace('run_worker_first = ["', 'run_worker_first = ["/__d1count", "/__d1sql", "'));
  const dir = tempDir("exchange-d1count-state-");
  const pepper = randomPepper();
  log(`preparing state in ${dir}`);
  await prepareState({ root, dir, pepper });
  const vars = ACCOUNTS_MODE === "objects" ? { ACCOUNTS: "objects", ...(COLLECTORS !== null ? { DRAIN_COLLECTORS: COLLECTORS } : {}) } : null;
  if (vars) {
    await openAccountObjects({ root, dir, pepper });
    log("users opened in their account objects");
  }
  // Long seconds contracts are not needed: a 30 s contract settles within the run.
  const port = await freePort();
  const server = await startServer({ root, dir, port, pepper, vars });
  const client = httpClient(server.url, { timeoutMs: 60_000 });
  const call = async (method, p, token, body) => {
    const r = await client.request(method, p.startsWith("/api/") ? p : `/api${p}`, { token, body });
    return r.body;
  };
  const ok = (what, body) => {
    if (body?.type !== "ok" && body?.status !== 1 && body?.code !== 0) throw new Error(`${what}: ${JSON.stringify(body)}`);
    return body;
  };
  const count = async () => (await client.request("GET", "/__d1count")).body;
  /** The Worker path's statements since the last call (their first words). */
  const sqlSince = async () => (await client.request("GET", "/__d1sql")).body;
  try {
    const tokens = {};
    for (const [k, a] of Object.entries(ACCOUNTS)) tokens[k] = await login(client, a.account, a.password);
    tokens.merchant = await login(client, "merchant@exchange.test", "Merchant1234");
    tokens.operator = await login(client, "operator@exchange.test", "Operator1234");
    const first = await count();
    if (!first.patched.startsWith("D1DatabaseSession")) throw new Error(`D1 client not patched: ${first.patched}`);

    /** Waits until the counters have not moved for `quietMs`; returns them. */
    const settle = async (quietMs = 1500) => {
      let last = await count();
      let since = Date.now();
      for (;;) {
        await sleep(250);
        const now = await count();
        if (now.roundTrips !== last.roundTrips) {
          last = now;
          since = Date.now();
        } else if (Date.now() - since >= quietMs) return now;
      }
    };
    const diff = (a, b) => ({
      roundTrips: b.roundTrips - a.roundTrips,
      statements: b.statements - a.statements,
      reads: b.reads - a.reads,
      writes: b.writes - a.writes,
      rowsRead: b.rowsRead - a.rowsRead,
      rowsWritten: b.rowsWritten - a.rowsWritten,
      sqlMs: b.sqlMs - a.sqlMs,
      workerStatements: b.workerStatements - a.workerStatements,
      workerReads: b.workerReads - a.workerReads,
      workerWrites: b.workerWrites - a.workerWrites,
    });

    // Idle: what the runtime does alone (alarms) over 5 s.
    const idle0 = await settle();
    await sleep(5000);
    const idle = diff(idle0, await count());
    log(`idle over 5 s: ${JSON.stringify(idle)}`);

    const pair = PAIRS[0];
    for (const w of warmupOrders(pair)) ok("warm-up order", await call("POST", orderRequest(pair, w).path, tokens.mm, orderRequest(pair, w).body));
    await settle();

    /** Runs `fn` REPEAT times (after one warm-up run), each measured from quiet to quiet. */
    const rows = [];
    const measure = async (action, unit, fn, { warm = true, per = 1 } = {}) => {
      if (warm) await fn(-1);
      await settle();
      const runs = [];
      const sql = new Map();
      for (let i = 0; i < REPEAT; i++) {
        const a = await settle();
        await sqlSince();
        const meta = await fn(i);
        const b = await settle();
        // fn may set up what it needs first and hand back the counters from just before the action.
        runs.push(diff(meta?.start ?? a, b));
        // The Worker path's statements (only those after the action's own start: fn's set-up is left out).
        for (const q of (await sqlSince()).slice(meta?.start ? meta.start.workerStatements - a.workerStatements : 0)) sql.set(q, (sql.get(q) ?? 0) + 1);
      }
      const row = rowOf(action, unit, per, runs);
      row.sql = [...sql].map(([q, n]) => `${n}× ${q}`);
      rows.push(row);
      log(`${action}: ${JSON.stringify(row)}`);
    };

    const mid = pair.mid;
    const px = (k) => (BigInt(mid + k * pair.step) / 100n).toString() + "." + String(Math.abs(mid + k * pair.step) % 100).padStart(2, "0");

    if (want("spot")) {
      // Spot: one resting limit order (maker), one taking order that trades with one maker, a cancel.
      await measure("spot limit order, rests (maker)", "order", async () => ok("order", await call("POST", "/transaction/walletIn", tokens.demo1, { currency_id: 1, legal_id: 3, price: px(-30), num: "0.0002", mode: 2 })));
      await measure("spot limit order that trades with one maker", "order", async () => ok("order", await call("POST", "/transaction/walletIn", tokens.demo2, { currency_id: 1, legal_id: 3, price: px(25), num: "0.0002", mode: 2 })));
      await measure("spot cancel", "cancel", async () => {
        const r = ok("order", await call("POST", "/transaction/walletIn", tokens.demo1, { currency_id: 1, legal_id: 3, price: px(-40), num: "0.0002", mode: 2 }));
        const start = await settle();
        const id = r.message.order_id;
        ok("cancel", await call("POST", "/transaction_del", tokens.demo1, { id }));
        return { start };
      }, { warm: false });
      await measure("spot batch of 20 resting orders (one request)", "batch", async () =>
        ok("batch", await call("POST", "/transaction/batch", tokens.demo1, { currency_id: 1, legal_id: 3, orders: Array.from({ length: 20 }, (_, k) => ({ side: "buy", mode: 2, price: px(-30 - (k % 5)), num: "0.0002" })) })),
      { per: 20 });
      // A taking batch: 20 sells that each take one of mm's bids (mm's book is 20 levels deep at 2× size).
      await measure("spot batch of 20 taking orders (one request, 20 trades)", "batch", async () => {
        // refill mm's bids first (not counted: settle() after)
        const refill = Array.from({ length: 20 }, (_, k) => ({ side: "buy", mode: 2, price: px(-1 - (k % 10)), num: "0.0002" }));
        ok("refill", await call("POST", "/transaction/batch", tokens.mm, { currency_id: 1, legal_id: 3, orders: refill }));
        await settle();
        const start = await count();
        ok("batch", await call("POST", "/transaction/batch", tokens.demo2, { currency_id: 1, legal_id: 3, orders: Array.from({ length: 20 }, () => ({ side: "sell", mode: 2, price: px(-25), num: "0.0002" })) }));
        return { start };
      }, { per: 20 });

      // Under load: the pair's drain then carries many orders per D1 batch, so an order's share of it
      // shrinks. The order mix of bench/e2e-load.mjs (mm makes, demo1/demo2 take), closed loop.
      const stream = async (label, total, inFlight, next, send, ordersPerRequest = 1) => {
        const start = await settle();
        let sent = 0;
        const t0 = Date.now();
        await Promise.all(Array.from({ length: inFlight }, async () => {
          while (sent < total) {
            sent += 1;
            await send(next());
          }
        }));
        // The rate the orders went at (the drains' windows are per time, so their share per order depends on it).
        const perSecond = (total * ordersPerRequest) / ((Date.now() - t0) / 1000);
        const d = diff(start, await settle());
        const row = rowOf(`${label}, ${perSecond.toFixed(0)} orders/s`, "order", total * ordersPerRequest, [d]);
        rows.push(row);
        log(`${label}: ${JSON.stringify(row)}`);
      };
      {
        const next = orderStream(pair, 11);
        await stream("spot, 200 single orders, 16 in flight (e2e-load's mix)", 200, 16, next, async (o) => {
          const req = orderRequest(pair, o);
          await call("POST", req.path, tokens[o.who], req.body);
        });
        // One at a time (closed loop): each order pays a larger share of every drain window it opens.
        await stream("spot, 100 single orders, one at a time (e2e-load's mix)", 100, 1, next, async (o) => {
          const req = orderRequest(pair, o);
          await call("POST", req.path, tokens[o.who], req.body);
        });
        const nextBatch = batchStream(pair, 12, 20);
        await stream("spot, 20 batches of 20, 2 in flight (e2e-load's mix)", 20, 2, () => nextBatch(), async (b) => {
          const req = batchRequest(pair, b.orders);
          await call("POST", req.path, tokens[b.who], req.body);
        }, 20);
    }
    }

    // Transfer between one's own accounts (spot → seconds account), and back.
    if (want("transfer")) {
      await measure("transfer between own accounts", "transfer", async () => ok("transfer", await call("POST", "/wallet/change", tokens.demo1, { number: "10", from_field: "change", to_field: "micro", currency_id: USDT })));
    }
    ok("fund lever", await call("POST", "/wallet/change", tokens.demo1, { number: "2000", from_field: "change", to_field: "lever", currency_id: USDT }));
    ok("fund micro", await call("POST", "/wallet/change", tokens.demo1, { number: "500", from_field: "change", to_field: "micro", currency_id: USDT }));

    if (want("conversion")) {
      // Conversion: a quote, then its execution (two requests, counted together and apart).
      await measure("conversion quote", "quote", async () => ok("quote", await call("POST", "/user/shandui_quote", tokens.demo1, { from_currency: USDT, to_currency: 1, money: "10" })));
      await measure("conversion (quote + execute)", "conversion", async () => {
        const q = ok("quote", await call("POST", "/user/shandui_quote", tokens.demo1, { from_currency: USDT, to_currency: 1, money: "10" }));
        return ok("sub", await call("POST", "/user/shandui_sub", tokens.demo1, { quote_id: q.message.quote_id }));
      });
    }

    if (want("seconds")) {
      // Seconds contract: open, then the settlement at expiry (the pair's alarm), counted apart.
      await measure("seconds contract open", "contract", async () => ok("seconds", await call("POST", "/microtrade/submit", tokens.demo1, { match_id: 1, currency_id: USDT, type: 1, seconds: 30, number: "10" })));
      // Settlement: open one 30 s contract, wait for quiet, then measure from just before its expiry until quiet again.
      {
        const runs = [];
        for (let i = 0; i < REPEAT; i++) {
          ok("seconds", await call("POST", "/microtrade/submit", tokens.demo1, { match_id: 1, currency_id: USDT, type: 2, seconds: 30, number: "10" }));
          const a = await settle();
          // keep the pair's index moving so the settlement has a price (a maker order each few seconds would add its own count; none is needed: the last index stands)
          // Polling the list costs D1 work of its own: measured around each poll and taken out.
          const polls = { roundTrips: 0, statements: 0, reads: 0, writes: 0, rowsRead: 0, rowsWritten: 0, sqlMs: 0, workerStatements: 0, workerReads: 0, workerWrites: 0 };
          for (;;) {
            await settle(3000);
            const p0 = await count();
            const open = await call("GET", "/new/microtrade/lists?status=1&limit=1", tokens.demo1);
            const p = diff(p0, await count());
            for (const k of Object.keys(polls)) polls[k] += p[k];
            if ((open?.data?.total ?? open?.message?.total ?? 0) === 0) break;
            await sleep(1000);
          }
          const d = diff(a, await settle());
          for (const k of Object.keys(polls)) d[k] -= polls[k];
          runs.push(d);
        }
        rows.push(rowOf("seconds contract settle (one contract due, alone)", "contract", 1, runs));
        log(`settle: ${JSON.stringify(rows.at(-1))}`);
    }
    }

    if (want("lever")) {
      // Leverage: open at market (confirming the index shown), then close.
      // The deal screen's read (GET /lever/deal, the index the owner confirms) is its own request: counted before the open, not with it.
      await measure("lever position open (market)", "position", async () => {
        const deal = await call("GET", "/lever/deal?currency_id=1&legal_id=3", tokens.demo1);
        const start = await settle();
        ok("lever open", await call("POST", "/lever/submit", tokens.demo1, { currency_id: 1, legal_id: 3, type: 1, share: 1, multiple: 10, index_price: deal.message.index_price }));
        return { start };
      });
      await measure("lever position close (market)", "position", async () => {
        const deal = await call("GET", "/lever/deal?currency_id=1&legal_id=3", tokens.demo1);
        const r = ok("lever open", await call("POST", "/lever/submit", tokens.demo1, { currency_id: 1, legal_id: 3, type: 1, share: 1, multiple: 10, index_price: deal.message.index_price }));
        const id = r.message.id;
        const start = await settle();
        ok("lever close", await call("POST", "/lever/close", tokens.demo1, { id }));
        return { start };
      }, { warm: false });
    }

    // Deposit: a claim with a proof picture, then the operator's credit.
    const upload = async (token) => {
      const r = await call("POST", "/new/upload/base64", token, { file_base64: `data:image/png;base64,${PNG_B64}`, scene: "user/x.png" });
      if (r?.status !== 1) throw new Error(`upload: ${JSON.stringify(r)}`);
      return r.data.id;
    };
    if (want("deposit")) {
      const depositIds = [];
      await measure("deposit claim (proof uploaded before)", "claim", async () => {
        const pic = await upload(tokens.demo1);
        const start = await settle();
        const r = ok("deposit", await call("POST", "/wallet/charge_req", tokens.demo1, { currency: USDT, type: "TRC20", acc: "DEMO-usdt-trc20-address-not-real-do-not-send", amount: "100", pic, hash: "abc123" }));
        depositIds.push(r.message.id);
        return { start };
      });
      await measure("deposit credit (operator approves)", "deposit", async () => {
        const id = depositIds.shift();
        return ok("approve", await call("POST", `/admin/deposits/${id}/approve`, tokens.operator, { reason: "seen on chain" }));
      }, { warm: false });
    }

    if (want("withdrawal")) {
      // Withdrawal: fund password and bank card first (not counted), then request, approve, chain success.
      ok("fund password", await call("POST", "/user/fund_password", tokens.demo2, { fund_password: FUND_PASSWORD, re_fund_password: FUND_PASSWORD, login_password: "Demo1234" }));
      const card = await call("POST", "/user/cash_save", tokens.demo2, { real_name: "Demo Two", bank_account: ABC_CARD, bank_name: "", bank_branch: "Main" });
      if (card?.type !== "ok") log(`bank card: ${JSON.stringify(card)} (continuing)`);
      const withdrawalIds = [];
      await measure("withdrawal request", "withdrawal", async () => {
        const r = ok("withdraw", await call("POST", "/wallet/out", tokens.demo2, { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "50", type: 1, password: FUND_PASSWORD }));
        withdrawalIds.push(r.message.id);
      });
      await measure("withdrawal approve + chain success (operator)", "withdrawal", async () => {
        const id = withdrawalIds.shift();
        ok("approve", await call("POST", `/admin/withdrawals/${id}/approve`, tokens.operator, {}));
        ok("sent", await call("POST", `/admin/withdrawals/${id}/chain-success`, tokens.operator, { txid: "0xabc123def" }));
      }, { warm: false });
    }

    if (want("c2c")) {
      // C2C: demo1 buys USDT on the merchant's sell advert, marks it paid, the merchant releases.
      const adverts = await call("GET", "/new/legal_deal/index?type=sell&currency_id=3", tokens.demo1);
      const advert = (adverts?.data?.lists ?? []).find((a) => a.type === "sell");
      if (!advert) throw new Error(`no C2C advert: ${JSON.stringify(adverts).slice(0, 500)}`);
      // One whole order per repeat (after one warm-up cycle): each step measured from quiet to quiet.
      const steps = { order: [], paid: [], release: [] };
      for (let i = -1; i < REPEAT; i++) {
        let start = await settle();
        let r = await call("POST", "/do_legal_deal", tokens.demo1, { id: advert.id, value: "20" });
        if (r?.code === "bank_required") {
          // A receiving account (the seeded demo1's real name), once; not counted.
          ok("card", await call("POST", "/user/cash_save", tokens.demo1, { real_name: "Demo One", bank_account: ABC_CARD, bank_name: "", bank_branch: "Main" }));
          start = await settle();
          r = await call("POST", "/do_legal_deal", tokens.demo1, { id: advert.id, value: "20" });
        }
        const id = ok("c2c order", r).message.data.id;
        let end = await settle();
        if (i >= 0) steps.order.push(diff(start, end));
        const pic = await upload(tokens.demo1);
        start = await settle();
        ok("paid", await call("POST", "/user_legal_pay", tokens.demo1, { id, pay_orders_img: pic }));
        end = await settle();
        if (i >= 0) steps.paid.push(diff(start, end));
        ok("release", await call("POST", "/legal_deal_user_sure", tokens.merchant, { id, password: "135790" }));
        start = end;
        end = await settle();
        if (i >= 0) steps.release.push(diff(start, end));
    }
    for (const [key, action] of [["order", "C2C order on an advert (escrow)"], ["paid", "C2C buyer marks paid (proof uploaded before)"], ["release", "C2C seller releases (coins to the buyer)"]]) {
      const runs = steps[key];
      rows.push(rowOf(action, "order", 1, runs));
      log(`${action}: ${JSON.stringify(rows.at(-1))}`);
    }
    }

    // The money check: the books still balance after all of it.
    const rec = await d1(root, dir, "SELECT count(*) n FROM balances WHERE available < 0 OR frozen < 0;");
    log(`negative balances after the run: ${rec[0][0]?.n}`);

    // Saturation: D1 runs one query at a time; at about 1 ms each that is 1,000 statements/s.
    console.log(`\nbalances: ACCOUNTS=${ACCOUNTS_MODE}`);
    console.log("\n| action | D1 round trips | statements | reads | writes | rows read | rows written | D1 SQL ms | per | statements per one | per second at 1,000 statements/s | Worker path: statements (reads/writes) per one | after the answer (drains) per one |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const r of rows) {
      const each = r.statements / r.per;
      const sync = `${(r.workerStatements / r.per).toFixed(2)} (${(r.workerReads / r.per).toFixed(2)}/${(r.workerWrites / r.per).toFixed(2)})`;
      console.log(`| ${r.action} | ${r.roundTrips} | ${r.statements} | ${r.reads} | ${r.writes} | ${r.rowsRead} | ${r.rowsWritten} | ${r.sqlMs} | ${r.per} | ${each.toFixed(2)} | ${Math.floor(1000 / each)} | ${sync} | ${((r.statements - r.workerStatements) / r.per).toFixed(2)} |`);
    }
    if (args.get("sql")) {
      console.log("\nWorker path statements per action (all runs):");
      for (const r of rows) if (r.sql) console.log(`- ${r.action}: ${r.sql.length === 0 ? "none" : r.sql.join("; ")}`);
    }
    console.log(`\nidle over 5 s: ${idle.roundTrips} round trips, ${idle.statements} statements`);
    if (typeof args.get("json") === "string") fs.writeFileSync(args.get("json"), JSON.stringify({ idle, rows }, null, 2));
  } finally {
    client.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
