/**
 * The terms a contract is submitted on (its pair, its duration option, its payable currency),
 * remembered per isolate so a submit does not read three D1 rows before its freeze batch (issue
 * #17 §2: contracts/s through the API). A remembered term is never trusted on its own:
 *
 * - the contract's row in the freeze batch takes its `pair_id` from `TERMS_GUARD`, a scalar
 *   subquery that finds the pair open, the option offered and the currency payable with exactly
 *   the values the submit was priced on (ratio, fee, bounds, exposure limits). If any of them
 *   changed, the subquery is NULL, the NOT NULL column fails and with it the whole batch: nothing
 *   is held, and the submit is priced again from terms read in D1 now;
 * - a refusal priced on remembered terms (a bound, the balance, the house, the pair's exposure) is
 *   never answered as such: the submit is priced again from D1 first, and only that answer counts.
 *
 * So every contract is held on, and every answer given from, terms D1 holds at the time of its
 * batch; the cache's lifetime only bounds memory and how long a stale entry costs one failed batch.
 */
import { ApiError } from "../../lib/errors.ts";
import { pairById, type PairRow } from "../spot/pairs.ts";
import { offeredOption, payableWithRaw, type OptionRow, type PayableRow, type RawPayable } from "./config.ts";
import { isolateMap } from "../../lib/caches.ts";

export const TERMS_CACHE_MS = 60_000;
const MAX_ENTRIES = 1_000;

interface Entry<T> {
  at: number;
  value: T;
}

const pairs = isolateMap<number, Entry<PairRow>>();
const options = isolateMap<number, Entry<OptionRow>>();
const currencies = isolateMap<number, Entry<{ row: PayableRow; raw: RawPayable }>>();

export interface Terms {
  pair: PairRow;
  option: OptionRow;
  cur: PayableRow;
  raw: RawPayable;
  /** true when any of it came from the isolate's memory rather than from D1 in this request */
  remembered: boolean;
}

function recall<K, T>(m: Map<K, Entry<T>>, key: K, now: number): T | null {
  const e = m.get(key);
  if (!e) return null;
  if (now - e.at > TERMS_CACHE_MS) {
    m.delete(key);
    return null;
  }
  return e.value;
}

function remember<K, T>(m: Map<K, Entry<T>>, key: K, value: T, now: number): void {
  m.delete(key);
  m.set(key, { at: now, value });
  if (m.size > MAX_ENTRIES) m.delete(m.keys().next().value!);
}

/** Forgets every remembered term (a batch found one changed, or a refusal is to be answered). */
export function forgetTerms(): void {
  pairs.clear();
  options.clear();
  currencies.clear();
}

/**
 * The terms of a submit: remembered ones unless `fresh`, else read in D1 (and remembered: only
 * terms that allow a contract are). Throws what the reads throw: pair_closed,
 * seconds_unavailable, currency_unsupported (always from D1: refusals are never remembered). Sets
 * `seen.remembered` as soon as a remembered term is used (so a caller knows an error came after one).
 */
export async function termsOf(
  db: D1Database,
  input: { match_id: number; seconds: number; currency_id: number },
  fresh: boolean,
  now = Date.now(),
  seen: { remembered: boolean } = { remembered: false },
): Promise<Terms> {
  let pair = fresh ? null : recall(pairs, input.match_id, now);
  if (pair) seen.remembered = true;
  else {
    pair = await pairById(db, input.match_id);
    if (!pair || !pair.open) throw new ApiError("pair_closed");
    remember(pairs, pair.id, pair, now);
  }
  let option = fresh ? null : recall(options, input.seconds, now);
  if (option) seen.remembered = true;
  else {
    option = await offeredOption(db, input.seconds);
    remember(options, option.seconds, option, now);
  }
  let cur = fresh ? null : recall(currencies, input.currency_id, now);
  if (cur) seen.remembered = true;
  else {
    cur = await payableWithRaw(db, input.currency_id);
    remember(currencies, cur.row.currencyId, cur, now);
  }
  return { pair, option, cur: cur.row, raw: cur.raw, remembered: seen.remembered };
}

/**
 * The pair id if the pair is open, the option offered and the currency payable on exactly these
 * terms, else NULL (for the contract row's NOT NULL `pair_id`). Binds, in order: see `guardBinds`.
 */
export const TERMS_GUARD = `(SELECT p.id FROM pairs p, seconds_options o, micro_currencies m
  WHERE p.id = ? AND p.open = 1 AND o.seconds = ? AND o.status = 1 AND o.profit_ratio_bps = ?
    AND m.currency_id = ? AND m.status = 1 AND m.fee_bps = ? AND m.min_number = ? AND m.max_number = ? AND m.pair_exposure = ? AND m.user_exposure = ?)`;

export const guardBinds = (t: Terms) => [t.pair.id, t.option.seconds, t.option.ratioBps, t.cur.currencyId, t.raw.feeBps, t.raw.min, t.raw.max, t.raw.pairExposure, t.raw.userExposure];

/** The batch failed on `TERMS_GUARD`: a remembered term changed. */
export const isStaleTerms = (err: unknown) => /NOT NULL constraint failed: micro_orders\.pair_id/.test(String(err));
