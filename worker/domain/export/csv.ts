/**
 * CSV exports of one's own money (issue #29): every ledger row (each balance change) with the
 * balance after it, and every spot trade. Dated in UTC, amounts as exact decimals of the currency's
 * scale (never through a JS number), RFC 4180 quoting, a header row, CRLF line ends, streamed a
 * page at a time so a long history never sits in memory whole.
 */
import { LEDGER_CSV_HEADER, TRADES_CSV_HEADER } from "../../../schemas/export.ts";
import { formatUnits } from "../../../schemas/money.ts";
import { TRADE_ROW_SQL, tradeFigures } from "../spot/history.ts";
import { freshSession, MOVEMENT_ROW_ID, movementKind, movementOf, type AccountReads } from "../wallet/object-reads.ts";
import { OBJECT_MOVEMENT_ROWS, refOf } from "../wallet/statement.ts";

const PAGE = 1000;
const DAY_MS = 24 * 3600 * 1000;

/** A UTC day range as [from, to) in ms; open ends are the beginning and the end of time. */
export function dayRange(q: { from?: string; to?: string }): { from: number; to: number } {
  return {
    from: q.from ? Date.parse(`${q.from}T00:00:00Z`) : 0,
    to: q.to ? Date.parse(`${q.to}T00:00:00Z`) + DAY_MS : Number.MAX_SAFE_INTEGER,
  };
}

/** One CSV field: quoted when it holds a comma, a quote, a line break or leading/trailing space. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

const csvLine = (fields: readonly string[]) => `${fields.map(csvField).join(",")}\r\n`;

/** "2026-11-29 10:04:05" in UTC: what spreadsheets read as a date and time. */
export function utcTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** A stream of the header, then pages of lines from `page(cursor)` until it answers none. */
function csvStream(header: readonly string[], page: (cursor: number) => Promise<{ lines: string[][]; cursor: number }>): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let cursor = 0;
  let started = false;
  return new ReadableStream({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(enc.encode(csvLine(header)));
        return;
      }
      const next = await page(cursor);
      if (next.lines.length === 0) return controller.close();
      cursor = next.cursor;
      controller.enqueue(enc.encode(next.lines.map(csvLine).join("")));
    },
  });
}

/**
 * Objects mode: D1's ledger rows (up to the cut-over) and then the account object's drained
 * movements, numbered after them (MOVEMENT_ROW_ID + seq), as one table with the ledger's columns.
 */
const OBJECTS_ROWS = `(SELECT id, user_id, created_at, account, currency_id, d_available, d_frozen, kind, movement_key FROM ledger
  UNION ALL SELECT ${MOVEMENT_ROW_ID} + id, user_id, created_at, account, currency_id, d_available, d_frozen, kind, movement_key FROM ${OBJECT_MOVEMENT_ROWS})`;

/** An object's movement as a ledger line: its movement's key (the ref without the op's index) and the kind read from it. */
function objectRow(r: LedgerRow): LedgerRow {
  const key = movementOf(r.movement_key);
  return { ...r, movement_key: key, kind: movementKind(key, (k) => refOf(k, "")).kind };
}

interface LedgerRow {
  id: number;
  created_at: number;
  account: string;
  currency_id: number;
  d_available: number;
  d_frozen: number;
  kind: string;
  movement_key: string;
}

/**
 * The ledger CSV of `userId` between two times: one line per ledger row, oldest first, with the
 * account's available and frozen balance after the row (running sums from the account's first row,
 * so a range that starts later still shows true balances).
 */
export async function ledgerCsv(d1: D1Database, userId: number, range: { from: number; to: number }, reads: AccountReads | null = null): Promise<ReadableStream<Uint8Array>> {
  // Objects mode: everything the user's object did is drained first, and read from a D1 session that has it.
  const db = reads ? await freshSession(d1, userId, await reads.drained(userId)) : d1;
  const rows = reads ? OBJECTS_ROWS : "ledger";
  const [currencies, before] = await db.batch<Record<string, number | string>>([
    db.prepare("SELECT id, name, scale FROM currencies"),
    db.prepare(`SELECT currency_id, account, SUM(d_available) AS a, SUM(d_frozen) AS f FROM ${rows} WHERE user_id = ? AND created_at < ? GROUP BY currency_id, account`).bind(userId, range.from),
  ]);
  const currency = new Map((currencies?.results ?? []).map((c) => [Number(c.id), { name: String(c.name), scale: Number(c.scale) }]));
  const sums = new Map<string, { a: bigint; f: bigint }>();
  for (const r of before?.results ?? []) sums.set(`${r.currency_id}:${r.account}`, { a: BigInt(r.a as number), f: BigInt(r.f as number) });
  return csvStream(LEDGER_CSV_HEADER, async (cursor) => {
    const { results } = await db
      .prepare(
        `SELECT id, created_at, account, currency_id, d_available, d_frozen, kind, movement_key FROM ${rows}
         WHERE user_id = ? AND id > ? AND created_at >= ? AND created_at < ? ORDER BY id LIMIT ?`,
      )
      .bind(userId, cursor, range.from, range.to, PAGE)
      .all<LedgerRow>();
    const lines = results.map((row) => {
      const r = row.id > MOVEMENT_ROW_ID ? objectRow(row) : row;
      const c = currency.get(r.currency_id) ?? { name: String(r.currency_id), scale: 8 };
      const key = `${r.currency_id}:${r.account}`;
      const s = sums.get(key) ?? { a: 0n, f: 0n };
      const da = BigInt(r.d_available);
      const df = BigInt(r.d_frozen);
      s.a += da;
      s.f += df;
      sums.set(key, s);
      return [utcTime(r.created_at), r.account, c.name, formatUnits(da, c.scale), formatUnits(df, c.scale), formatUnits(s.a, c.scale), formatUnits(s.f, c.scale), r.kind, r.movement_key];
    });
    return { lines, cursor: results.at(-1)?.id ?? cursor };
  });
}

/** The spot trades CSV of `userId` between two times, oldest first. */
export async function tradesCsv(db: D1Database, userId: number, range: { from: number; to: number }): Promise<ReadableStream<Uint8Array>> {
  // Paged by (created_at, pair, trade id): trade ids are per pair.
  let after = { at: -1, pair: 0, trade: 0 };
  return csvStream(TRADES_CSV_HEADER, async () => {
    const { results } = await db
      .prepare(
        `${TRADE_ROW_SQL}
         WHERE (t.buyer_id = ?1 OR t.seller_id = ?1) AND t.created_at >= ?2 AND t.created_at < ?3
           AND (t.created_at, t.pair_id, t.trade_id) > (?4, ?5, ?6)
         ORDER BY t.created_at, t.pair_id, t.trade_id LIMIT ?7`,
      )
      .bind(userId, range.from, range.to, after.at, after.pair, after.trade, PAGE)
      .all<Record<string, number | string>>();
    const lines = results.map((r) => {
      const t = tradeFigures(r, userId);
      const side = t.buy ? "buy" : "sell";
      return [
        utcTime(Number(r.created_at)),
        `${r.base}/${r.quote}`,
        side,
        r.taker_side === side ? "taker" : "maker",
        t.price,
        t.number,
        t.amount,
        t.fee,
        t.fee_currency,
        String(t.buy ? r.buy_order_id : r.sell_order_id),
        `${r.pair_id}-${r.trade_id}`,
      ];
    });
    const last = results.at(-1);
    if (last) after = { at: Number(last.created_at), pair: Number(last.pair_id), trade: Number(last.trade_id) };
    return { lines, cursor: 0 };
  });
}
