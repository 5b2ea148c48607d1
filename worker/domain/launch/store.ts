/**
 * Launch projects and subscriptions as D1 holds them (migrations/0030_launch.sql), and the shapes
 * the API answers. Reads only; the money moves in commit.ts, settle.ts and console.ts.
 */
import type { LaunchProject, LaunchStatus, LaunchSubscription, SubscriptionStatus, Vesting } from "../../../schemas/launch.ts";
import { demandOf, nextUnlockAt, vestedUnits } from "../../../schemas/launch.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { big } from "../wallet/currency.ts";

export interface ProjectRow {
  id: number;
  title: string;
  token_id: number;
  token: string;
  token_scale: number;
  supply: number;
  cap: number;
  start_at: number;
  end_at: number;
  cliff_days: number;
  vest_days: number;
  vest_steps: number;
  listing_note: string;
  status: LaunchStatus;
  total_demand: number | null;
  created_at: number;
  published_at: number | null;
}

export interface PriceRow {
  project_id: number;
  currency_id: number;
  currency: string;
  scale: number;
  price: number;
  max_amount: number;
}

const PROJECT_COLUMNS = `p.id, p.title, p.token_id, c.name AS token, c.scale AS token_scale, p.supply, p.cap, p.start_at, p.end_at,
  p.cliff_days, p.vest_days, p.vest_steps, p.listing_note, p.status, p.total_demand, p.created_at, p.published_at`;

export async function projectRow(db: D1Database, id: number): Promise<ProjectRow | null> {
  return db.prepare(`SELECT ${PROJECT_COLUMNS} FROM launch_projects p JOIN currencies c ON c.id = p.token_id WHERE p.id = ?`).bind(id).first<ProjectRow>();
}

export async function pricesOf(db: D1Database, projectIds: number[]): Promise<PriceRow[]> {
  if (projectIds.length === 0) return [];
  const { results } = await db
    .prepare(
      `SELECT lp.project_id, lp.currency_id, c.name AS currency, c.scale, lp.price, lp.max_amount FROM launch_prices lp JOIN currencies c ON c.id = lp.currency_id
        WHERE lp.project_id IN (${projectIds.map(() => "?").join(", ")}) ORDER BY lp.project_id, CASE lp.currency_id WHEN 3 THEN 0 WHEN 1 THEN 1 ELSE 2 END`,
    )
    .bind(...projectIds)
    .all<PriceRow>();
  return results;
}

export const vestingOf = (p: Pick<ProjectRow, "end_at" | "cliff_days" | "vest_days" | "vest_steps">): Vesting => ({
  start: p.end_at,
  cliffDays: p.cliff_days,
  vestDays: p.vest_days,
  steps: p.vest_steps,
});

/** Projects as the API shows them: published ones (drafts too for the console), newest first. */
export async function listProjects(db: D1Database, userId: number | null, opts: { drafts?: boolean } = {}): Promise<LaunchProject[]> {
  const { results: rows } = await db
    .prepare(`SELECT ${PROJECT_COLUMNS} FROM launch_projects p JOIN currencies c ON c.id = p.token_id ${opts.drafts ? "" : "WHERE p.status != 'draft'"} ORDER BY p.id DESC LIMIT 100`)
    .all<ProjectRow>();
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return [];
  const marks = ids.map(() => "?").join(", ");
  const [prices, sums, mine] = await Promise.all([
    pricesOf(db, ids),
    db
      .prepare(
        `SELECT project_id, currency_id, CAST(SUM(amount) AS TEXT) AS amount, COUNT(*) AS n FROM launch_subscriptions WHERE project_id IN (${marks}) GROUP BY project_id, currency_id`,
      )
      .bind(...ids)
      .all<{ project_id: number; currency_id: number; amount: string; n: number }>(),
    userId === null
      ? Promise.resolve({ results: [] as { id: number; project_id: number; currency_id: number; currency: string; scale: number; amount: number }[] })
      : db
          .prepare(
            `SELECT s.id, s.project_id, s.currency_id, c.name AS currency, c.scale, s.amount FROM launch_subscriptions s JOIN currencies c ON c.id = s.currency_id
              WHERE s.user_id = ? AND s.project_id IN (${marks})`,
          )
          .bind(userId, ...ids)
          .all<{ id: number; project_id: number; currency_id: number; currency: string; scale: number; amount: number }>(),
  ]);
  return rows.map((p) => {
    const own = prices.filter((x) => x.project_id === p.id);
    let demand = 0n;
    let committers = 0;
    const priceOut = own.map((x) => {
      const s = sums.results.find((r) => r.project_id === p.id && r.currency_id === x.currency_id);
      const committed = big(s?.amount ?? 0);
      committers += s?.n ?? 0;
      demand += demandOf(committed, big(x.price), p.token_scale);
      return {
        currency_id: x.currency_id,
        currency: x.currency,
        price: formatUnitsTrim(big(x.price), x.scale),
        max_amount: formatUnitsTrim(big(x.max_amount), x.scale),
        committed: formatUnitsTrim(committed, x.scale),
      };
    });
    const m = mine.results.find((r) => r.project_id === p.id);
    return {
      id: p.id,
      title: p.title,
      token_id: p.token_id,
      token: p.token,
      token_scale: p.token_scale,
      status: p.status,
      prices: priceOut,
      supply: formatUnitsTrim(big(p.supply), p.token_scale),
      cap: formatUnitsTrim(big(p.cap), p.token_scale),
      // Once the window has closed, the exact sum of each commitment's demand; before, per currency.
      total_demand: formatUnitsTrim(p.total_demand === null ? demand : big(p.total_demand), p.token_scale),
      committers,
      start_at: p.start_at,
      end_at: p.end_at,
      cliff_days: p.cliff_days,
      vest_days: p.vest_days,
      vest_steps: p.vest_steps,
      listing_note: p.listing_note,
      mine: m ? { id: m.id, currency_id: m.currency_id, currency: m.currency, amount: formatUnitsTrim(big(m.amount), m.scale) } : null,
      created_at: p.created_at,
    };
  });
}

export interface SubscriptionRow {
  id: number;
  project_id: number;
  user_id: number;
  currency_id: number;
  currency: string;
  scale: number;
  amount: number;
  max_amount: number;
  status: SubscriptionStatus;
  alloc: number;
  cost: number;
  refund: number;
  claimed: number;
  created_at: number;
  title: string;
  token_id: number;
  token: string;
  token_scale: number;
  project_status: LaunchStatus;
  end_at: number;
  cliff_days: number;
  vest_days: number;
  vest_steps: number;
}

const SUBSCRIPTION_SELECT = `SELECT s.id, s.project_id, s.user_id, s.currency_id, pc.name AS currency, pc.scale, s.amount, s.max_amount, s.status, s.alloc, s.cost,
    s.refund, s.claimed, s.created_at, p.title, p.token_id, t.name AS token, t.scale AS token_scale, p.status AS project_status, p.end_at,
    p.cliff_days, p.vest_days, p.vest_steps
  FROM launch_subscriptions s JOIN launch_projects p ON p.id = s.project_id JOIN currencies pc ON pc.id = s.currency_id JOIN currencies t ON t.id = p.token_id`;

/** One's own subscription (another user's id reads as not found: null). */
export async function subscriptionOf(db: D1Database, userId: number, id: number): Promise<SubscriptionRow | null> {
  return db.prepare(`${SUBSCRIPTION_SELECT} WHERE s.id = ? AND s.user_id = ?`).bind(id, userId).first<SubscriptionRow>();
}

export function subscriptionOut(s: SubscriptionRow, now: number): LaunchSubscription {
  const alloc = big(s.alloc);
  const claimed = big(s.claimed);
  const v = vestingOf(s);
  const vested = s.status === "allocated" ? vestedUnits(alloc, v, now) : 0n;
  const claimable = vested > claimed ? vested - claimed : 0n;
  return {
    id: s.id,
    project_id: s.project_id,
    title: s.title,
    token: s.token,
    currency_id: s.currency_id,
    currency: s.currency,
    project_status: s.project_status,
    status: s.status,
    amount: formatUnitsTrim(big(s.amount), s.scale),
    alloc: formatUnitsTrim(alloc, s.token_scale),
    cost: formatUnitsTrim(big(s.cost), s.scale),
    refund: formatUnitsTrim(big(s.refund), s.scale),
    locked: formatUnitsTrim(alloc - vested, s.token_scale),
    claimable: formatUnitsTrim(claimable, s.token_scale),
    claimed: formatUnitsTrim(claimed, s.token_scale),
    next_unlock_at: s.status === "allocated" && vested < alloc ? nextUnlockAt(v, now) : null,
    vest_start: s.end_at,
    cliff_days: s.cliff_days,
    vest_days: s.vest_days,
    vest_steps: s.vest_steps,
    created_at: s.created_at,
  };
}

/** GET /api/launch/my: one's subscriptions, newest first. */
export async function mySubscriptions(db: D1Database, userId: number, now: number): Promise<LaunchSubscription[]> {
  const { results } = await db.prepare(`${SUBSCRIPTION_SELECT} WHERE s.user_id = ? ORDER BY s.id DESC LIMIT 200`).bind(userId).all<SubscriptionRow>();
  return results.map((s) => subscriptionOut(s, now));
}
