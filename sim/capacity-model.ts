/**
 * The capacity model of the account objects (docs/architecture/account-objects.md, "Calls per
 * object per action"), written from the counts of sim/capacity.ts: what each action calls at
 * once, what the delivery rounds add, and from those the calls per second of each object class
 * for P pairs, U active users, M market-maker accounts, N fee and treasury shards and a delivery
 * round of 1000/R ms; then the exchange's ceiling with no object past LIMIT requests/s.
 */
import type { ActionKind, CapacityOptions, CapacityResult, ObjectClass } from "./capacity.ts";
import { MIX } from "./capacity.ts";
import { STEP_WINDOW } from "../durable/money/core.ts";

/** Cloudflare's soft limit of one Durable Object. */
export const LIMIT = 1_000;
/** D1's budget of statements per second (bench/README.md "Issue #17 §4"). */
export const D1_STATEMENTS = 1_000;
/** Statements of one drain batch (durable/account/drain.ts: movements, notifications, bookmark). */
export const DRAIN_STATEMENTS = 3;
/** Due legs one deliverDue step looks at (durable/money/core.ts): a destination's legs within it go in one call. */
export const LEGS_PER_WINDOW = STEP_WINDOW;

/** The Worker's calls per action, per object class: the model's claim, which the simulator counts. */
export const ACTION_CALLS: Record<ActionKind, Partial<Record<ObjectClass, number>>> = {
  cross: { account: 1, pair: 1 },
  rest: { account: 1, pair: 1 },
  batch: { account: 1, pair: 1 },
  cancel: { pair: 1 },
  seconds: { account: 1, treasury: 1, pair: 1 },
  leverOpen: { account: 1, treasury: 1, pair: 1 },
  leverClose: { pair: 1 },
  transfer: { account: 1 },
  quote: { maker: 1, pair: 1 },
};

/** What a run measured, per pair and second, that the model takes as its inputs. */
export interface Measured {
  /** Users' actions per pair per second. */
  a: number;
  /** The makers' quote batches per pair per second, per user action (grows with the crossing volume). */
  kappa: number;
  /** Calls the busiest destination of a round takes in it, mean over rounds that sent legs (1 when every round's legs fit one window). */
  stepsPerRound: number;
  /** Legs committed per user action (trades' three legs, cancels' releases, closes, settlements). */
  legsPerAction: number;
  /** Share of the actions that reserve in the treasury (seconds contracts, lever opens). */
  treasuryShare: number;
  /** Share of the actions that call the pair (all but transfers). */
  pairShare: number;
  /** Calls per user action on the acting user's own account object, legs included. */
  userCallsPerAction: number;
  /** Users' orders per user action (a batch is 20). */
  ordersPerAction: number;
  /** Trades per user action. */
  tradesPerAction: number;
}

export function measured(r: CapacityResult): Measured {
  const { actionsPerPair } = r.options;
  const userActions = Object.entries(r.actions).reduce((n, [k, v]) => n + (k === "quote" ? 0 : v), 0);
  const quotes = r.actions.quote ?? 0;
  const acc = r.calls.account;
  const userCalls = Object.values(acc).reduce((n, v) => n + (v ?? 0), 0);
  return {
    a: actionsPerPair,
    kappa: quotes / Math.max(1, userActions),
    // Runs saved before the rounds were grouped per destination counted steps only (one call per destination per step).
    stepsPerRound: (r.destCalls ?? r.steps) / Math.max(1, r.rounds),
    legsPerAction: Object.values(r.legs).reduce((n, v) => n + v, 0) / Math.max(1, userActions),
    treasuryShare: ((r.actions.seconds ?? 0) + (r.actions.leverOpen ?? 0)) / Math.max(1, userActions),
    pairShare: (userActions - (r.actions.transfer ?? 0)) / Math.max(1, userActions),
    userCallsPerAction: userCalls / Math.max(1, userActions),
    ordersPerAction: ((r.actions.cross ?? 0) + (r.actions.rest ?? 0) + 20 * (r.actions.batch ?? 0)) / Math.max(1, userActions),
    tradesPerAction: r.trades / Math.max(1, userActions),
  };
}

export interface Shape {
  /** P */
  pairs: number;
  /** U: active users (distinct accounts acting in a second is what the read model feels). */
  users: number;
  /** M */
  makers: number;
  /** N */
  shards: number;
  shardBy: "pair" | "id";
  /** R: delivery rounds per second per pair. */
  rounds: number;
  /** a: users' actions per pair per second. */
  a: number;
}

/**
 * Calls a hot destination (a maker, a fee shard) takes from one pair's delivery round at a users'
 * action rate a per pair: deliverDue gives each destination all of its legs among the oldest
 * STEP_WINDOW due legs in one call, so a round of more legs than that may reach it once per
 * window. Never below what the run counted.
 */
export function stepsPerRound(a: number, rounds: number, m: Measured): number {
  return Math.max(m.stepsPerRound, Math.ceil((a * m.legsPerAction) / rounds / LEGS_PER_WINDOW));
}

/**
 * Calls per second of the busiest object of each class (the model's bound: a round-bound term
 * counts every round as carrying legs, as it does under load).
 */
export function predicted(s: Shape, m: Measured): Record<ObjectClass, number> {
  const q = m.kappa * s.a;
  const steps = stepsPerRound(s.a, s.rounds, m);
  const perMaker = Math.ceil(s.pairs / s.makers);
  const perShard = s.shardBy === "pair" ? Math.ceil(s.pairs / s.shards) : s.pairs;
  return {
    pair: s.a * m.pairShare + q,
    maker: perMaker * (q + s.rounds * steps),
    fees: perShard * s.rounds * steps,
    // Reserves are not grouped (one per open); settlements one leg per pair-second, closes per round.
    treasury: (s.a * s.pairs * m.treasuryShare) / s.shards + perShard * (1 + s.rounds),
    account: (s.a * s.pairs * m.userCallsPerAction) / Math.max(1, s.users),
  };
}

/**
 * The largest a (users' actions per pair per second) with no object past LIMIT, which class binds,
 * and the shards N that rate needs: the pair takes a·(pair share + κ); a maker quoting P/M pairs
 * takes (P/M)·(κ·a + R·steps); a user's own object a·P·c/U; fee shards (by pair) (P/N)·R·steps
 * whatever the rate; treasury shards the opens a·P·share/N plus (P/N)·(1 + R) legs.
 */
export function ceiling(s: Omit<Shape, "a" | "shards" | "shardBy">, m: Measured): { a: number; binds: ObjectClass; actionsPerSecond: number; shards: { fees: number; treasury: number } } {
  // Shards are chosen to fit (below), so the pair, the makers and the users decide the rate.
  const load = (a: number) => {
    const p = predicted({ ...s, a, shards: 1e9, shardBy: "pair" }, m);
    return { pair: p.pair, maker: p.maker, account: (a * s.pairs * m.userCallsPerAction) / Math.max(1, s.users) } as Record<"pair" | "maker" | "account", number>;
  };
  const fits = (a: number) => Object.values(load(a)).every((v) => v <= LIMIT);
  let lo = 0;
  let hi = LIMIT * 10;
  if (!fits(0)) lo = hi = 0;
  else
    for (let i = 0; i < 50; i++) {
      const mid = (lo + hi) / 2;
      if (fits(mid)) lo = mid;
      else hi = mid;
    }
  const over = load(hi + 1e-6);
  const binds = (Object.keys(over) as ("pair" | "maker" | "account")[]).reduce((best, k) => (over[k] > over[best] ? k : best), "pair" as "pair" | "maker" | "account");
  return { a: lo, binds, actionsPerSecond: lo * s.pairs, shards: shardsNeeded(s.pairs, s.rounds, lo, m, "pair") };
}

/** Shards needed so that no fee or treasury shard passes LIMIT at a users' action rate a per pair. */
export function shardsNeeded(pairs: number, rounds: number, a: number, m: Measured, shardBy: "pair" | "id"): { fees: number; treasury: number } {
  const perPairFees = rounds * stepsPerRound(a, rounds, m);
  // By pair: a shard takes ≤ one call per round from each of its pairs. By id: every busy round reaches every shard.
  const fees = shardBy === "pair" ? Math.ceil((pairs * perPairFees) / LIMIT) : pairs * perPairFees <= LIMIT ? 1 : Number.POSITIVE_INFINITY;
  const treasury = Math.ceil((a * pairs * m.treasuryShare + pairs * (1 + rounds)) / LIMIT);
  return { fees, treasury };
}

const f0 = (n: number) => Math.round(n).toLocaleString("en");
const f1 = (n: number) => n.toFixed(n < 10 ? 2 : 1);

/** The report `npm run sim:capacity` prints (markdown tables, as docs/architecture/account-objects.md has them). */
export function report(r: CapacityResult): string[] {
  const o: CapacityOptions = r.options;
  const m = measured(r);
  const out: string[] = [];
  const classes: ObjectClass[] = ["account", "maker", "pair", "fees", "treasury"];
  const userActions = Object.entries(r.actions).reduce((n, [k, v]) => n + (k === "quote" ? 0 : v), 0);
  out.push(
    `${o.pairs} pairs, ${o.accounts.toLocaleString("en")} accounts (${r.spread.account.objects.toLocaleString("en")} acted or received legs), ${o.makers} market maker(s), ${o.shards} fee + ${o.shards} treasury shards by ${o.shardBy}, ` +
      `${o.seconds} s at ${o.actionsPerPair} user actions per pair per second, delivery round ${o.roundMs} ms, seed ${o.seed}`,
  );
  out.push(
    `${f0(userActions)} user actions + ${f0(r.actions.quote ?? 0)} quote batches; ${f0(r.orders)} orders, ${f0(r.trades)} trades; ${f0(r.rounds)} delivery rounds in ${f0(r.steps)} steps; ` +
      `${r.insufficient} refused for funds; ${(r.cpuMs / 1000).toFixed(1)} s CPU, ${(r.ms / 1000).toFixed(1)} s wall; ${f0(r.resident.evictions)} evictions, ${f0(r.resident.restores)} restores`,
  );
  out.push("");
  out.push("Calls at once per action (counted, mean per action), and legs it commits (delivered in rounds):");
  out.push("");
  out.push("| action | count | account (user) | maker | pair | treasury | legs → user | legs → maker | legs → fees | legs → treasury |");
  out.push("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const kinds = ["cross", "rest", "batch", "cancel", "seconds", "leverOpen", "leverClose", "transfer", "quote", "seconds settlement"];
  for (const k of kinds) {
    const n = k === "seconds settlement" ? 0 : (r.actions[k] ?? 0);
    const c = r.callsPerAction[k] ?? {};
    const l = r.legsPerAction[k] ?? {};
    const per = (v: number | undefined) => (n ? f1((v ?? 0) / n) : v ? f0(v) : "");
    out.push(`| ${k} | ${n ? f0(n) : "per pair-second"} | ${per(c.account)} | ${per(c.maker)} | ${per(c.pair)} | ${per(c.treasury)} | ${per(l.account)} | ${per(l.maker)} | ${per(l.fees)} | ${per(l.treasury)} |`);
  }
  out.push("");
  out.push("Calls received per object class (counted): legs delivered per call is the rounds' grouping:");
  out.push("");
  out.push("| class | objects | calls | of which leg deliveries | legs | legs per delivery | mean calls/s per object | busiest object | its busiest second |");
  out.push("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |");
  for (const k of classes) {
    const calls = Object.values(r.calls[k]).reduce((n, v) => n + (v ?? 0), 0);
    const deliveries = r.calls[k].legs ?? 0;
    out.push(
      `| ${k} | ${f0(r.spread[k].objects)} | ${f0(calls)} | ${f0(deliveries)} (+${f0(r.calls[k]["legs (again)"] ?? 0)} again) | ${f0(r.legs[k])} | ${deliveries ? f1(r.legs[k] / deliveries) : ""} | ${f1(r.spread[k].meanPerSecond)} | ${r.peak[k].name} | ${f0(r.peak[k].perSecond)} |`,
    );
  }
  const busiest = classes.reduce((b, k) => (r.peak[k].perSecond > r.peak[b].perSecond ? k : b), "pair" as ObjectClass);
  out.push("");
  out.push(
    r.peak[busiest].perSecond <= LIMIT
      ? `No object past ${LIMIT} calls in any simulated second (busiest: ${r.peak[busiest].name}, ${r.peak[busiest].perSecond}).`
      : `PAST ${LIMIT}/s: ${classes.filter((k) => r.peak[k].perSecond > LIMIT).map((k) => `${r.peak[k].name} ${r.peak[k].perSecond}`).join(", ")} in its busiest second.`,
  );
  const drainPeak = Math.max(0, ...r.drainsPerSecond.filter((v) => v !== undefined));
  out.push("");
  out.push(
    `Read model (D1): ${f0(r.drains.batches)} drain batches (${f0(r.drains.movements)} movements), ${f1(r.drains.batches / Math.max(1, r.orders))} per order, ` +
      `busiest second ${f0(drainPeak)} batches = ${f0(drainPeak * DRAIN_STATEMENTS)} statements at ${DRAIN_STATEMENTS} per batch (D1: about ${f0(D1_STATEMENTS)}/s).`,
  );
  // The drain through K collector objects (durable/account/collector.ts, session 15): each drain
  // window above is one hand-over call to the collector its object's name hashes to; a collector
  // writes one D1 batch per 500 ms window it gathered (the users' movements: 1 statement; the system
  // shards': 1; each user's bookmark moves with its movements, migrations/0052).
  if (r.collectors && r.collectors.length > 0) {
    out.push("");
    out.push("Through K collector objects (counted from the same drain windows):");
    out.push("");
    out.push("| K collectors | D1 batches | statements | per order | busiest second: statements | busiest collector's busiest second: calls |");
    out.push("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const c of r.collectors)
      out.push(`| ${c.k} | ${f0(c.batches)} | ${f0(c.statements)} | ${(c.statements / Math.max(1, r.orders)).toFixed(3)} | ${f0(c.peakStatementsPerSecond)} | ${f0(c.peakCallsPerSecond)} |`);
    const fit = r.collectors.find((c) => c.peakCallsPerSecond <= LIMIT);
    out.push("");
    out.push(
      fit
        ? `Fewest collectors with none past ${LIMIT} calls/s: ${fit.k} (${(fit.statements / Math.max(1, r.orders)).toFixed(3)} read-model statements per order from the accounts' drains; the pairs' own drains of orders and trades are not simulated here).`
        : `Every K tried puts a collector past ${LIMIT} calls/s: more collectors, or longer windows, are needed at this load.`,
    );
    out.push(
      `Statements are not the whole of D1's work: every movement is still one row inserted (and its balance row updated by the trigger), ` +
        `${f0(r.drains.movements / Math.max(1, o.seconds))} movements/s in this run whatever K is.`,
    );
  }
  const shape = { pairs: o.pairs, users: r.spread.account.objects / o.seconds, makers: o.makers, shards: o.shards, shardBy: o.shardBy, rounds: 1000 / o.roundMs };
  const p = predicted({ ...shape, a: o.actionsPerPair }, m);
  out.push("");
  out.push(
    `Model inputs measured: quote batches per user action κ = ${m.kappa.toFixed(3)}, calls per round to the busiest destination ${m.stepsPerRound.toFixed(2)}, treasury share ${m.treasuryShare.toFixed(3)}, ` +
      `pair share ${m.pairShare.toFixed(3)}, calls on the user's own object per action ${m.userCallsPerAction.toFixed(2)}.`,
  );
  out.push("");
  out.push("| class | model: busiest object, calls/s | counted: busiest object's busiest second | counted mean per object |");
  out.push("| --- | ---: | ---: | ---: |");
  for (const k of classes) out.push(`| ${k} | ${f0(p[k])} | ${f0(r.peak[k].perSecond)} | ${f1(r.spread[k].meanPerSecond)} |`);
  const c = ceiling(shape, m);
  out.push("");
  out.push(
    `Ceiling with this shape (no object past ${LIMIT}/s): ${f1(c.a)} user actions per pair per second = ${f0(c.actionsPerSecond)} actions/s over ${o.pairs} pairs; ` +
      `the ${c.binds} object binds first; it needs ${c.shards.fees} fee and ${c.shards.treasury} treasury shards (by pair).`,
  );
  return out;
}

/** The mix's weights (out of 100), for the docs. */
export const MIX_TEXT = Object.entries(MIX)
  .map(([k, v]) => `${k} ${v}`)
  .join(", ");
