/**
 * Coin names the markets search also matches (issue #30): "bit" finds BTC and BCH, "doge" finds
 * DOGE. The symbol always matches; a coin missing here is found by its symbol only.
 */
const NAMES: Record<string, string> = {
  BTC: "Bitcoin",
  ETH: "Ethereum",
  DOGE: "Dogecoin",
  LTC: "Litecoin",
  XRP: "XRP Ripple",
  BCH: "Bitcoin Cash",
  USDT: "Tether",
};

/** Whether a coin (by its symbol) matches what the user typed, ignoring case and spaces around it. */
export function coinMatches(symbol: string, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (q === "") return true;
  return symbol.toLowerCase().includes(q) || (NAMES[symbol.toUpperCase()] ?? "").toLowerCase().includes(q);
}
