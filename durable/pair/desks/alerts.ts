/**
 * The alerts desk (issue #30): the pair's active price alerts, checked against the trades of each
 * spot transaction, firing each one once.
 *
 * Where alerts live: D1 `price_alerts` is the owner's list (create, list, delete, the per-user
 * limit: worker/domain/alerts/); this object's SQLite `alerts` table is the copy it evaluates,
 * written by `add`/`remove` (the route calls them after its D1 write) and loaded into memory on
 * first use after a restart. Firing happens in the transaction of the trade that reached the
 * alert: the row leaves `alerts` and an outbox entry (`kind: "alert"`) takes its notification to
 * D1, so a crash either loses both (the trade too) or keeps both; the drain's statements are
 * guarded (the D1 row must still be active, the notification is keyed `alert:{id}`), so a
 * repeated drain, or an alert deleted meanwhile, notifies nobody twice.
 *
 * Cost per transaction: nothing when the pair has no alert; otherwise the highest and lowest fill
 * price of the transaction compared with the head of three sorted lists (`above` fires from its
 * lowest level, `below` from its highest, `move` from its smallest percent), plus, for move
 * alerts, the window's first price, read from the 1-minute candles at most once a minute.
 */
import { ALERT_WINDOW_SECONDS, type AlertKind, type AlertWindow } from "../../../schemas/alert.ts";
import type { NewNotification } from "../../../worker/domain/notifications/inbox.ts";
import { NOTIFICATION_EVENT } from "../../../worker/domain/notifications/inbox.ts";
import type { AlertEntry, Outbox } from "../outbox.ts";
import type { PairStorage } from "../storage.ts";
import type { AppliedResult } from "./spot.ts";

/** The tables are created here (idempotent), not in storage.ts's numbered list, so the desk stays self-contained. */
const TABLES = `CREATE TABLE IF NOT EXISTS alerts (
  id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, kind TEXT NOT NULL,
  price_ticks INTEGER, percent_bps INTEGER, window_s INTEGER, level TEXT, percent TEXT)`;

/** What the route hands the object (D1 already holds the row as active). */
export interface AlertInput {
  id: number;
  userId: number;
  kind: AlertKind;
  /** above/below: the level in price ticks, and as the owner typed it (normalised to the pair's decimals) */
  priceTicks?: number;
  level?: string;
  /** move: basis points and the percent as typed ("2.5") */
  percentBps?: number;
  percent?: string;
  window?: AlertWindow;
}

interface Active {
  id: number;
  userId: number;
  kind: AlertKind;
  ticks: number;
  bps: number;
  windowS: number;
  level: string;
  percent: string;
}

export type AddAlertResult = { ok: true } | { ok: false; code: "alert_already"; last: string };

/** Where the desk reads prices and the window's first price (the spot desk). */
export interface AlertMarket {
  symbol(): string;
  price(units: number): string;
  last(): number | null;
  /** The first traded price within the last `windowMs` (1-minute candles), or null when none. */
  windowOpen(windowMs: number, now: number): number | null;
}

/** Keeps a list sorted so that the next alert to fire is at the end (pop). */
function insertSorted(list: Active[], a: Active, key: (x: Active) => number, descending: boolean) {
  let lo = 0;
  let hi = list.length;
  const k = key(a);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const mk = key(list[mid]!);
    if (descending ? mk > k || (mk === k && list[mid]!.id > a.id) : mk < k || (mk === k && list[mid]!.id > a.id)) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, a);
}

export class AlertsDesk {
  /** above: level descending (the lowest, first to fire, at the end) */
  private above: Active[] = [];
  /** below: level ascending (the highest at the end) */
  private below: Active[] = [];
  /** move per window in seconds: percent descending (the smallest at the end) */
  private moves = new Map<number, Active[]>();
  private count = 0;
  private loaded = false;
  /** The window's first price per window (s), read at most once a minute. */
  private refs = new Map<number, { minute: number; price: number | null }>();

  constructor(
    private readonly store: PairStorage,
    private readonly outbox: Outbox,
    private readonly market: AlertMarket,
  ) {
    // A rolled-back transaction may have taken alerts out of memory: read them again from SQLite.
    store.onRollback(() => {
      this.loaded = false;
    });
  }

  private ensureLoaded(): void {
    if (this.loaded) return;
    this.store.sql.exec(TABLES);
    this.above = [];
    this.below = [];
    this.moves = new Map();
    this.count = 0;
    for (const r of this.store.sql.exec("SELECT * FROM alerts").toArray()) {
      this.keep({
        id: Number(r.id),
        userId: Number(r.user_id),
        kind: String(r.kind) as AlertKind,
        ticks: Number(r.price_ticks ?? 0),
        bps: Number(r.percent_bps ?? 0),
        windowS: Number(r.window_s ?? 0),
        level: String(r.level ?? ""),
        percent: String(r.percent ?? ""),
      });
    }
    this.loaded = true;
  }

  private keep(a: Active): void {
    if (a.kind === "above") insertSorted(this.above, a, (x) => x.ticks, true);
    else if (a.kind === "below") insertSorted(this.below, a, (x) => x.ticks, false);
    else {
      let list = this.moves.get(a.windowS);
      if (!list) this.moves.set(a.windowS, (list = []));
      insertSorted(list, a, (x) => x.bps, true);
    }
    this.count++;
  }

  /** How many alerts wait on this pair. */
  size(): number {
    this.ensureLoaded();
    return this.count;
  }

  /**
   * Takes an alert in (idempotent by id). A level the last trade has already reached is refused:
   * an alert is about a price still to come.
   */
  add(input: AlertInput): AddAlertResult {
    this.ensureLoaded();
    if (this.store.one("SELECT 1 AS x FROM alerts WHERE id = ?", input.id)) return { ok: true };
    const last = this.market.last();
    if (last !== null && input.priceTicks !== undefined) {
      if ((input.kind === "above" && last >= input.priceTicks) || (input.kind === "below" && last <= input.priceTicks)) {
        return { ok: false, code: "alert_already", last: this.market.price(last) };
      }
    }
    const a: Active = {
      id: input.id,
      userId: input.userId,
      kind: input.kind,
      ticks: input.priceTicks ?? 0,
      bps: input.percentBps ?? 0,
      windowS: input.window ? ALERT_WINDOW_SECONDS[input.window] : 0,
      level: input.level ?? "",
      percent: input.percent ?? "",
    };
    this.store.sql.exec(
      "INSERT INTO alerts (id, user_id, kind, price_ticks, percent_bps, window_s, level, percent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      a.id,
      a.userId,
      a.kind,
      a.kind === "move" ? null : a.ticks,
      a.kind === "move" ? a.bps : null,
      a.kind === "move" ? a.windowS : null,
      a.level,
      a.percent,
    );
    this.keep(a);
    return { ok: true };
  }

  /** Forgets one of the user's alerts (the route has marked it deleted in D1); false when it was not here. */
  remove(id: number, userId: number): boolean {
    this.ensureLoaded();
    const r = this.store.one<{ x: number }>("SELECT 1 AS x FROM alerts WHERE id = ? AND user_id = ?", id, userId);
    if (!r) return false;
    this.store.sql.exec("DELETE FROM alerts WHERE id = ?", id);
    const drop = (list: Active[]) => {
      const i = list.findIndex((a) => a.id === id);
      if (i >= 0) {
        list.splice(i, 1);
        this.count--;
      }
    };
    drop(this.above);
    drop(this.below);
    for (const list of this.moves.values()) drop(list);
    return true;
  }

  /**
   * The hook of each spot transaction (inside its storage transaction, after its commands ran):
   * fires every alert the transaction's fills reached. Returns how many fired.
   */
  onCommit(published: AppliedResult[], now: number): number {
    if (this.loaded && this.count === 0) return 0;
    let hi = -Infinity;
    let lo = Infinity;
    for (const r of published) {
      for (const e of r.events) {
        if (e.type !== "fill") continue;
        if (e.price > hi) hi = e.price;
        if (e.price < lo) lo = e.price;
      }
    }
    if (hi === -Infinity) return 0;
    this.ensureLoaded();
    if (this.count === 0) return 0;
    const fired: { a: Active; price: number; from?: number }[] = [];
    while (this.above.length > 0 && this.above[this.above.length - 1]!.ticks <= hi) fired.push({ a: this.above.pop()!, price: hi });
    while (this.below.length > 0 && this.below[this.below.length - 1]!.ticks >= lo) fired.push({ a: this.below.pop()!, price: lo });
    for (const [windowS, list] of this.moves) {
      if (list.length === 0) continue;
      const ref = this.windowRef(windowS, now);
      if (ref === null || ref <= 0) continue;
      // The larger of the move up to the highest fill and down to the lowest, against the window's first price.
      const up = hi - ref;
      const down = ref - lo;
      const dev = Math.max(up, down);
      const price = up >= down ? hi : lo;
      while (list.length > 0 && list[list.length - 1]!.bps * ref <= dev * 10_000) fired.push({ a: list.pop()!, price, from: ref });
    }
    if (fired.length === 0) return 0;
    this.count -= fired.length;
    this.store.sql.exec("DELETE FROM alerts WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(fired.map((f) => f.a.id)));
    const entry: AlertEntry = {
      kind: "alert",
      at: now,
      alerts: fired.map(({ a, price, from }) => ({ id: a.id, userId: a.userId, price: this.market.price(price), notification: this.notification(a, price, from, now) })),
      notices: [...new Set(fired.map((f) => f.a.userId))].map((userId) => ({ userId, event: NOTIFICATION_EVENT })),
    };
    this.outbox.append(entry);
    return fired.length;
  }

  private windowRef(windowS: number, now: number): number | null {
    const minute = Math.floor(now / 60_000);
    const cached = this.refs.get(windowS);
    if (cached && cached.minute === minute && cached.price !== null) return cached.price;
    const price = this.market.windowOpen(windowS * 1000, now);
    this.refs.set(windowS, { minute, price });
    return price;
  }

  private notification(a: Active, price: number, from: number | undefined, now: number): NewNotification {
    const pair = this.market.symbol();
    const base = { userId: a.userId, key: `alert:${a.id}`, link: "/alerts", now };
    if (a.kind === "move") {
      const ref = from ?? price;
      // The move as a signed percent with two decimals, cut toward zero.
      const bps = Math.trunc(((price - ref) * 10_000) / ref);
      const sign = bps > 0 ? "+" : bps < 0 ? "-" : "";
      const abs = Math.abs(bps);
      const move = `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
      return { ...base, kind: "price_alert_move", params: { pair, price: this.market.price(price), from: this.market.price(ref), move, percent: a.percent, hours: a.windowS / 3600 } };
    }
    return { ...base, kind: a.kind === "above" ? "price_alert_above" : "price_alert_below", params: { pair, level: a.level, price: this.market.price(price) } };
  }
}

/**
 * The D1 side of fired alerts, for the drain batch (outbox.ts `alongEachBatch`): first each owner's
 * notification, only while the alert is still active in D1 (a deleted one notifies nobody), keyed
 * by the alert; then the rows become fired. A repeated batch changes nothing.
 */
export function alertStatements(db: D1Database, entries: readonly { kind: string }[]): D1PreparedStatement[] {
  const fired = (entries.filter((e) => e.kind === "alert") as AlertEntry[]).flatMap((e) => e.alerts.map((a) => ({ ...a, at: e.at })));
  if (fired.length === 0) return [];
  const rows = fired.map((f) => [f.notification.userId, f.notification.key, f.notification.kind, JSON.stringify(f.notification.params ?? {}), f.notification.link ?? "", f.at, f.id, f.price]);
  const json = JSON.stringify(rows);
  return [
    db
      .prepare(
        `INSERT INTO notifications (user_id, event_key, kind, params, link, created_at)
         SELECT v.value ->> 0, v.value ->> 1, v.value ->> 2, v.value ->> 3, v.value ->> 4, v.value ->> 5 FROM json_each(?) AS v
         WHERE EXISTS (SELECT 1 FROM price_alerts a WHERE a.id = v.value ->> 6 AND a.user_id = v.value ->> 0 AND a.status = 0)
         ON CONFLICT (user_id, event_key) DO NOTHING`,
      )
      .bind(json),
    db
      .prepare(
        `UPDATE price_alerts SET status = 1, fired_at = v.value ->> 5, fired_price = v.value ->> 7
         FROM json_each(?) AS v WHERE price_alerts.id = v.value ->> 6 AND price_alerts.status = 0`,
      )
      .bind(json),
  ];
}
