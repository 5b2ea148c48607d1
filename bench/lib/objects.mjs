// The crash benchmarks' view of the account objects (issue #28, `--accounts objects`: ACCOUNTS=objects):
// their SQLite files under the --persist-to folder, read with the sqlite3 tool once the server has
// stopped, and the invariants that hold in that mode (bench/crash.mjs, bench/crash-products.mjs):
//  - per currency, the money in every account object (users and system shards) is what the
//    cut-over opened them with (the users' D1 balances and the treasury's), nothing made or lost;
//  - each object's balances equal the sum of its own movements, its frozen funds the rest of its
//    open holds, and no leg was refused;
//  - every open hold is explained by an open record (the caller says which), and every record's
//    hold resolved as its end says;
//  - after the drain, D1's read model (account_balances, system_balances and their bookmarks)
//    equals the objects, and the reconciler's last report is clean.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { d1, openAccountObjects } from "./server.mjs";

/** Runs read-only SQL on one SQLite file (stderr kept: a missing table is a caller's expected miss). */
export function sqlite(file, sql) {
  const out = execFileSync("sqlite3", ["-json", `file:${file}?mode=ro`, sql], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 30 }).trim();
  return out ? JSON.parse(out) : [];
}

export function hasSqlite() {
  try {
    execFileSync("sqlite3", ["-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Every Durable Object's SQLite file under the persist folder. */
export function objectFiles(dir) {
  const doDir = path.join(dir, "v3", "do");
  if (!fs.existsSync(doDir)) return [];
  return fs.readdirSync(doDir).flatMap((d) => fs.readdirSync(path.join(doDir, d)).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite").map((f) => path.join(doDir, d, f)));
}

const tables = (file) => new Set(sqlite(file, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name));

/**
 * The account objects: users (`account_owner`) and system shards (`account_system`), each with its
 * balances, movement sums, holds, refused legs and drain bookmark. Amounts as BigInt.
 */
export function readAccountObjects(dir) {
  const users = new Map();
  const shards = new Map();
  const big = (v) => BigInt(v ?? 0);
  for (const file of objectFiles(dir)) {
    const t = tables(file);
    if (!t.has("money_balances")) continue;
    const owner = t.has("account_owner") ? sqlite(file, "SELECT user_id FROM account_owner")[0] : null;
    const system = t.has("account_system") ? sqlite(file, "SELECT user_id, shard FROM account_system")[0] : null;
    if (!owner && !system) continue;
    const o = {
      file,
      userId: owner ? owner.user_id : system.user_id,
      shard: system ? system.shard : null,
      balances: sqlite(file, "SELECT kind, currency, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM money_balances").map((r) => ({ kind: r.kind, currency: Number(r.currency), available: big(r.a), frozen: big(r.f) })),
      movements: sqlite(file, "SELECT kind, currency, CAST(SUM(d_available) AS TEXT) AS a, CAST(SUM(d_frozen) AS TEXT) AS f FROM money_movements GROUP BY kind, currency").map((r) => ({ kind: r.kind, currency: Number(r.currency), available: big(r.a), frozen: big(r.f) })),
      holds: sqlite(file, "SELECT hold, kind, currency, CAST(amount AS TEXT) AS amount, CAST(spent AS TEXT) AS spent, CAST(released AS TEXT) AS released, state FROM money_holds").map((h) => ({
        hold: h.hold,
        kind: h.kind,
        currency: Number(h.currency),
        amount: big(h.amount),
        spent: big(h.spent),
        released: big(h.released),
        open: h.state === "open",
      })),
      refused: sqlite(file, "SELECT key, reason FROM money_refused"),
      maxSeq: sqlite(file, "SELECT COALESCE(MAX(seq), 0) AS s FROM money_movements")[0].s,
      drained: sqlite(file, "SELECT value FROM money_meta WHERE name = 'drained'")[0]?.value ?? 0,
    };
    o.holdByName = new Map(o.holds.map((h) => [h.hold, h]));
    if (system) shards.set(`${system.user_id}:${system.shard}`, o);
    else users.set(owner.user_id, o);
  }
  return { users, shards, all: [...users.values(), ...shards.values()] };
}

/** Legs a pair object still has to deliver (its money core's outbox), per pair file with one. */
export function pairLegsPending(file) {
  return tables(file).has("money_outbox") ? sqlite(file, "SELECT count(*) AS n FROM money_outbox")[0].n : 0;
}

/**
 * What the cut-over put into the objects, per currency (units as BigInt): every user's D1 balance
 * (available + frozen) and every system account's that is not below zero (what `POST
 * /api/dev/accounts/system` splits over its shards; the deposits account stays in D1). Read right
 * after the opening, before any load.
 */
export async function openingTotals(root, dir) {
  const [rows] = await d1(
    root,
    dir,
    "SELECT currency_id, CAST(SUM(available + frozen) AS TEXT) AS s FROM balances WHERE user_id > 0 OR (available >= 0 AND frozen >= 0) GROUP BY currency_id",
  );
  return new Map(rows.map((r) => [r.currency_id, BigInt(r.s)]));
}

/** The users' D1 balances as text (they must not move once the money lives in the objects). */
export async function d1UserBalances(root, dir) {
  const [rows] = await d1(root, dir, "SELECT user_id, currency_id, account, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM balances WHERE user_id > 0 ORDER BY 1, 2, 3");
  return rows.map((r) => `${r.user_id}:${r.currency_id}:${r.account}=${r.a}/${r.f}`).join(",");
}

/**
 * The cut-over for a crash run (bench/lib/server.mjs `openAccountObjects`: users and treasury);
 * answers what was opened per currency and the users' D1 balances at that moment.
 */
export async function cutOver({ root, dir, pepper }) {
  await openAccountObjects({ root, dir, pepper });
  return { opening: await openingTotals(root, dir), d1Users: await d1UserBalances(root, dir) };
}

/** What an open spot order holds (limit buy: price × remaining in the quote; sell: remaining in the base; submitted: its reserved units). */
export function openReservation(r, p, scale) {
  const big = (v) => BigInt(v ?? 0);
  const remaining = big(r.qty) - big(r.filled);
  if (r.status === 0) return { currency: r.reserved_currency, units: big(r.reserved_units) };
  if (r.side === "buy") return { currency: p.legal_id, units: big(r.price) * remaining * 10n ** BigInt(scale.get(p.legal_id) - p.price_decimals - p.qty_decimals) };
  return { currency: p.currency_id, units: remaining * 10n ** BigInt(scale.get(p.currency_id) - p.qty_decimals) };
}

/** An open `spot_order:{id}` hold is explained by its order, open in D1, of its user, reserving exactly what the hold still holds. */
export function spotHoldExplainer(spotOrders, reservation) {
  const open = new Map(spotOrders.filter((r) => r.status === 1).map((r) => [String(r.id), r]));
  return (owner, h) => {
    const id = h.hold.split(":")[1];
    const r = open.get(id);
    if (!r || owner.shard !== null) return `order ${id} is not open in D1 (status ${spotOrders.find((x) => String(x.id) === id)?.status ?? "none"})`;
    const { currency, units } = reservation(r);
    const rest = h.amount - h.spent - h.released;
    return r.user_id === owner.userId && h.kind === "change" && h.currency === currency && rest === units ? null : `order ${id} reserves ${units} of ${currency}`;
  };
}

/**
 * Holds the cut-over made for records of products still on D1 (the seeded merchant's C2C sell
 * advert and deposit: `c2c_advert:{id}`, `c2c_deposit:{id}`), explained by their D1 record, open and
 * of the same amount. Answers (owner, hold) => problem | null, or undefined for another kind.
 */
export async function d1RecordsExplainer(root, dir) {
  const [adverts, deposits] = await d1(
    root,
    dir,
    // A sell advert holds its remaining plus its running orders' amounts (unpaid, paid, appealed): their coins stay in its hold until released.
    `SELECT a.id, a.user_id, CAST(a.remaining + (SELECT COALESCE(SUM(o.amount), 0) FROM c2c_orders o WHERE o.advert_id = a.id AND o.is_sure IN (0, 3)) AS TEXT) AS units
       FROM c2c_adverts a WHERE a.type = 'sell' AND a.status IN (1, 2, 4);
     SELECT id, user_id, CAST(deposit AS TEXT) AS units FROM c2c_merchants WHERE status IN (0, 1);`,
  );
  const records = { c2c_advert: new Map(adverts.map((r) => [String(r.id), r])), c2c_deposit: new Map(deposits.map((r) => [String(r.id), r])) };
  return (owner, h) => {
    const [kind, id] = h.hold.split(":");
    if (!(kind in records)) return undefined;
    const r = records[kind].get(id);
    return r && r.user_id === owner.userId && BigInt(r.units) === h.amount - h.spent - h.released ? null : `${kind} ${id} is not open in D1 with that amount`;
  };
}

/**
 * The objects' invariants. `explain(owner, hold)` answers null when an open hold is explained by an
 * open record (owner: { userId, shard }), else what is wrong (holds of D1 products' records the
 * cut-over opened are explained here: d1RecordsExplainer); `records` is a list of
 * { name, check(objects) => problems[] } for the products' own resolved-hold checks.
 */
export async function checkAccountObjects({ root, dir, opening, d1Users, explain: explainProducts, records = [], external = new Map() }) {
  const checks = [];
  const d1Records = await d1RecordsExplainer(root, dir);
  const explain = (owner, h) => {
    // Frozen funds the cut-over opened with no record's name (a system account's frozen part no
    // product resolves by name, e.g. the launch's reserve, still D1's): nothing names it, so nothing may touch it.
    if (h.hold.startsWith("migrated:")) return h.spent === 0n && h.released === 0n ? null : `the cut-over's hold ${h.hold} was spent or released`;
    const d1Record = d1Records(owner, h);
    return d1Record === undefined ? explainProducts(owner, h) : d1Record;
  };
  const check = (name, ok, detail = "") => checks.push({ name, ok, detail: String(detail).slice(0, 2000) });
  const objects = readAccountObjects(dir);
  const label = (o) => (o.shard === null ? `user:${o.userId}` : `system:${o.userId}:${o.shard}`);

  // 1. Conservation: per currency, all objects together hold what the cut-over opened.
  const held = new Map();
  for (const o of objects.all) for (const b of o.balances) held.set(b.currency, (held.get(b.currency) ?? 0n) + b.available + b.frozen);
  // `external`: what came in from outside after the cut-over (credited deposits: the deposits shard passes them on, net zero).
  const want = (c) => (opening.get(c) ?? 0n) + (external.get(c) ?? 0n);
  const bad1 = [...new Set([...held.keys(), ...opening.keys(), ...external.keys()])].filter((c) => (held.get(c) ?? 0n) !== want(c)).map((c) => ({ currency: c, objects: String(held.get(c) ?? 0n), opened: String(opening.get(c) ?? 0n), deposited: String(external.get(c) ?? 0n) }));
  check(
    "per currency, the account objects (users + fee, treasury, deposits and withdrawals shards) hold exactly what the cut-over opened (the users' D1 balances + the system accounts') plus the deposits credited since: nothing made, nothing lost",
    bad1.length === 0,
    bad1.length ? JSON.stringify(bad1) : `${objects.users.size} user objects, ${objects.shards.size} shards, ${held.size} currencies`,
  );
  const d1Now = await d1UserBalances(root, dir);
  check("no user's D1 balance moved after the cut-over (the money lives in the objects only)", d1Now === d1Users, d1Now === d1Users ? "" : `before: ${d1Users.slice(0, 600)} after: ${d1Now.slice(0, 600)}`);

  // 2. Each object: balances = its movements; frozen = the rest of its open holds; no leg refused.
  const bad2 = [];
  const bad2b = [];
  const refused = [];
  for (const o of objects.all) {
    const k = (r) => `${r.kind}:${r.currency}`;
    const moves = new Map(o.movements.map((m) => [k(m), m]));
    const bals = new Map(o.balances.map((b) => [k(b), b]));
    for (const key of new Set([...moves.keys(), ...bals.keys()])) {
      const b = bals.get(key) ?? { available: 0n, frozen: 0n };
      const m = moves.get(key) ?? { available: 0n, frozen: 0n };
      if (b.available !== m.available || b.frozen !== m.frozen || b.available < 0n || b.frozen < 0n)
        bad2.push({ object: label(o), account: key, balance: `${b.available}/${b.frozen}`, movements: `${m.available}/${m.frozen}` });
    }
    const rest = new Map();
    for (const h of o.holds) if (h.open) rest.set(`${h.kind}:${h.currency}`, (rest.get(`${h.kind}:${h.currency}`) ?? 0n) + h.amount - h.spent - h.released);
    for (const key of new Set([...rest.keys(), ...o.balances.filter((b) => b.frozen !== 0n).map(k)])) {
      const f = bals.get(key)?.frozen ?? 0n;
      if (f !== (rest.get(key) ?? 0n)) bad2b.push({ object: label(o), account: key, frozen: String(f), openHolds: String(rest.get(key) ?? 0n) });
    }
    for (const r of o.refused) refused.push({ object: label(o), ...r });
  }
  check("every object's balances equal the sum of its own movements, none negative", bad2.length === 0, bad2.length ? JSON.stringify(bad2.slice(0, 20)) : `${objects.all.length} objects`);
  check("every object's frozen funds equal what its open holds still hold", bad2b.length === 0, JSON.stringify(bad2b.slice(0, 20)));
  check("no leg refused by any account object (a refusal is money a sender meant to move and could not)", refused.length === 0, JSON.stringify(refused.slice(0, 20)));

  // 3. Every open hold explained by an open record; the products' records resolved their holds.
  const bad3 = [];
  let open = 0;
  for (const o of objects.all)
    for (const h of o.holds) {
      if (!h.open) continue;
      open++;
      const problem = explain({ userId: o.userId, shard: o.shard }, h);
      if (problem) bad3.push({ object: label(o), hold: h.hold, rest: String(h.amount - h.spent - h.released), problem });
    }
  check("every open hold is explained by an open record (order, contract, position) with the same amount", bad3.length === 0, bad3.length ? JSON.stringify(bad3.slice(0, 20)) : `${open} open holds`);
  for (const r of records) {
    const problems = r.check(objects);
    check(r.name, problems.length === 0, problems.length ? JSON.stringify(problems.slice(0, 20)) : (r.detail ?? ""));
  }

  // 4. The read model after the drain: D1 equals the objects, bookmarks at the objects' last movement.
  const [accountRows, accountMarks, systemRows, systemMarks, reports] = await d1(
    root,
    dir,
    `SELECT user_id, currency_id, account, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM account_balances WHERE available != 0 OR frozen != 0;
     SELECT user_id, seq FROM account_drained;
     SELECT user_id, shard, currency_id, account, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM system_balances WHERE available != 0 OR frozen != 0;
     SELECT user_id, shard, seq FROM system_drained;
     SELECT ok, differences, created_at FROM reconciliation_reports ORDER BY id DESC LIMIT 1;`,
  );
  const model = new Map();
  for (const r of accountRows) model.set(`user:${r.user_id}|${r.account}:${r.currency_id}`, `${r.a}/${r.f}`);
  for (const r of systemRows) model.set(`system:${r.user_id}:${r.shard}|${r.account}:${r.currency_id}`, `${r.a}/${r.f}`);
  const marks = new Map([...accountMarks.map((r) => [`user:${r.user_id}`, r.seq]), ...systemMarks.map((r) => [`system:${r.user_id}:${r.shard}`, r.seq])]);
  const inObjects = new Map();
  const bad4 = [];
  for (const o of objects.all) {
    for (const b of o.balances) if (b.available !== 0n || b.frozen !== 0n) inObjects.set(`${label(o)}|${b.kind}:${b.currency}`, `${b.available}/${b.frozen}`);
    if (o.drained !== o.maxSeq) bad4.push({ object: label(o), problem: "movements not drained", drained: o.drained, last: o.maxSeq });
    if ((marks.get(label(o)) ?? 0) !== o.maxSeq) bad4.push({ object: label(o), problem: "D1's bookmark differs", d1: marks.get(label(o)) ?? 0, last: o.maxSeq });
  }
  for (const key of new Set([...inObjects.keys(), ...model.keys()])) if (inObjects.get(key) !== model.get(key)) bad4.push({ account: key, object: inObjects.get(key) ?? "0/0", readModel: model.get(key) ?? "0/0" });
  check("after the drain, D1's read model (account_balances, system_balances, bookmarks) equals the objects", bad4.length === 0, bad4.length ? JSON.stringify(bad4.slice(0, 20)) : `${inObjects.size} non-zero balances`);
  const rep = reports[0];
  check("the reconciler's last report (objects vs read model vs movements, frozen vs holds) is clean", !!rep && rep.ok === 1, rep ? (rep.ok === 1 ? "" : rep.differences) : "no report");
  checks.objects = objects;
  return checks;
}
