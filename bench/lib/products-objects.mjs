// The crash runs' view of the products whose records live in D1 and whose money moves in the
// account objects (issue #28, `--accounts objects`, session 14's moves): C2C, invite rebates,
// savings, cover, mining, votes, deposits, withdrawals and conversion (bench/crash-products.mjs).
// Each product holds first (a hold named after its record, owner `d1`), then writes the record with
// a claim of that name (`object_hold_claims`); its transitions owe legs (`record_legs`). After a
// run every open hold must be an open record's, with the amount the record still reserves; a hold
// whose name the orphan sweep claimed must be resolved; no leg may be left owed; and the legs each
// record's end owes must have landed exactly once.
import { d1 } from "./server.mjs";
import { sqlite } from "./objects.mjs";
import { d1LaunchView } from "./launch-objects.mjs";

const big = (v) => BigInt(v ?? 0);

/**
 * Reads the D1 records and answers { explain(owner, hold) → problem | null | undefined (not one of
 * these products' holds), records: [{ name, check(objects) → problems[] }], external (per currency,
 * what came into the objects from outside: credited deposits), counts }.
 */
export async function d1ProductsView(root, dir) {
  const [claims, legsOwed, c2c, withdrawals, savings, products, covers, payouts, votes, runs, deposits, micro, rebateLines, ...counts] = await d1(
    root,
    dir,
    `SELECT hold, state FROM object_hold_claims;
     SELECT key, dest, record, attempts FROM record_legs;
     SELECT id, advert_id, type, seller_id, buyer_id, CAST(amount AS TEXT) AS amount, is_sure FROM c2c_orders;
     SELECT id, user_id, status, CAST(amount + fee AS TEXT) AS held FROM withdrawals;
     SELECT id, user_id, status, CAST(amount AS TEXT) AS amount FROM earn_positions;
     SELECT id, status FROM earn_products;
     SELECT id, user_id, status FROM insurance_covers;
     SELECT id, status FROM mining_payouts;
     SELECT round_id, user_id, CAST(units AS TEXT) AS units, released_at FROM vote_holds;
     SELECT day, phase FROM invite_runs;
     SELECT id, user_id, currency_id, status, CAST(amount AS TEXT) AS amount FROM deposits;
     SELECT id, user_id, status FROM micro_orders;
     SELECT day, inviter_id, CAST(SUM(amount) AS TEXT) AS amount FROM invite_rebates GROUP BY day, inviter_id;
     SELECT 'c2c' AS t, is_sure AS status, count(*) AS n FROM c2c_orders GROUP BY is_sure;
     SELECT 'withdrawal' AS t, status AS status, count(*) AS n FROM withdrawals GROUP BY status;
     SELECT 'deposit' AS t, status AS status, count(*) AS n FROM deposits GROUP BY status;
     SELECT 'savings' AS t, status AS status, count(*) AS n FROM earn_positions GROUP BY status;
     SELECT 'savings_accrual' AS t, 'days' AS status, count(*) AS n FROM earn_accruals;
     SELECT 'cover' AS t, status AS status, count(*) AS n FROM insurance_covers GROUP BY status;
     SELECT 'mining_holding' AS t, 'n' AS status, count(*) AS n FROM mining_holdings;
     SELECT 'mining_payout' AS t, status AS status, count(*) AS n FROM mining_payouts GROUP BY status;
     SELECT 'vote_hold' AS t, released_at IS NOT NULL AS status, count(*) AS n FROM vote_holds GROUP BY 2;
     SELECT 'conversion' AS t, 'n' AS status, count(*) AS n FROM conversions;
     SELECT 'invite_run' AS t, phase AS status, count(*) AS n FROM invite_runs GROUP BY phase;
     SELECT 'c2c_appeal' AS t, status AS status, count(*) AS n FROM c2c_appeals GROUP BY status;
     SELECT 'hold_claim' AS t, state AS status, count(*) AS n FROM object_hold_claims GROUP BY state;`,
  );
  const claim = new Map(claims.map((r) => [r.hold, r.state]));
  const byId = (rows) => new Map(rows.map((r) => [String(r.id), r]));
  const c2cById = byId(c2c);
  const withdrawalById = byId(withdrawals);
  const savingsById = byId(savings);
  const productById = byId(products);
  const coverById = byId(covers);
  const payoutById = byId(payouts);
  const microById = byId(micro);
  const vote = new Map(votes.map((v) => [`${v.round_id}:${v.user_id}`, v]));
  const runByDay = new Map(runs.map((r) => [r.day, r]));

  // (owner, hold) → null when an open record explains the hold's rest, else the problem; undefined: not these
  // products' (a sell advert's and a merchant deposit's holds: objects.mjs `d1RecordsExplainer`).
  const explain = (owner, h) => {
    const rest = h.amount - h.spent - h.released;
    const [kind, a, b] = h.hold.split(":");
    const user = owner.shard === null ? owner.userId : null;
    const treasury = owner.userId === -3 && owner.shard !== null;
    // The orphan sweep claimed it: the record can never come, so the hold must have been released. (A hold
    // with no claim at all was opened by the cut-over for a record of before it: the record's own check decides.)
    const recordClaim = (name) => (claim.get(name) === "orphan" ? "the orphan sweep claimed it, yet it is open" : null);
    const need = (ok, what) => (ok ? null : what);
    switch (kind) {
      case "c2c_order": {
        const o = c2cById.get(a);
        return recordClaim(h.hold) ?? need(o && o.type === "buy" && o.seller_id === user && (o.is_sure === 0 || o.is_sure === 3) && big(o.amount) === rest, `c2c order ${a} ${o ? `is_sure ${o.is_sure}, amount ${o.amount}` : "not in D1"}`);
      }
      case "withdrawal": {
        const w = withdrawalById.get(a);
        return recordClaim(h.hold) ?? need(w && w.user_id === user && (w.status === 0 || w.status === 1) && big(w.held) === rest, `withdrawal ${a} ${w ? `status ${w.status}, amount + fee ${w.held}` : "not in D1"}`);
      }
      case "savings": {
        const p = savingsById.get(a);
        return recordClaim(h.hold) ?? need(p && p.user_id === user && p.status === 1 && big(p.amount) === rest, `savings position ${a} ${p ? `status ${p.status}, amount ${p.amount}` : "not in D1"}`);
      }
      case "earn_product": {
        // The product's budget (what it can still pay) in its treasury shard, until the product closes and its rest is released.
        const p = productById.get(a);
        return recordClaim(h.hold) ?? need(p && treasury && owner.shard === Number(a) % 8, `savings product ${a} ${p ? `status ${p.status}` : "not in D1"}`);
      }
      case "cover": {
        // The cover's reserve in its treasury shard while the cover is live or queued; the user's premium is spent at once.
        const c = coverById.get(a);
        return recordClaim(h.hold) ?? need(c && treasury && c.status <= 1, `cover ${a} ${c ? `status ${c.status}` : "not in D1"}${treasury ? "" : " (the premium hold of a user stays open)"}`);
      }
      case "mining_payout": {
        const p = payoutById.get(a);
        return need(p && treasury && p.status === "approved", `mining payout ${a} ${p ? `status ${p.status}` : "not in D1"}`);
      }
      case "mining":
        return `mining order ${a}'s price hold is still open (spent by the order's legs)`;
      case "vote": {
        const v = vote.get(`${a}:${b}`);
        return need(v && v.user_id === user && Number(b) === user && v.released_at === null && big(v.units) === rest, `vote hold ${a}:${b} ${v ? `released ${v.released_at}` : "not in D1"}`);
      }
      case "rebate": {
        // A pay step's hold in a fee shard, until the step's batch pays it.
        const r = runByDay.get(a);
        return need(r && r.phase !== "done" && owner.userId === 0, `rebate run ${a} ${r ? `phase ${r.phase}` : "not in D1"}`);
      }
      case "conversion":
        return "a conversion's house hold still open (resolved at once, or by the conversion sweep)";
      case "seconds": {
        const m = microById.get(a);
        return need(m && m.status < 3, `contract ${a} ${m ? `status ${m.status}` : "not in D1"}`);
      }
      default:
        return undefined;
    }
  };

  const records = [
    {
      name: "D1 products: no leg left owed (record_legs empty after the crons), and every hold the orphan sweep claimed is resolved (a record never landed after it)",
      check: (objects) => {
        const bad = legsOwed.map((l) => ({ leg: l.key, dest: l.dest, record: l.record, attempts: l.attempts, problem: "owed" }));
        const holds = new Map();
        for (const o of objects.all) for (const h of o.holds) holds.set(h.hold, [...(holds.get(h.hold) ?? []), { o, h }]);
        for (const [name, state] of claim) {
          if (state !== "orphan") continue;
          for (const { o, h } of holds.get(name) ?? []) if (h.open || h.spent !== 0n) bad.push({ hold: name, object: o.shard === null ? o.userId : `${o.userId}:${o.shard}`, problem: "orphan-claimed yet open or spent" });
        }
        return bad;
      },
    },
    {
      name: "D1 products: each ended record's hold resolved its way — a withdrawal (sent: spent whole; rejected or failed: released whole), a savings position (principal released), a vote (released), a C2C order on a buy advert (released to the buyer or returned), a deposit credited once",
      check: (objects) => {
        const bad = [];
        const holdOf = (userId, name) => objects.users.get(userId)?.holdByName.get(name);
        for (const w of withdrawals) {
          const h = holdOf(w.user_id, `withdrawal:${w.id}`);
          if (!h) {
            bad.push({ withdrawal: w.id, problem: "no hold" });
            continue;
          }
          if (w.status === 2 || w.status === 5) {
            if (h.open || h.spent !== h.amount) bad.push({ withdrawal: w.id, status: w.status, problem: "sent but not spent whole", spent: String(h.spent) });
          } else if (w.status === 3 || w.status === 4) {
            if (h.open || h.released !== h.amount) bad.push({ withdrawal: w.id, status: w.status, problem: "ended unpaid but not released whole", released: String(h.released) });
          }
        }
        for (const p of savings) {
          const h = holdOf(p.user_id, `savings:${p.id}`);
          if (!h) bad.push({ savings: p.id, problem: "no hold" });
          else if (p.status !== 1 && (h.open || h.released !== h.amount)) bad.push({ savings: p.id, status: p.status, problem: "ended but principal not released whole" });
        }
        for (const v of votes) {
          const h = holdOf(v.user_id, `vote:${v.round_id}:${v.user_id}`);
          if (v.released_at !== null && h && (h.open || h.released !== h.amount)) bad.push({ vote: `${v.round_id}:${v.user_id}`, problem: "released in D1, not in the object" });
        }
        for (const d of deposits) {
          const o = objects.users.get(d.user_id);
          const n = o ? sqlite(o.file, `SELECT count(*) AS n, CAST(COALESCE(SUM(d_available), 0) AS TEXT) AS s FROM money_movements WHERE ref LIKE 'deposit:${d.id}#%'`)[0] : { n: 0, s: "0" };
          const want = d.status === 1 ? 1 : 0;
          if (n.n !== want || (want && big(n.s) !== big(d.amount))) bad.push({ deposit: d.id, status: d.status, problem: "credit legs", legs: n.n, amount: n.s });
        }
        return bad;
      },
    },
    {
      name: "rebates: each (day, inviter) paid exactly the sum of its rebate lines, by one leg",
      check: (objects) => {
        const bad = [];
        for (const r of rebateLines) {
          if (big(r.amount) === 0n) continue;
          const o = objects.users.get(r.inviter_id);
          const rows = o ? sqlite(o.file, `SELECT CAST(SUM(d_available) AS TEXT) AS s, count(*) AS n FROM money_movements WHERE ref LIKE 'rebate:${r.day}:${r.inviter_id}#%'`)[0] : { n: 0 };
          const phase = runByDay.get(r.day)?.phase;
          if (phase === "done" ? rows.n !== 1 || big(rows.s) !== big(r.amount) : rows.n !== 0) bad.push({ day: r.day, inviter: r.inviter_id, phase, owed: r.amount, paid: rows.s ?? "0", legs: rows.n });
        }
        // Once the crons ran (the clock 16 days on), no day may be left in `pay`: a pay step that cannot hold its total waits for ever.
        for (const r of runs) if (r.phase === "pay") bad.push({ day: r.day, phase: r.phase, problem: "left in pay after the crons ran" });
        return bad;
      },
    },
    {
      name: "C2C: no order ended twice in the objects (released and returned, or either twice)",
      check: (objects) => {
        const ends = new Map();
        for (const o of objects.all) {
          const rows = sqlite(o.file, "SELECT DISTINCT substr(ref, 1, instr(ref, '#') - 1) AS k FROM money_movements WHERE ref LIKE 'escrow:%'");
          for (const { k } of rows) {
            const m = /^escrow:(\d+):(release|return)/.exec(k ?? "");
            if (m) ends.set(`${m[1]}`, new Set([...(ends.get(m[1]) ?? []), m[2]]));
          }
        }
        const bad = [...ends].filter(([, s]) => s.size > 1).map(([id, s]) => ({ order: id, ends: [...s] }));
        for (const o of c2c) if ((o.is_sure === 1 && ends.get(String(o.id))?.has("return")) || (o.is_sure === 2 && ends.get(String(o.id))?.has("release"))) bad.push({ order: o.id, is_sure: o.is_sure, ends: [...ends.get(String(o.id))] });
        return bad;
      },
    },
  ];
  const external = new Map();
  for (const d of deposits) if (d.status === 1) external.set(d.currency_id, (external.get(d.currency_id) ?? 0n) + big(d.amount));
  return { explain, records, external, statuses: counts.flat() };
}

/**
 * Both views of the products whose records live in D1 (d1ProductsView and bench/lib/launch-objects.mjs
 * d1LaunchView) and their holds' explanation together: `explain(owner, hold)` → null when a record
 * explains it, the problem, or undefined when it is neither view's hold. Both crash runs use it: the
 * cut-over opens the treasury's record holds (`earn_product:*`, `launch_reserve:*`, covers, mining
 * payouts) whatever the run then loads.
 */
export async function d1RecordHoldsView(root, dir) {
  const [products, launches] = [await d1ProductsView(root, dir), await d1LaunchView(root, dir)];
  const explain = (owner, h) => {
    const problem = products.explain(owner, h);
    return problem === undefined ? launches.explain(owner, h) : problem;
  };
  return { products, launches, explain };
}
