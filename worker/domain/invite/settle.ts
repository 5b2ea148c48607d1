/**
 * The daily rebate settlement (issue #18 §2): for one past Beijing day, in resumable steps that each
 * commit as one D1 batch together with the run's cursor:
 *
 *   fees   the invitees' fee rows in the order D1 received them (./fee-rows.ts: up to the run's
 *          `fee_seq`, those of its window and the late ones of earlier runs' windows, each claimed
 *          once), a few thousand per step, aggregated in SQL (GROUP BY) per (invitee, product,
 *          currency) into invite_fees (a run made before migration 0055: one step per hour);
 *          then one step fixes the day's prices (invite_prices: USDT = 1, otherwise the valuation
 *          reference of the coin's USDT pair: the median of its index ticks over the settled window,
 *          or the newest tick before the window's end when none falls in it, "0" when the pair never
 *          had an index; never the last trade, which two accounts of one person can print; a re-run
 *          reads the stored price) and the inviters' agent levels (invite_agents, from the 30 days
 *          before, over fees valued the same way);
 *   lines  invitees in id order, a few thousand fee rows per step: fees valued in USDT, eligibility
 *          (identity verified at level 2, as the spec asks, within 12 months of registration, no same-identity refusal, inviter
 *          not an operator), one invite_rebates row per (inviter, invitee, level, product);
 *   pay    inviters in id order, 1,000 per step: ONE balanced movement per (day, inviter), keyed
 *          `invite-rebate:{day}:{inviterId}`, from the fee account's USDT into the inviter's lever
 *          account (spot when leverage is off), with the inviter's notification in the same batch.
 *          In objects mode (`ACCOUNTS=objects`) the fee shards hold the fees: the step first holds
 *          its total in them (`rebates.ts`), then its batch writes one credit leg per inviter,
 *          `rebate:{day}:{inviterId}`, and the shards' spends into `record_legs`, sent after it.
 *
 * Every step's batch also inserts (day, step) into invite_run_steps, so two invocations racing on
 * the same step cannot both commit: the loser's batch changes nothing and it reads the run again.
 * An invocation stops before its statement budget (D1 allows 1,000 queries per invocation) and the
 * next one (the every-minute cron, or the console) goes on from the cursor.
 */
import { ApiError } from "../../lib/errors.ts";
import { formatUnits, mulDiv, parseUnits } from "../../../schemas/money.ts";
import type { InviteRun } from "../../../schemas/invite.ts";
import { movementsStatements, SYSTEM, type LedgerEntry, type WalletAccount } from "../../lib/ledger.ts";
import { productsOf } from "../../lib/products.ts";
import { announceNotifications, notificationsStatement, type NewNotification } from "../notifications/inbox.ts";
import { money } from "../notifications/events.ts";
import { feeKindsSql, feeProductSql } from "./fees.ts";
import { objectFeeStatements } from "./object-fees.ts";
import { addDays, beijingDay, dayEnd, dayStart, monthsBefore } from "./days.ts";
import { ratesFor, rateToBp, type AgentLevel } from "./settings.ts";
import { REBATE_KYC_LEVEL, REBATE_MONTHS } from "../../../schemas/invite.ts";
import { pairStub } from "../spot/pairs.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import { rebateLegs } from "./rebates.ts";
import { claimStatements, claimWindowStatement, feeSeqSql, nextClaim } from "./fee-rows.ts";

const HOUR = 3_600_000;
const FEE_ROWS_PER_STEP = 4000;
const INVITERS_PER_STEP = 1000;
const LINES_PER_STATEMENT = 5000;
const PRICE_DECIMALS = 12;
/** Notifications are pushed live (best effort) to at most this many inviters per invocation; all get the inbox item. */
const ANNOUNCE_MAX = 50;

export interface RunRow {
  day: string;
  phase: "fees" | "lines" | "pay" | "done";
  cursor: number;
  step: number;
  paid_to: "lever" | "change";
  l1_rate: number;
  l2_rate: number;
  l3_rate: number;
  agents: string;
  inviters_paid: number;
  total_paid: number;
  fees_counted: number;
  invocations: number;
  statements: number;
  started_at: number;
  finished_at: number | null;
  /** The settled window [window_from, window_to) in epoch ms; NULL = the whole Beijing day. */
  window_from: number | null;
  window_to: number | null;
  /** The highest fee row (invite_fee_rows.seq) the run counts; NULL = a run made before migration 0055, counted by its window's hours. */
  fee_seq: number | null;
}

const windowFrom = (run: RunRow) => run.window_from ?? dayStart(run.day);
const windowTo = (run: RunRow) => run.window_to ?? dayEnd(run.day);

export interface SettleEnv {
  DB: D1Database;
  /** The pair objects, whose index ticks value the fees (absent: nothing but USDT fees is valued). */
  PAIR?: Env["PAIR"];
  USER?: Env["USER"];
  PRODUCT_LEVER?: string;
  ACCOUNTS?: string;
}

interface Usdt {
  id: number;
  scale: number;
}

class Counter {
  used = 0;
  /** how many of `used` are already added to the run's `statements` */
  recorded = 0;
  constructor(readonly budget: number) {}
  add(n: number) {
    this.used += n;
  }
  fits(n: number) {
    return this.used + n <= this.budget;
  }
}

async function usdtOf(db: D1Database, c: Counter): Promise<Usdt> {
  c.add(1);
  const r = await db.prepare("SELECT id, scale FROM currencies WHERE name = 'USDT'").first<Usdt>();
  if (!r) throw new Error("no USDT currency");
  return r;
}

export function runView(r: RunRow, usdtScale: number): InviteRun {
  return {
    day: r.day,
    status: r.phase === "done" ? "done" : "running",
    inviters_paid: r.inviters_paid,
    total_paid_usdt: formatUnits(BigInt(r.total_paid), usdtScale),
    fees_counted_usdt: formatUnits(BigInt(r.fees_counted), usdtScale),
    invocations: r.invocations,
    statements: r.statements,
    started_at: r.started_at,
    finished_at: r.finished_at,
  };
}

/** The step's guard and the run's new state, last in the step's batch. */
function advance(db: D1Database, run: RunRow, next: { phase: RunRow["phase"]; cursor: number; fees?: bigint; inviters?: number; paid?: bigint }, stmtsInBatch: number, c: Counter) {
  // Statements of this invocation not yet recorded, this batch included.
  const statements = c.used + stmtsInBatch;
  c.add(stmtsInBatch);
  const recorded = statements - c.recorded;
  c.recorded = statements;
  return [
    // `at` is the wall time of the step (the report's timing), not the tick's "now".
    db.prepare("INSERT INTO invite_run_steps (day, step, phase, cursor, at) VALUES (?, ?, ?, ?, ?)").bind(run.day, run.step, next.phase, next.cursor, Date.now()),
    db
      .prepare(
        `UPDATE invite_runs SET phase = ?, cursor = ?, step = step + 1, statements = statements + ?, fees_counted = fees_counted + ?,
           inviters_paid = inviters_paid + ?, total_paid = total_paid + ?, finished_at = ? WHERE day = ?`,
      )
      .bind(next.phase, next.cursor, recorded, String(next.fees ?? 0n), next.inviters ?? 0, String(next.paid ?? 0n), next.phase === "done" ? Date.now() : null, run.day),
  ];
}

async function readRun(db: D1Database, day: string, c: Counter): Promise<RunRow | null> {
  c.add(1);
  return db.prepare("SELECT * FROM invite_runs WHERE day = ?").bind(day).first<RunRow>();
}

/** Runs a step's batch; false when another invocation committed this step first (nothing changed). */
async function commit(db: D1Database, stmts: D1PreparedStatement[]): Promise<boolean> {
  try {
    await db.batch(stmts);
    return true;
  } catch (err) {
    if (/UNIQUE constraint failed: invite_run_steps/i.test(String((err as Error)?.message ?? err))) return false;
    throw err;
  }
}

/**
 * Settles `day` (a Beijing day that has ended by `now`) as far as `budget` statements allow;
 * returns the run. Idempotent: a finished day changes nothing. With `early`, `day` may also be
 * today: the run then settles up to `now`, and tomorrow's run starts from there (its window begins
 * where the previous day's run stopped), so no fee is counted twice or lost; a fee row that reaches
 * D1 after the run (the read model's drains) is counted by the next run (./fee-rows.ts).
 */
export async function settleDay(env: SettleEnv, day: string, now: number, budget = 600, early = false): Promise<RunRow> {
  const db = env.DB;
  const c = new Counter(budget);
  let run = await readRun(db, day, c);
  if (!run) {
    const ended = dayEnd(day) <= now;
    if (!ended && !(early && day === beijingDay(now))) throw new Error(`invite settlement: day ${day} has not ended`);
    const rates = await ratesFor(db, day);
    c.add(3);
    const before = await db.prepare("SELECT window_to FROM invite_runs WHERE day = ?").bind(addDays(day, -1)).first<{ window_to: number | null }>();
    const from = before?.window_to ?? dayStart(day);
    const to = ended ? dayEnd(day) : now;
    await db
      .prepare(
        `INSERT INTO invite_runs (day, phase, paid_to, l1_rate, l2_rate, l3_rate, agents, started_at, window_from, window_to, fee_seq)
         VALUES (?, 'fees', ?, ?, ?, ?, ?, ?, ?, ?, ${feeSeqSql})
         ON CONFLICT (day) DO NOTHING`,
      )
      .bind(day, productsOf(env).lever ? "lever" : "change", rates.l1, rates.l2, rates.l3, JSON.stringify(rates.agents), Date.now(), from, to)
      .run();
    run = (await readRun(db, day, c))!;
  }
  if (run.phase === "done") return run;
  c.add(1);
  await db.prepare("UPDATE invite_runs SET invocations = invocations + 1 WHERE day = ?").bind(day).run();
  const usdt = await usdtOf(db, c);
  const announce: number[] = [];
  for (;;) {
    run = (await readRun(db, day, c))!;
    if (run.phase === "done") break;
    if (!c.fits(run.phase === "pay" ? 8 : run.phase === "lines" ? 12 : 20)) break;
    if (run.phase === "fees") await feesStep(env, run, usdt, c);
    else if (run.phase === "lines") await linesStep(db, run, usdt, c, now);
    else announce.push(...(await payStep(env, run, usdt, c, now)));
  }
  // Statements of this invocation after the last step (the final read) are recorded too.
  // This invocation's statements after its last step (the reads, this update and the final read).
  await db.prepare("UPDATE invite_runs SET statements = statements + ? WHERE day = ?").bind(c.used + 2 - c.recorded, day).run();
  if (env.USER && announce.length > 0) await announceNotifications({ USER: env.USER }, announce.slice(0, ANNOUNCE_MAX));
  return (await db.prepare("SELECT * FROM invite_runs WHERE day = ?").bind(day).first<RunRow>())!;
}

async function feesStep(env: SettleEnv, run: RunRow, usdt: Usdt, c: Counter) {
  const db = env.DB;
  const day = run.day;
  const start = windowFrom(run);
  const end = windowTo(run);
  const upsert = "ON CONFLICT (day, user_id, product, currency_id) DO UPDATE SET fee = fee + excluded.fee";
  if (run.fee_seq !== null) {
    // The fee rows in the order D1 received them, late ones included (./fee-rows.ts); the cursor is the last seq taken.
    const w = { day, after: run.cursor, top: run.fee_seq, from: start, to: end };
    c.add(1);
    const hi = await nextClaim(db, w);
    if (hi !== null) {
      const stmts = claimStatements(env, w, hi, upsert);
      await commit(db, [...stmts, ...advance(db, run, { phase: "fees", cursor: hi }, stmts.length + 2, c)]);
      return;
    }
  } else if (run.cursor < Math.ceil((end - start) / HOUR)) {
    const from = start + run.cursor * HOUR;
    const to = Math.min(from + HOUR, end);
    const stmts = [
      // Fee rows (the fee account credited) joined to the invitee's row of the same movement.
      db
        .prepare(
          `INSERT INTO invite_fees (day, user_id, product, currency_id, fee)
           SELECT ?1, u.user_id, ${feeProductSql("f.kind")}, f.currency_id, SUM(f.d_available + f.d_frozen)
           FROM ledger f JOIN ledger u ON u.movement_key = f.movement_key AND u.user_id > 0
           JOIN users x ON x.id = u.user_id AND x.parent_id IS NOT NULL
           WHERE f.user_id = 0 AND f.created_at >= ?2 AND f.created_at < ?3 AND ${feeKindsSql("f.kind")}
           GROUP BY u.user_id, 3, f.currency_id ${upsert}`,
        )
        .bind(day, from, to),
      // Spot: the buyer pays in the base coin, the seller in the quote (spot_trades, written in the drain's batch).
      db
        .prepare(
          `INSERT INTO invite_fees (day, user_id, product, currency_id, fee)
           SELECT ?1, t.buyer_id, 'spot', p.currency_id, SUM(t.buyer_fee)
           FROM spot_trades t JOIN pairs p ON p.id = t.pair_id JOIN users x ON x.id = t.buyer_id AND x.parent_id IS NOT NULL
           WHERE t.created_at >= ?2 AND t.created_at < ?3 AND t.buyer_fee > 0
           GROUP BY t.buyer_id, p.currency_id ${upsert}`,
        )
        .bind(day, from, to),
      db
        .prepare(
          `INSERT INTO invite_fees (day, user_id, product, currency_id, fee)
           SELECT ?1, t.seller_id, 'spot', p.legal_id, SUM(t.seller_fee)
           FROM spot_trades t JOIN pairs p ON p.id = t.pair_id JOIN users x ON x.id = t.seller_id AND x.parent_id IS NOT NULL
           WHERE t.created_at >= ?2 AND t.created_at < ?3 AND t.seller_fee > 0
           GROUP BY t.seller_id, p.legal_id ${upsert}`,
        )
        .bind(day, from, to),
      // Objects mode: the fees those products paid into the fee shards, which D1's ledger no longer books (./object-fees.ts).
      ...(accountsOnObjects(env) ? objectFeeStatements(db, day, from, to, usdt.id, upsert) : []),
      claimWindowStatement(db, day, from, to),
    ];
    await commit(db, [...stmts, ...advance(db, run, { phase: "fees", cursor: run.cursor + 1 }, stmts.length + 2, c)]);
    return;
  }
  // Prices of the day's fee currencies and the inviters' agent levels, fixed once.
  c.add(1);
  const { results: currencies } = await db
    .prepare("SELECT DISTINCT f.currency_id AS id FROM invite_fees f WHERE f.day = ?")
    .bind(day)
    .all<{ id: number }>();
  const prices: D1PreparedStatement[] = [];
  for (const { id } of currencies) {
    if (id === usdt.id) {
      prices.push(db.prepare("INSERT INTO invite_prices (day, currency_id, price, source) VALUES (?, ?, '1', 'usdt') ON CONFLICT DO NOTHING").bind(day, id));
      continue;
    }
    // The reference no two accounts can move: the pair's index ticks over the settled window
    // (desks/seconds.ts `referencePrice`), never the last trade, which a thin book lets one person print.
    c.add(1);
    const pair = await db.prepare("SELECT id, price_decimals FROM pairs WHERE currency_id = ? AND legal_id = ?").bind(id, usdt.id).first<{ id: number; price_decimals: number }>();
    const ref = pair && env.PAIR ? await pairStub({ PAIR: env.PAIR }, pair.id).referencePrice(pair.id, start, end) : null;
    const source = !pair || !ref ? "none" : ref.tickId === null ? `index:${pair.id}:median:${ref.ticks}` : `index:${pair.id}:tick:${ref.tickId}`;
    prices.push(
      db
        .prepare("INSERT INTO invite_prices (day, currency_id, price, source) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
        .bind(day, id, pair && ref ? formatUnits(BigInt(ref.price), pair.price_decimals) : "0", source),
    );
  }
  const agents = JSON.parse(run.agents) as AgentLevel[];
  const th = agents.map((a) => String(parseUnits(a.threshold_usdt, usdt.scale) ?? 0n));
  const ex = agents.map((a) => rateToBp(a.extra_rate) ?? 0);
  const levelCase = [5, 4, 3, 2].map((l) => `WHEN s >= ${Number(th[l - 1])} THEN ${l}`).join(" ");
  const extraCase = [5, 4, 3, 2].map((l) => `WHEN s >= ${Number(th[l - 1])} THEN ${ex[l - 1]}`).join(" ");
  const agentStmt = db
    .prepare(
      `INSERT INTO invite_agents (day, inviter_id, fees_30d, level, extra_rate)
       SELECT ?1, inviter_id, s, CASE ${levelCase} ELSE 1 END, CASE ${extraCase} ELSE ${ex[0]} END
       FROM (SELECT inviter_id, SUM(fee_usdt) AS s FROM invite_rebates WHERE day >= ?2 AND day < ?1 GROUP BY inviter_id)
       WHERE s >= ${Number(th[0])} ON CONFLICT DO NOTHING`,
    )
    .bind(day, addDays(day, -30));
  const stmts = [...prices, agentStmt];
  await commit(db, [...stmts, ...advance(db, run, { phase: "lines", cursor: 0 }, stmts.length + 2, c)]);
}

interface FeeRow {
  invitee: number;
  product: string;
  currency_id: number;
  fee: number;
  scale: number;
  price: string | null;
  created_at: number;
  verified: number;
  refused: number | null;
  p1: number | null;
  r1: string | null;
  p2: number | null;
  r2: string | null;
  p3: number | null;
  r3: string | null;
  extra: number | null;
}

/** Fee units of a currency at `scale`, valued in USDT units at `price` (USDT per coin). */
export function toUsdt(fee: bigint, scale: number, price: string, usdt: Pick<Usdt, "scale">): bigint {
  const p = parseUnits(price, PRICE_DECIMALS) ?? 0n;
  return mulDiv(fee * p, 10n ** BigInt(usdt.scale), 10n ** BigInt(scale + PRICE_DECIMALS));
}

async function linesStep(db: D1Database, run: RunRow, usdt: Usdt, c: Counter, now: number) {
  const day = run.day;
  const cutoff = dayStart(monthsBefore(day, REBATE_MONTHS));
  c.add(1);
  let { results: rows } = await db
    .prepare(
      `SELECT f.user_id AS invitee, f.product, f.currency_id, f.fee, cu.scale, pr.price, u.created_at, EXISTS (SELECT 1 FROM kyc_submissions k WHERE k.user_id = u.id AND k.status = 2 AND k.level >= ${REBATE_KYC_LEVEL}) AS verified,
         (SELECT 1 FROM invite_refusals r WHERE r.user_id = u.id) AS refused,
         p1.id AS p1, p1.role AS r1, p2.id AS p2, p2.role AS r2, p3.id AS p3, p3.role AS r3, a.extra_rate AS extra
       FROM invite_fees f JOIN users u ON u.id = f.user_id JOIN currencies cu ON cu.id = f.currency_id
       LEFT JOIN invite_prices pr ON pr.day = f.day AND pr.currency_id = f.currency_id
       LEFT JOIN users p1 ON p1.id = u.parent_id LEFT JOIN users p2 ON p2.id = p1.parent_id LEFT JOIN users p3 ON p3.id = p2.parent_id
       LEFT JOIN invite_agents a ON a.day = f.day AND a.inviter_id = p1.id
       WHERE f.day = ? AND f.user_id > ? ORDER BY f.user_id LIMIT ?`,
    )
    .bind(day, run.cursor, FEE_ROWS_PER_STEP)
    .all<FeeRow>();
  if (rows.length === 0) {
    await commit(db, advance(db, run, { phase: "pay", cursor: 0 }, 2, c));
    return;
  }
  // A full page may end inside one invitee's rows: leave that invitee to the next step.
  if (rows.length === FEE_ROWS_PER_STEP) {
    const last = rows[rows.length - 1]!.invitee;
    const cut = rows.filter((r) => r.invitee !== last);
    if (cut.length > 0) rows = cut;
  }
  // USDT value per (invitee, product), over its currencies.
  const byInvitee = new Map<string, { r: FeeRow; usdt: bigint }>();
  for (const r of rows) {
    const v = r.currency_id === usdt.id ? BigInt(r.fee) : toUsdt(BigInt(r.fee), r.scale, r.price ?? "0", usdt);
    const k = `${r.invitee}:${r.product}`;
    const cur = byInvitee.get(k);
    if (cur) cur.usdt += v;
    else byInvitee.set(k, { r, usdt: v });
  }
  const rates = [run.l1_rate, run.l2_rate, run.l3_rate];
  const lines: (string | number)[][] = [];
  let counted = 0n;
  for (const { r, usdt: fee } of byInvitee.values()) {
    // None on zero fees (a day whose refunds cancel its fees included); only verified invitees within 12 months; never a same-identity binding.
    if (fee <= 0n || !r.verified || r.created_at <= cutoff || r.refused) continue;
    let any = false;
    const chain: [number | null, string | null][] = [[r.p1, r.r1], [r.p2, r.r2], [r.p3, r.r3]];
    chain.forEach(([inviter, role], i) => {
      if (inviter === null || role !== "user") return;
      const agent = i === 0 ? (r.extra ?? 0) : 0;
      const rate = rates[i]! + agent;
      if (rate <= 0) return;
      any = true;
      lines.push([inviter, r.invitee, i + 1, r.product, fee.toString(), rate, agent, ((fee * BigInt(rate)) / 10000n).toString()]);
    });
    if (any) counted += fee;
  }
  const stmts: D1PreparedStatement[] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_STATEMENT) {
    stmts.push(
      db
        .prepare(
          `INSERT INTO invite_rebates (day, inviter_id, invitee_id, level, product, fee_usdt, rate, agent_rate, amount, paid_to, created_at)
           SELECT ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, ?, ? FROM json_each(?) WHERE true
           ON CONFLICT DO NOTHING`,
        )
        .bind(day, run.paid_to, now, JSON.stringify(lines.slice(i, i + LINES_PER_STATEMENT))),
    );
  }
  const cursor = rows[rows.length - 1]!.invitee;
  await commit(db, [...stmts, ...advance(db, run, { phase: "lines", cursor, fees: counted }, stmts.length + 2, c)]);
}

async function payStep(env: SettleEnv, run: RunRow, usdt: Usdt, c: Counter, now: number): Promise<number[]> {
  const db = env.DB;
  const day = run.day;
  c.add(1);
  const { results } = await db
    .prepare("SELECT inviter_id, SUM(amount) AS amount FROM invite_rebates WHERE day = ? AND inviter_id > ? GROUP BY inviter_id ORDER BY inviter_id LIMIT ?")
    .bind(day, run.cursor, INVITERS_PER_STEP)
    .all<{ inviter_id: number; amount: number }>();
  if (results.length === 0) {
    await commit(db, advance(db, run, { phase: "done", cursor: run.cursor }, 2, c));
    return [];
  }
  const account: WalletAccount = run.paid_to;
  const movements: { key: string; kind: string; entries: LedgerEntry[]; now: number }[] = [];
  const notices: NewNotification[] = [];
  let paid = 0n;
  for (const r of results) {
    const amount = BigInt(r.amount);
    if (amount <= 0n) continue;
    paid += amount;
    const memo = `invite rebate ${day}`;
    movements.push({
      key: `invite-rebate:${day}:${r.inviter_id}`,
      kind: "invite_rebate",
      now,
      entries: [
        { userId: SYSTEM.fees, currencyId: usdt.id, account: "change", dAvailable: -amount, dFrozen: 0n, memo },
        { userId: r.inviter_id, currencyId: usdt.id, account, dAvailable: amount, dFrozen: 0n, memo },
      ],
    });
    notices.push({ userId: r.inviter_id, kind: "invite_rebate", key: `invite-rebate:${day}`, params: { day, amount: money(amount, usdt.scale), currency: "USDT" }, link: "/invite/rebates", now });
  }
  const cursor = results[results.length - 1]!.inviter_id;
  // Objects mode: the fee shards pay (held first, then legs written with the step and sent after it).
  const onObjects = accountsOnObjects(env) && env.USER ? { DB: db, USER: env.USER } : null;
  const legs = onObjects ? await rebateLegs(onObjects, { day, step: run.cursor, currencyId: usdt.id, account, total: paid, pay: movements.map((m) => ({ userId: m.entries[1]!.userId, amount: m.entries[1]!.dAvailable })) }) : [];
  const stmts = onObjects
    ? [...recordLegsStatements(db, `invite_run:${day}`, legs, now), ...notificationsStatement(db, notices, now)]
    : [...movementsStatements(db, movements), ...notificationsStatement(db, notices, now)];
  let ok: boolean;
  try {
    ok = await commit(db, [...stmts, ...advance(db, run, { phase: "pay", cursor, inviters: movements.length, paid }, stmts.length + 2, c)]);
  } catch (err) {
    // The fee account never goes negative (migrations/0034): rebates are paid out of fees really
    // collected. The step changed nothing; the run waits here until the fee account can pay.
    if (/system_overdraft/.test(String(err))) throw new ApiError("invite_fees_short", 409);
    throw err;
  }
  if (ok && onObjects) await deliverRecordLegs(onObjects, legs);
  return ok ? notices.map((n) => n.userId) : [];
}

/** The day the 00:00 UTC cron settles: the Beijing day that just ended. */
export const dayBefore = (now: number): string => addDays(beijingDay(now), -1);
