/**
 * The user's statement and holds (issue #26; schemas/statement.ts).
 *
 * Statement: the user's ledger rows (worker/lib/ledger.ts: every balance change is one), newest
 * first, one line per movement, currency and account. Lines follow the order the ledger applied
 * them (row id), which is the order balances changed; `time` is the movement's own time. The
 * balance after a line is today's balance less every later row of that currency and account, read
 * in one D1 transaction with the balance, so a page is exact however many movements land meanwhile.
 *
 * Holds: every open record that keeps some of the user's money frozen, from the same hold sources
 * the reconciler checks the books with (worker/domain/ledger/holds.ts), so the list sums to the
 * frozen balance whenever the books are right; a difference is listed as `unexplained`, never hidden.
 *
 * In objects mode (`reads`: object-reads.ts) the statement is the same page over the account
 * objects' read model (`account_movements`, `account_balances`), read after the user's object has
 * drained, so a user's own latest movement is always on it; the holds are the object's open holds.
 */
import { formatUnits } from "../../../schemas/money.ts";
import type { AccountName } from "../../../schemas/products.ts";
import type { HoldGroup, HoldItem, StatementLine, StatementPage, StatementQuery, StatementRef } from "../../../schemas/statement.ts";
import { holdSourcesOf } from "../products.ts";
import type { HoldSource, UserHold } from "../ledger/holds.ts";
import { listCurrencies } from "./currency.ts";
import { rememberedPairById } from "../spot/pairs.ts";
import type { AccountHold } from "../../../durable/account/types.ts";
import { freshSession, holdOf, movementKind, movementOf, type AccountReads, type D1Reader } from "./object-reads.ts";
import { SECONDS_HOLD } from "../../../durable/pair/desks/seconds-objects.ts";
import { LEVER_HOLD } from "../../../durable/pair/desks/lever-objects.ts";

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Milliseconds of a query bound: a plain date is that UTC day's start (`from`) or its last millisecond (`to`). */
export function boundMs(text: string, end: boolean): number | null {
  const ms = Date.parse(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(ms)) return null;
  return DATE_ONLY.test(text) && end ? ms + DAY_MS - 1 : ms;
}

const int = (s: string | undefined): number | null => (s !== undefined && /^\d{1,15}$/.test(s) ? Number(s) : null);

/**
 * The record a movement belongs to, read from its key (each product keys its movements by its
 * record: worker/lib/ledger.ts callers) or, where the key carries none, its memo.
 */
export function refOf(key: string, memo: string): StatementRef {
  const p = key.split(":");
  switch (p[0]) {
    case "deposit":
      return { type: "deposit", id: int(p[1]) };
    case "withdrawal-freeze":
      // withdrawal-freeze:{id}; keys written before the id was in them (…:{user}:{uuid}) name no record.
      return { type: "withdrawal", id: p.length === 2 ? int(p[1]) : null };
    case "withdrawal-final":
    case "withdraw-internal":
      return { type: "withdrawal", id: int(p[1]) };
    case "transfer":
      return { type: "transfer", id: null };
    case "conversion":
      return { type: "conversion", id: null };
    case "spot-freeze":
    case "spot-orphan":
      return { type: "spot_order", id: int(p[1]) };
    case "spot":
      return { type: "spot_pair", id: int(p[1]) };
    case "micro":
      return { type: "seconds", id: int(p[1]) };
    case "lever":
      return { type: "lever", id: int(p[1]) };
    case "c2c":
      if (p[1] === "advert") return { type: "c2c_advert", id: int(p[2]) };
      if (p[1] === "merchant") return { type: "c2c_merchant", id: int(p[2]) };
      return { type: "c2c_order", id: int(p[1]) };
    case "vote":
      return { type: "vote", id: int(p[2]) };
    case "launch":
      return { type: "launch", id: int(/^launch (\d+)/.exec(memo)?.[1]) };
    case "earn":
      return { type: "earn", id: int(p[1]) };
    case "insurance":
      return { type: "insurance", id: int(p[1]) };
    case "mining":
      return { type: "mining", id: p[2] === "buy" ? int(p[1]) : null };
    case "invite-rebate":
      return { type: "invite", id: null };
    case "adjustment":
      return { type: "adjustment", id: int(p[1]) };
    default:
      return { type: "other", id: null };
  }
}

interface Row {
  id: number;
  movement_key: string;
  currency_id: number;
  account: AccountName;
  da: string;
  df: string;
  kind: string;
  memo: string;
  created_at: number;
}

interface Line {
  key: string;
  kind: string;
  memo: string;
  currencyId: number;
  account: AccountName;
  amount: bigint;
  held: bigint;
  topId: number;
  at: number;
}

/** Where a statement's rows come from: D1's ledger, or the account objects' read model (objects mode). */
interface Source {
  /** a table (or subquery) with the ledger's columns: id, movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at */
  rows: string;
  /** a table with `balances`' columns: user_id, currency_id, account, available, frozen */
  balances: string;
  /** a fetched row as a line reads it: its movement's key and its kind */
  row(r: Row): Row;
  ref(key: string, memo: string): StatementRef;
  /** two movements next to each other that read as one line */
  joins?(newer: string, older: string): boolean;
}

const LEDGER: Source = { rows: "ledger", balances: "balances", row: (r) => r, ref: refOf };

/** The objects' movements: `seq` orders them per user, a row's movement is its ref without the op's index. */
/**
 * The objects' drained movements with the ledger's columns (`id` is the object's seq, `kind` and
 * `memo` empty: the kind is read from the key). Without the migration's opening (its credits and the
 * holds it re-made, written in its one transaction: same time, first in the object): the ledger's
 * lines before it tell that history. `IS`, not `=`: an account opened after the cut-over (a user who
 * signed up since) has no opening, the subquery is NULL, and `=` would make the whole condition NULL
 * and drop every reservation of theirs (their freezes missing from the statement and the CSV).
 */
export const OBJECT_MOVEMENT_ROWS = `(SELECT seq AS id, ref AS movement_key, user_id, currency_id, account, d_available, d_frozen, '' AS kind, '' AS memo, created_at FROM account_movements m
          WHERE NOT (ref LIKE 'migrate:opening#%' OR (ref LIKE '%:reserve' AND created_at IS (
            SELECT o.created_at FROM account_movements o WHERE o.user_id = m.user_id AND o.ref LIKE 'migrate:opening#%' ORDER BY o.seq LIMIT 1))))`;

const MOVEMENTS: Source = {
  rows: OBJECT_MOVEMENT_ROWS,
  balances: "account_balances",
  row: (r) => {
    const key = movementOf(r.movement_key);
    return { ...r, movement_key: key, kind: movementKind(key, (k) => refOf(k, "")).kind };
  },
  ref: (key) => movementKind(key, (k) => refOf(k, "")).ref,
  joins: oneLineWith,
};

/**
 * Objects mode: a movement that spends a hold the Worker made just before it reads as one line
 * with that hold, as D1 books the two as one movement: the open fee a pair takes from a seconds
 * contract's or a position's hold (`seconds:{id}:open:…` after `seconds:{id}:reserve`,
 * `lever:{id}:open:…` after `lever_margin:{id}:reserve`: the stake or margin held, the fee spent),
 * and an in-site withdrawal's spend of its hold (`withdrawal:{id}:in_site` after
 * `withdrawal:{id}:reserve`: the amount gone). Only when nothing of the user's came between them;
 * otherwise they stay two lines.
 */
const SPENDS_HOLD: readonly [RegExp, (id: string) => string][] = [
  [/^seconds:(\d+):open:/, (id) => `${SECONDS_HOLD}:${id}:reserve`],
  [/^lever:(\d+):open:/, (id) => `${LEVER_HOLD}:${id}:reserve`],
  [/^withdrawal:(\d+):in_site$/, (id) => `withdrawal:${id}:reserve`],
];
export function oneLineWith(newer: string, older: string): boolean {
  for (const [spend, hold] of SPENDS_HOLD) {
    const m = spend.exec(newer);
    if (m) return older === hold(m[1]!);
  }
  return false;
}

/**
 * Rows of one movement are written in one statement, so a user's rows of one movement are
 * adjacent; `joins(newer, older)` says when two movements next to each other read as one.
 */
function movementsOf(rows: Row[], joins?: (newer: string, older: string) => boolean): Row[][] {
  const out: Row[][] = [];
  for (const r of rows) {
    const last = out[out.length - 1];
    if (last && (last[last.length - 1]!.movement_key === r.movement_key || joins?.(last[0]!.movement_key, r.movement_key) === true)) last.push(r);
    else out.push([r]);
  }
  return out;
}

/** One movement's rows (newest first) as lines per currency and account. */
function linesOf(rows: Row[]): Line[] {
  const lines = new Map<string, Line>();
  for (const r of rows) {
    const k = `${r.currency_id}|${r.account}`;
    let line = lines.get(k);
    if (!line) {
      line = { key: r.movement_key, kind: r.kind, memo: r.memo, currencyId: r.currency_id, account: r.account, amount: 0n, held: 0n, topId: r.id, at: r.created_at };
      lines.set(k, line);
    }
    line.amount += BigInt(r.da) + BigInt(r.df);
    line.held += BigInt(r.df);
  }
  return [...lines.values()];
}

/**
 * Objects mode: cursors at or past this one page through D1's ledger (`id < cursor - LEDGER_CURSOR`),
 * below every movement of the object; LEDGER_START starts it. Ids and seqs stay below 10^15.
 */
const LEDGER_CURSOR = 1_000_000_000_000_000;
const LEDGER_START = 2 * LEDGER_CURSOR - 1;

const ledgerNext = (page: StatementPage): string | null => (page.next === null ? null : String(LEDGER_CURSOR + Number(page.next)));

/**
 * One page of the user's statement, newest first.
 *
 * In objects mode: first the object's movements (the read model), then D1's ledger, the record up
 * to the cut-over (its last lines end at the balances the migration opened the object with). The
 * user's object drains first (one call; a D1 batch only when something waits), and the page is
 * read on a D1 session that has everything the object drained (freshSession): the user's own
 * latest movement is on it, however far behind the background drain or a replica is.
 */
export async function statement(db: D1Database, userId: number, q: StatementQuery, reads: AccountReads | null = null): Promise<StatementPage> {
  if (!reads) return statementOf(db, LEDGER, userId, q);
  const cursor = q.cursor === undefined ? null : Number(q.cursor);
  if (cursor !== null && cursor >= LEDGER_CURSOR) {
    const rest = await statementOf(db, LEDGER, userId, { ...q, cursor: cursor >= LEDGER_START ? undefined : String(cursor - LEDGER_CURSOR) });
    return { lines: rest.lines, next: ledgerNext(rest) };
  }
  const drainedSeq = await reads.drained(userId);
  const page = await statementOf(await freshSession(reads.db, userId, drainedSeq), MOVEMENTS, userId, q);
  if (page.next !== null) return page;
  if (page.lines.length >= q.limit) {
    const older = await db.prepare("SELECT 1 AS x FROM ledger WHERE user_id = ? LIMIT 1").bind(userId).first();
    return { lines: page.lines, next: older ? String(LEDGER_START) : null };
  }
  const rest = await statementOf(db, LEDGER, userId, { ...q, cursor: undefined, limit: q.limit - page.lines.length });
  return { lines: [...page.lines, ...rest.lines], next: ledgerNext(rest) };
}

async function statementOf(db: D1Reader, src: Source, userId: number, q: StatementQuery): Promise<StatementPage> {
  const where = ["user_id = ?"];
  const binds: (number | string)[] = [userId];
  const scope: string[] = [];
  const scopeBinds: (number | string)[] = [];
  if (q.currency_id !== undefined) {
    scope.push("currency_id = ?");
    scopeBinds.push(q.currency_id);
  }
  if (q.account !== undefined) {
    scope.push("account = ?");
    scopeBinds.push(q.account);
  }
  where.push(...scope);
  binds.push(...scopeBinds);
  const from = q.from ? boundMs(q.from, false) : null;
  const to = q.to ? boundMs(q.to, true) : null;
  if (from !== null) {
    where.push("created_at >= ?");
    binds.push(from);
  }
  if (to !== null) {
    where.push("created_at <= ?");
    binds.push(to);
  }
  if (q.cursor) {
    where.push("id < ?");
    binds.push(Number(q.cursor));
  }
  // A few rows more than lines: a movement of several rows may end the page; it is left whole for the next.
  const fetch = q.limit * 2 + 8;
  const { results } = await db
    .prepare(
      `SELECT id, movement_key, currency_id, account, CAST(d_available AS TEXT) AS da, CAST(d_frozen AS TEXT) AS df, kind, memo, created_at
         FROM ${src.rows} WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`,
    )
    .bind(...binds, fetch)
    .all<Row>();
  const rows = results.map(src.row);
  const movements = movementsOf(rows, src.joins);
  const full = rows.length === fetch;
  // The last movement of a full read may go on past it: the next page starts with it.
  if (full && movements.length > 1) movements.pop();
  const lines: Line[] = [];
  let kept = 0;
  for (const m of movements) {
    if (lines.length >= q.limit) break;
    lines.push(...linesOf(m));
    kept += 1;
  }
  if (lines.length === 0) return { lines: [], next: null };
  const lastKept = movements[kept - 1]!;
  const bottom = lastKept[lastKept.length - 1]!.id;
  const top = rows[0]!.id;
  const more = full || kept < movements.length;

  // Balances now, every later row's sum, and the rows of the page's span (all of them: rows the
  // time filter leaves out still changed the balance), in one transaction.
  const scoped = scope.length > 0 ? ` AND ${scope.join(" AND ")}` : "";
  const [now, later, span, names] = await db.batch([
    db.prepare(`SELECT currency_id, account, CAST(available + frozen AS TEXT) AS t, CAST(frozen AS TEXT) AS f FROM ${src.balances} WHERE user_id = ?${scoped}`).bind(userId, ...scopeBinds),
    db
      .prepare(
        `SELECT currency_id, account, CAST(SUM(d_available + d_frozen) AS TEXT) AS t, CAST(SUM(d_frozen) AS TEXT) AS f FROM ${src.rows}
          WHERE user_id = ? AND id > ?${scoped} GROUP BY currency_id, account`,
      )
      .bind(userId, top, ...scopeBinds),
    db
      .prepare(`SELECT id, currency_id, account, CAST(d_available + d_frozen AS TEXT) AS t, CAST(d_frozen AS TEXT) AS f FROM ${src.rows} WHERE user_id = ? AND id BETWEEN ? AND ?${scoped} ORDER BY id DESC`)
      .bind(userId, bottom, top, ...scopeBinds),
    db.prepare(`SELECT id, name, scale FROM currencies WHERE id IN (SELECT value FROM json_each(?))`).bind(JSON.stringify([...new Set(lines.map((l) => l.currencyId))])),
  ]);
  type Sum = { currency_id: number; account: string; t: string; f: string };
  const running = new Map<string, [bigint, bigint]>();
  for (const r of (now!.results ?? []) as Sum[]) running.set(`${r.currency_id}|${r.account}`, [BigInt(r.t), BigInt(r.f)]);
  for (const r of (later!.results ?? []) as Sum[]) {
    const k = `${r.currency_id}|${r.account}`;
    const [t, f] = running.get(k) ?? [0n, 0n];
    running.set(k, [t - BigInt(r.t), f - BigInt(r.f)]);
  }
  // Walk down from the top: a line's "after" is the running balance when its newest row is reached.
  const lineAt = new Map<string, Line>(lines.map((l) => [`${l.topId}|${l.currencyId}|${l.account}`, l]));
  const after = new Map<Line, [bigint, bigint]>();
  for (const r of (span!.results ?? []) as (Sum & { id: number })[]) {
    const k = `${r.currency_id}|${r.account}`;
    const cur = running.get(k) ?? [0n, 0n];
    const line = lineAt.get(`${r.id}|${k}`);
    if (line) after.set(line, cur);
    running.set(k, [cur[0] - BigInt(r.t), cur[1] - BigInt(r.f)]);
  }
  const coins = new Map(((names!.results ?? []) as { id: number; name: string; scale: number }[]).map((c) => [c.id, c]));
  const out: StatementLine[] = lines.map((l) => {
    const coin = coins.get(l.currencyId) ?? { name: String(l.currencyId), scale: 8 };
    const [t, f] = after.get(l) ?? [0n, 0n];
    return {
      id: `${l.key}|${l.currencyId}|${l.account}`,
      kind: l.kind,
      currency_id: l.currencyId,
      currency: coin.name,
      account: l.account,
      amount: formatUnits(l.amount, coin.scale),
      held: formatUnits(l.held, coin.scale),
      balance_after: formatUnits(t, coin.scale),
      held_after: formatUnits(f, coin.scale),
      time: new Date(l.at).toISOString(),
      ref: src.ref(l.key, l.memo),
    };
  });
  return { lines: out, next: more ? String(bottom) : null };
}

/** Every open hold of the user's money, per currency and account, each group summing to its frozen balance. */
export async function userHolds(db: D1Database, userId: number, sources: HoldSource[] = holdSourcesOf(), reads: AccountReads | null = null): Promise<HoldGroup[]> {
  if (reads) return objectHolds(db, userId, sources, reads);
  const [frozenRows, held] = await Promise.all([
    db
      .prepare(
        `SELECT b.currency_id, b.account, CAST(b.frozen AS TEXT) AS f, c.name, c.scale FROM balances b JOIN currencies c ON c.id = b.currency_id
          WHERE b.user_id = ? AND b.frozen != 0 ORDER BY c.sort, c.id, b.account`,
      )
      .bind(userId)
      .all<{ currency_id: number; account: AccountName; f: string; name: string; scale: number }>(),
    Promise.all(sources.map((s) => (s.forUser ? s.forUser(db, userId) : Promise.resolve([])))).then((lists) => lists.flat()),
  ]);
  const groups: HoldGroup[] = [];
  for (const b of frozenRows.results) {
    const mine = held.filter((h) => h.currencyId === b.currency_id && h.account === b.account && h.units !== 0n);
    const items: HoldItem[] = mine.map((h) => ({ purpose: h.purpose, amount: formatUnits(h.units, b.scale), ref: h.ref, label: h.label, ...termOf(h) }));
    const rest = BigInt(b.f) - mine.reduce((s, h) => s + h.units, 0n);
    if (rest !== 0n) items.push({ purpose: "unexplained", amount: formatUnits(rest, b.scale), ref: { type: "other", id: null }, label: "" });
    groups.push({ currency_id: b.currency_id, currency: b.name, account: b.account, frozen: formatUnits(BigInt(b.f), b.scale), holds: items });
  }
  return groups;
}

/** A savings hold's term, as the answer carries it (absent for every other hold). */
const termOf = (h: { termDays?: number }): { term_days?: number } => (h.termDays === undefined ? {} : { term_days: h.termDays });

/**
 * The names (`BASE/QUOTE`) of the pairs owning these holds, by owner (`pair:{id}`: the pair the
 * order was placed on, recorded with the hold by the placement itself): a pair's
 * identity, remembered per isolate (`rememberedPairById` with `identity`), so a screen read asks D1
 * once per pair an isolate has not seen.
 */
async function pairLabels(db: D1Database, holds: readonly AccountHold[]): Promise<Map<string, string>> {
  const owners = [...new Set(holds.flatMap((h) => (h.owner && /^pair:[0-9]{1,9}$/.test(h.owner) ? [h.owner] : [])))];
  const rows = await Promise.all(owners.map((o) => rememberedPairById(db, Number(o.slice("pair:".length)), Date.now(), true)));
  return new Map(owners.flatMap((o, i) => (rows[i] ? [[o, `${rows[i].base}/${rows[i].quote}`] as const] : [])));
}

/**
 * Objects mode: the account object's frozen balances and open holds, exactly. Each hold is named
 * by its record (`spot_order:{id}`, `seconds:{id}`, …: object-reads.ts holdOf); its amount is what
 * it still holds. The records' short names (a pair, a round's title) come from the same hold sources
 * as in D1 mode, matched by purpose and record; a spot order whose row has not reached D1 yet (it
 * comes with the pair's drain) is named by the pair that owns its hold. A hold that no product
 * names (the migration's `migrated:…`) and any frozen rest no hold explains are `unexplained`.
 */
async function objectHolds(db: D1Database, userId: number, sources: HoldSource[], reads: AccountReads): Promise<HoldGroup[]> {
  const [balances, holds, currencies, named] = await Promise.all([
    reads.balances(userId),
    reads.openHolds(userId),
    listCurrencies(db),
    Promise.all(sources.map((s) => (s.forUser ? s.forUser(db, userId) : Promise.resolve([] as UserHold[])))).then((lists) => lists.flat()),
  ]);
  const names = new Map(named.map((h) => [`${h.purpose}|${h.ref.type}|${h.ref.id}`, h]));
  const pairNames = await pairLabels(db, holds.filter((h) => holdOf(h.forKind, h.forId).purpose === "spot_order"));
  const order = new Map(currencies.map((c, i) => [c.id, i]));
  const frozen = balances
    .filter((b) => b.frozen !== 0n)
    .sort((a, b) => (order.get(a.currencyId) ?? 1e9) - (order.get(b.currencyId) ?? 1e9) || a.currencyId - b.currencyId || a.account.localeCompare(b.account));
  const coins = new Map(currencies.map((c) => [c.id, c]));
  return frozen.map((b): HoldGroup => {
    const coin = coins.get(b.currencyId) ?? { name: String(b.currencyId), scale: 8 };
    const mine = holds.filter((h) => h.account === b.account && h.currencyId === b.currencyId);
    let rest = b.frozen;
    const sums: { purpose: HoldItem["purpose"]; units: bigint; ref: HoldItem["ref"]; label: string; termDays?: number }[] = [];
    for (const h of mine) {
      const left = h.amount - h.spent - h.released;
      if (left === 0n) continue;
      rest -= left;
      const { purpose, ref } = holdOf(h.forKind, h.forId);
      // A launch subscription's commits are one hold each in the object: one line per subscription, as D1's screen shows it.
      const same = purpose === "launch" ? sums.findIndex((x) => x.purpose === purpose && x.ref.id === ref.id) : -1;
      if (same >= 0) sums[same]!.units += left;
      else {
        const record = names.get(`${purpose}|${ref.type}|${ref.id}`);
        // A spot order's row reaches D1 with its pair's drain: until then its pair, the hold's owner, names it.
        const label = record?.label || (purpose === "spot_order" ? (pairNames.get(h.owner ?? "") ?? "") : "");
        sums.push({ purpose, units: left, ref, label, ...(record?.termDays === undefined ? {} : { termDays: record.termDays }) });
      }
    }
    const items: HoldItem[] = sums.map((x) => ({ purpose: x.purpose, amount: formatUnits(x.units, coin.scale), ref: x.ref, label: x.label, ...termOf(x) }));
    if (rest !== 0n) items.push({ purpose: "unexplained", amount: formatUnits(rest, coin.scale), ref: { type: "other", id: null }, label: "" });
    return { currency_id: b.currencyId, currency: coin.name, account: b.account as AccountName, frozen: formatUnits(b.frozen, coin.scale), holds: items };
  });
}
