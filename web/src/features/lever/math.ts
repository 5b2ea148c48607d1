/**
 * What the form shows before confirming: margin = price × lots × lot size / leverage and the open
 * fee = value × fee %, both rounded UP to 8 decimals as the server charges them
 * (durable/engine/margin.ts). Decimal strings in, decimal strings out; bigint in between.
 */
import { formatUnits, parseUnits } from "../../../../schemas/money.ts";

const SCALE = 8;
const E8 = 10n ** 8n;

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** Margin and fee in USDT for an order, or null while an input is missing or invalid. */
export function preview(price: string, lots: string, lotSize: string, leverage: number, feePercent: string): { margin: string; fee: string; value: string } | null {
  const p = parseUnits(price, SCALE);
  const s = parseUnits(lotSize, SCALE);
  const fee = parseUnits(feePercent, 2); // percent with 2 decimals = basis points
  if (!/^\d{1,7}$/.test(lots) || p === null || s === null || fee === null || p <= 0n || leverage < 1) return null;
  const n = BigInt(lots);
  if (n <= 0n) return null;
  const value16 = p * s * n; // 16 decimals
  return {
    value: formatUnits(ceilDiv(value16, E8), SCALE),
    margin: formatUnits(ceilDiv(value16, E8 * BigInt(leverage)), SCALE),
    fee: formatUnits(ceilDiv(value16 * fee, E8 * 10_000n), SCALE),
  };
}
