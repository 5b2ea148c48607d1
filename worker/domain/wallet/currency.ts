/**
 * Currencies as the wallet sees them, amount parsing at a currency's scale (schemas/wallet.ts rule
 * turned into ApiErrors), and the record time format of the spec (Asia/Shanghai, like the charts).
 */
import { checkAmount } from "../../../schemas/wallet.ts";
import { ApiError } from "../../lib/errors.ts";

export interface Currency {
  id: number;
  name: string;
  scale: number;
  isLegal: boolean;
  show: boolean;
}

type CurrencyRow = { id: number; name: string; scale: number; is_legal: number; show: number };
const toCurrency = (r: CurrencyRow): Currency => ({ id: r.id, name: r.name, scale: r.scale, isLegal: r.is_legal === 1, show: r.show === 1 });

/** One currency, or currency_unsupported. */
export async function getCurrency(db: D1Database, id: number): Promise<Currency> {
  const r = await db.prepare("SELECT id, name, scale, is_legal, show FROM currencies WHERE id = ?").bind(id).first<CurrencyRow>();
  if (!r) throw new ApiError("currency_unsupported", 400);
  return toCurrency(r);
}

/** Every currency (or only those flagged show), in display order. */
export async function listCurrencies(db: D1Database, onlyShown = false): Promise<Currency[]> {
  const { results } = await db
    .prepare(`SELECT id, name, scale, is_legal, show FROM currencies ${onlyShown ? "WHERE show = 1" : ""} ORDER BY sort, id`)
    .all<CurrencyRow>();
  return results.map(toCurrency);
}

/** Parses a positive amount at `scale` or throws the translated money error. */
export function amountOrThrow(value: string, scale: number, opts: { signed?: boolean } = {}): bigint {
  const r = checkAmount(value, scale, opts);
  if (!r.ok) throw new ApiError(r.key, 400, r.params);
  return r.units;
}

/** D1 reads INTEGER columns as JS numbers; amounts are kept below 2^53, so this is exact. */
export const big = (v: number | string | bigint | null | undefined): bigint => BigInt(v ?? 0);

/** "YYYY-MM-DD HH:mm:ss" in Beijing time: the one display-time formatter, worker/lib/time.ts. */
export { formatShanghai as timeFormat } from "../../lib/time.ts";

/** Reads a settings row, or the default. */
export async function setting(db: D1Database, key: string, fallback: string): Promise<string> {
  const r = await db.prepare("SELECT value FROM settings WHERE key = ?").bind(key).first<{ value: string }>();
  return r?.value ?? fallback;
}

/** Reads several settings rows at once. */
export async function settings(db: D1Database, defaults: Record<string, string>): Promise<Record<string, string>> {
  const keys = Object.keys(defaults);
  const { results } = await db
    .prepare(`SELECT key, value FROM settings WHERE key IN (${keys.map(() => "?").join(",")})`)
    .bind(...keys)
    .all<{ key: string; value: string }>();
  const out = { ...defaults };
  for (const r of results) out[r.key] = r.value;
  return out;
}
