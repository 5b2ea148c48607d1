/**
 * Price alerts (issue #30; schemas/alert.ts): the owner's list in D1 (`price_alerts`,
 * migrations/0045) and the hand-over to the pair's object, which evaluates them on every fill and
 * fires each once (durable/pair/desks/alerts.ts). Create writes the D1 row first, with the limit of
 * MAX_ACTIVE_ALERTS active alerts per user checked in the INSERT itself (two requests at once
 * cannot both pass it), then hands it to the object; an object that refuses it (the price is
 * already there) or cannot be reached leaves no row. Every query is scoped to the caller.
 */
import { ALERT_WINDOW_SECONDS, MAX_ACTIVE_ALERTS, type Alert, type AlertCreate, type AlertWindow } from "../../../schemas/alert.ts";
import { formatUnits, parseUnits } from "../../../schemas/money.ts";
import { ApiError } from "../../lib/errors.ts";
import { pairFor, pairStub } from "../spot/pairs.ts";

interface Row {
  id: number;
  pair_id: number;
  currency_id: number;
  legal_id: number;
  base: string;
  quote: string;
  kind: Alert["kind"];
  price: string | null;
  percent_bps: number | null;
  window_s: number | null;
  status: number;
  created_at: number;
  fired_at: number | null;
  fired_price: string | null;
}

const WINDOW_BY_SECONDS = new Map<number, AlertWindow>(Object.entries(ALERT_WINDOW_SECONDS).map(([w, s]) => [s, w as AlertWindow]));

/** Basis points as the percent the owner typed, trailing zeros trimmed ("250" → "2.5"). */
function percentText(bps: number): string {
  const s = formatUnits(BigInt(bps), 2);
  return s.replace(/\.?0+$/, "");
}

function view(r: Row): Alert {
  return {
    id: r.id,
    pair_id: r.pair_id,
    currency_id: r.currency_id,
    legal_id: r.legal_id,
    symbol: `${r.base}/${r.quote}`,
    kind: r.kind,
    price: r.price,
    percent: r.percent_bps === null ? null : percentText(r.percent_bps),
    window: r.window_s === null ? null : (WINDOW_BY_SECONDS.get(r.window_s) ?? null),
    status: r.status === 1 ? "fired" : "active",
    created_at: r.created_at,
    fired_at: r.fired_at,
    fired_price: r.fired_price,
  };
}

const SELECT = `SELECT a.id, a.pair_id, p.currency_id, p.legal_id, b.name AS base, q.name AS quote, a.kind, a.price, a.percent_bps, a.window_s,
  a.status, a.created_at, a.fired_at, a.fired_price
  FROM price_alerts a JOIN pairs p ON p.id = a.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id`;

/** Creates an alert for the caller and hands it to the pair's object; answers it as listed. */
export async function createAlert(env: Env, userId: number, input: AlertCreate, now = Date.now()): Promise<Alert> {
  const pair = await pairFor(env.DB, input.currency_id, input.legal_id);
  let ticks: bigint | null = null;
  let level: string | null = null;
  let bps: number | null = null;
  let windowS: number | null = null;
  if (input.kind === "move") {
    const units = parseUnits(input.percent!, 2);
    if (units === null || units <= 0n || units > 10_000n) throw new ApiError("alert_percent", 400, { field: "percent" });
    bps = Number(units);
    windowS = ALERT_WINDOW_SECONDS[input.window!];
  } else {
    ticks = parseUnits(input.price!, pair.priceDecimals);
    if (ticks === null) throw new ApiError("too_many_decimals", 400, { decimals: pair.priceDecimals });
    if (ticks <= 0n) throw new ApiError("price_positive");
    if (ticks > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("invalid_price", 400, { field: "price" });
    level = formatUnits(ticks, pair.priceDecimals);
  }
  // The limit travels in the INSERT: no row when the caller already has MAX_ACTIVE_ALERTS active.
  const row = await env.DB.prepare(
    `INSERT INTO price_alerts (user_id, pair_id, kind, price, price_ticks, percent_bps, window_s, status, created_at)
     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8
     WHERE (SELECT COUNT(*) FROM price_alerts WHERE user_id = ?1 AND status = 0) < ?9
     RETURNING id`,
  )
    .bind(userId, pair.id, input.kind, level, ticks === null ? null : Number(ticks), bps, windowS, now, MAX_ACTIVE_ALERTS)
    .first<{ id: number }>();
  if (!row) throw new ApiError("alert_limit", 409, { max: MAX_ACTIVE_ALERTS });
  const id = Number(row.id);
  const forget = () => env.DB.prepare("DELETE FROM price_alerts WHERE id = ? AND user_id = ? AND status = 0").bind(id, userId).run();
  let result;
  try {
    result = await pairStub(env, pair.id).addAlert(pair.id, {
      id,
      userId,
      kind: input.kind,
      ...(ticks === null ? {} : { priceTicks: Number(ticks), level: level! }),
      ...(bps === null ? {} : { percentBps: bps, percent: percentText(bps), window: input.window! }),
    });
  } catch (err) {
    await forget();
    throw err;
  }
  if (!result.ok) {
    await forget();
    throw new ApiError("alert_already", 409, { last: result.last });
  }
  return view({
    id,
    pair_id: pair.id,
    currency_id: pair.currencyId,
    legal_id: pair.legalId,
    base: pair.base,
    quote: pair.quote,
    kind: input.kind,
    price: level,
    percent_bps: bps,
    window_s: windowS,
    status: 0,
    created_at: now,
    fired_at: null,
    fired_price: null,
  });
}

/** The caller's alerts, newest first: every active one and the latest fired ones (100 in all at most). */
export async function listAlerts(db: D1Database, userId: number): Promise<Alert[]> {
  const { results } = await db.prepare(`${SELECT} WHERE a.user_id = ? AND a.status IN (0, 1) ORDER BY a.status, a.id DESC LIMIT 100`).bind(userId).all<Row>();
  return results.map(view).sort((x, y) => y.id - x.id);
}

/** Deletes one of the caller's alerts (active or fired); not_found for another's or an unknown id. */
export async function deleteAlert(env: Env, userId: number, id: number): Promise<void> {
  const row = await env.DB.prepare("UPDATE price_alerts SET status = 2 WHERE id = ? AND user_id = ? AND status IN (0, 1) RETURNING pair_id, fired_at")
    .bind(id, userId)
    .first<{ pair_id: number; fired_at: number | null }>();
  if (!row) throw new ApiError("not_found", 404);
  if (row.fired_at !== null) return;
  // The object's copy goes too. If it cannot be told now, the D1 row is deleted all the same: a
  // firing then notifies nobody (the drain writes a notification only for an active row).
  try {
    await pairStub(env, row.pair_id).removeAlert(row.pair_id, id, userId);
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", msg: "removeAlert not delivered", alertId: id, error: String(err) }));
  }
}
