// The crash runs' view of launches, balance adjustments and treasury funding in objects mode (issue
// #28, `--accounts objects`; docs/architecture/account-objects.md "Launches, adjustments and fee
// rebates in objects mode (session 15)"). Their records live in D1, their money in the account
// objects and the treasury shards:
//  - a published project's reserve `launch_reserve:{pid}:{published_at}` in treasury shard pid mod 8
//    holds supply − Σ allocated while the project runs, and ends spent by Σ allocated and released by
//    the rest;
//  - a commit's hold `launch:{pid}:{uuid}` (its `launch_commits.movement_key`) is open while its
//    subscription is committed; an allocation spends the cost from a subscription's commit holds and
//    releases the rest, a refund releases them whole;
//  - the allocated tokens sit in `launch_locked:{pid}` (the `lock` op) and leave it as they are claimed;
//  - an adjustment's payer holds `adjustment:{id}:{decided_at}` only for the approval's moment: an
//    approved one moved its amount once (`adjustment:{id}` legs), any other attempt's hold released whole;
//  - an approved treasury funding (user −3, amount > 0) is money from outside (conservation adds it).
import { d1 } from "./server.mjs";
import { sqlite } from "./objects.mjs";

const big = (v) => BigInt(v ?? 0);
const TREASURY = -3;

export async function d1LaunchView(root, dir) {
  const [projects, subs, commits, adjustments, claims, ...counts] = await d1(
    root,
    dir,
    `SELECT p.id, p.status, p.token_id, p.published_at, CAST(p.supply AS TEXT) AS supply,
            CAST((SELECT COALESCE(SUM(s.alloc), 0) FROM launch_subscriptions s WHERE s.project_id = p.id AND s.status = 'allocated') AS TEXT) AS allocated
       FROM launch_projects p;
     SELECT id, project_id, user_id, currency_id, status, CAST(amount AS TEXT) AS amount, CAST(alloc AS TEXT) AS alloc, CAST(cost AS TEXT) AS cost, CAST(refund AS TEXT) AS refund, CAST(claimed AS TEXT) AS claimed FROM launch_subscriptions;
     SELECT project_id, user_id, movement_key, CAST(amount AS TEXT) AS amount FROM launch_commits ORDER BY created_at, rowid;
     SELECT id, user_id, currency_id, account, CAST(amount AS TEXT) AS amount, status, decided_at FROM balance_adjustments;
     SELECT hold, state FROM object_hold_claims WHERE hold LIKE 'launch%' OR hold LIKE 'adjustment:%';
     SELECT 'launch_project' AS t, status, count(*) AS n FROM launch_projects GROUP BY status;
     SELECT 'launch_sub' AS t, status, count(*) AS n FROM launch_subscriptions GROUP BY status;
     SELECT 'launch_commit' AS t, 'n' AS status, count(*) AS n FROM launch_commits;
     SELECT 'adjustment' AS t, CASE WHEN user_id = ${TREASURY} THEN 'treasury:' ELSE 'user:' END || status AS status, count(*) AS n FROM balance_adjustments GROUP BY 2;`,
  );
  const projectById = new Map(projects.map((p) => [String(p.id), p]));
  const subOf = new Map(subs.map((s) => [`${s.project_id}:${s.user_id}`, s]));
  const commitByKey = new Map(commits.map((c) => [c.movement_key, c]));
  const claim = new Map(claims.map((c) => [c.hold, c.state]));
  const running = (p) => p && p.published_at !== null && ["open", "allocating", "cancelling"].includes(p.status);

  // (owner, hold) → null when a running record explains the hold's rest, else the problem; undefined: not these products'.
  const explain = (owner, h) => {
    const rest = h.amount - h.spent - h.released;
    const parts = h.hold.split(":");
    const user = owner.shard === null ? owner.userId : null;
    if (parts[0] === "launch_reserve") {
      const p = projectById.get(parts[1]);
      const want = p ? big(p.supply) - big(p.allocated) : null;
      return running(p) && owner.userId === TREASURY && owner.shard === Number(parts[1]) % 8 && String(p.published_at) === parts[2] && rest === want
        ? null
        : `project ${parts[1]} ${p ? `status ${p.status}, reserve supply − allocated = ${want}` : "not in D1"}`;
    }
    if (parts[0] === "launch_locked") {
      const s = subOf.get(`${parts[1]}:${user}`);
      return s && s.status === "allocated" && rest === big(s.alloc) - big(s.claimed) ? null : `locked tokens of project ${parts[1]}: ${s ? `status ${s.status}, alloc − claimed = ${big(s.alloc) - big(s.claimed)}` : "no subscription"}`;
    }
    if (parts[0] === "launch") {
      if (claim.get(h.hold) === "orphan") return "the orphan sweep claimed it, yet it is open";
      const s = subOf.get(`${parts[1]}:${user}`);
      // A commit of before the cut-over: one hold `launch:{pid}` for them all.
      const own = `launch:${parts[1]}:`;
      const want = parts.length === 2 ? commits.filter((c) => String(c.project_id) === parts[1] && c.user_id === user && !c.movement_key.startsWith(own)).reduce((a, c) => a + big(c.amount), 0n) : big(commitByKey.get(h.hold)?.amount);
      const c = parts.length === 2 ? true : commitByKey.get(h.hold);
      return c && s && s.status === "committed" && rest === want ? null : `commit ${h.hold}: ${s ? `subscription ${s.id} ${s.status}` : "no subscription"}${c ? "" : ", no commit row"}`;
    }
    if (parts[0] === "adjustment") return `adjustment ${parts[1]}'s hold is still open (resolved by the approval's legs, or given back)`;
    return undefined;
  };

  const records = [
    {
      name: "launch: each subscription's money its way — allocated: the cost spent from its commit holds, the rest released, the tokens locked (alloc) and released as claimed; refunded: every commit hold released whole; each finished project's reserve spent by Σ allocated and released by the rest",
      check: (objects) => {
        const bad = [];
        const userObj = (id) => objects.users.get(id);
        for (const s of subs) {
          const o = userObj(s.user_id);
          const holds = commits.filter((c) => c.project_id === s.project_id && c.user_id === s.user_id).map((c) => o?.holdByName.get(c.movement_key.startsWith(`launch:${s.project_id}:`) ? c.movement_key : `launch:${s.project_id}`));
          const uniq = [...new Set(holds.filter(Boolean))];
          if (holds.some((h) => !h)) {
            bad.push({ sub: s.id, problem: "a commit has no hold" });
            continue;
          }
          const spent = uniq.reduce((a, h) => a + h.spent, 0n);
          const released = uniq.reduce((a, h) => a + h.released, 0n);
          const amount = uniq.reduce((a, h) => a + h.amount, 0n);
          if (amount !== big(s.amount)) bad.push({ sub: s.id, problem: "commit holds differ from the subscription", holds: String(amount), amount: s.amount });
          if (s.status === "committed") continue;
          if (uniq.some((h) => h.open) || spent !== big(s.cost) || released !== big(s.refund)) bad.push({ sub: s.id, status: s.status, problem: "commit holds not resolved by cost/refund", spent: String(spent), released: String(released), cost: s.cost, refund: s.refund });
          const locked = o?.holdByName.get(`launch_locked:${s.project_id}`);
          if (s.status === "allocated" && big(s.alloc) > 0n) {
            if (!locked || locked.amount !== big(s.alloc) || locked.released !== big(s.claimed) || locked.spent !== 0n) bad.push({ sub: s.id, problem: "locked tokens", alloc: s.alloc, claimed: s.claimed, hold: locked ? `${locked.amount}/${locked.released}/${locked.spent}` : "none" });
          } else if (locked) bad.push({ sub: s.id, status: s.status, problem: "tokens locked without an allocation" });
        }
        for (const p of projects) {
          if (p.published_at === null || !["done", "cancelled"].includes(p.status)) continue;
          const h = objects.shards.get(`${TREASURY}:${Number(p.id) % 8}`)?.holdByName.get(`launch_reserve:${p.id}:${p.published_at}`);
          if (!h) {
            // A project published before the cut-over: its reserve was opened as the project's own hold (or it was D1's entirely).
            bad.push({ project: p.id, problem: "no reserve hold in its treasury shard" });
            continue;
          }
          if (h.open || h.spent !== big(p.allocated) || h.spent + h.released !== h.amount) bad.push({ project: p.id, status: p.status, problem: "reserve not resolved", hold: `${h.amount}: spent ${h.spent}, released ${h.released}`, allocated: p.allocated });
        }
        return bad;
      },
    },
    {
      name: "adjustments: each approved one moved its amount once (its `adjustment:{id}` legs: the user or the treasury shard, and the house's side); a pending or rejected one moved nothing; every payer hold resolved (the approval's spent whole, any other released whole)",
      check: (objects) => {
        const bad = [];
        const moves = new Map();
        const holds = new Map();
        for (const o of objects.all) {
          for (const r of sqlite(o.file, "SELECT ref, kind, currency, CAST(d_available AS TEXT) AS a, CAST(d_frozen AS TEXT) AS f FROM money_movements WHERE ref LIKE 'adjustment:%'")) {
            const key = r.ref.split("#")[0];
            const id = key.split(":")[1];
            (moves.get(id) ?? moves.set(id, []).get(id)).push({ o, key, ...r });
          }
          for (const h of o.holds) if (h.hold.startsWith("adjustment:")) (holds.get(h.hold.split(":")[1]) ?? holds.set(h.hold.split(":")[1], []).get(h.hold.split(":")[1])).push({ o, h });
        }
        for (const a of adjustments) {
          const id = String(a.id);
          const ms = moves.get(id) ?? [];
          const hs = holds.get(id) ?? [];
          const amount = big(a.amount);
          const abs = amount < 0n ? -amount : amount;
          if (a.status !== 1) {
            if (ms.some((m) => !m.key.startsWith(`adjustment:${id}:`) || !/:(reserve|refused|orphan)$/.test(m.key))) bad.push({ adjustment: a.id, status: a.status, problem: "moved money without an approval", keys: [...new Set(ms.map((m) => m.key))] });
            if (hs.some(({ h }) => h.open || h.spent !== 0n)) bad.push({ adjustment: a.id, status: a.status, problem: "a payer hold open or spent" });
            continue;
          }
          // The target's leg `adjustment:{id}`: the user's account or the treasury shard, net the amount, once; a
          // funding's legs `adjustment:{id}:t{k}`, one part in each treasury shard k, net the amount together.
          const funding = a.user_id === TREASURY && amount > 0n;
          const target = ms.filter((m) => (funding ? /^adjustment:\d+:t\d+$/.test(m.key) && m.key.startsWith(`adjustment:${id}:t`) : m.key === `adjustment:${id}`));
          const net = target.reduce((s, m) => s + big(m.a), 0n) + target.reduce((s, m) => s + big(m.f), 0n);
          const placeOf = (m) => (m.o.shard === null ? `user:${m.o.userId}` : `system:${m.o.userId}:${m.o.shard}`);
          const where = a.user_id === TREASURY ? `system:${TREASURY}:${a.id % 8}` : `user:${a.user_id}`;
          const at = new Set(target.map(placeOf));
          const placed = funding ? target.every((m) => placeOf(m) === `system:${TREASURY}:${m.key.split(":t").at(-1)}`) && at.size === target.length : at.size === 1 && at.has(where);
          if (net !== amount || !placed) bad.push({ adjustment: a.id, problem: "the target's leg", net: String(net), amount: a.amount, at: [...at] });
          const spent = hs.filter(({ h }) => h.spent !== 0n);
          const payer = a.user_id === TREASURY ? amount < 0n : true;
          if (payer ? spent.length !== 1 || spent[0].h.spent !== abs || spent[0].h.hold !== `adjustment:${id}:${a.decided_at}` : spent.length !== 0) bad.push({ adjustment: a.id, problem: "the payer's hold", holds: hs.map(({ h }) => `${h.hold} ${h.amount}: spent ${h.spent}, released ${h.released}`) });
          if (hs.some(({ h }) => h.open || (h.spent !== 0n && h.spent !== h.amount) || (h.spent === 0n && h.released !== h.amount))) bad.push({ adjustment: a.id, problem: "a payer hold not resolved whole" });
        }
        return bad;
      },
    },
  ];
  // An approved treasury funding brought money in from outside (the deposits shard passes it on, net zero).
  const external = new Map();
  for (const a of adjustments) if (a.status === 1 && a.user_id === TREASURY && big(a.amount) > 0n) external.set(a.currency_id, (external.get(a.currency_id) ?? 0n) + big(a.amount));
  return { explain, records, external, statuses: counts.flat() };
}
