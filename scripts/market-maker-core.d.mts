// Types for scripts/market-maker-core.mjs (plain JS so that `node scripts/market-maker.mjs` runs
// without a build step), for the unit tests that import it.
export declare const LEVELS: number;
export declare const MAX_BATCH: number;
export declare const SCALE: number;
export type Side = "buy" | "sell";
export interface PairRules { pd: number; qd: number; minNotional: bigint }
export interface OpenQuote { id: string; side: Side; price: bigint }
export interface NewQuote { side: Side; price: bigint; qty: bigint }
export interface Free { base: bigint; quote: bigint; heldBase: bigint; heldQuote: bigint }
export interface MakerPair extends PairRules { name: string; mid: bigint; rand: () => number; tick: number }
export interface MakerApi {
  openOrders(pair: MakerPair): Promise<OpenQuote[]>;
  balance(pair: MakerPair, who: "maker" | "taker"): Promise<Free>;
  cancel(ids: string[]): Promise<void>;
  place(pair: MakerPair, quotes: NewQuote[]): Promise<void>;
  market(pair: MakerPair, side: Side, qty: bigint): Promise<void>;
}
export declare function prng(seed: number): () => number;
export declare function toUnits(s: string, d: number): bigint;
export declare function fromUnits(u: bigint, d: number): string;
export declare function valueOf(p: PairRules, price: bigint, qty: bigint): bigint;
export declare function sizeFor(p: PairRules, price: bigint, multiple: number): bigint;
export declare function spacingFor(mid: bigint): bigint;
export declare function planSide(a: { mid: bigint; side: Side; open: OpenQuote[]; levels?: number }): { cancel: string[]; missing: bigint[] };
export declare function sizeQuotes(a: { rules: PairRules; side: Side; prices: bigint[]; available: bigint; rand: () => number; share?: number }): NewQuote[];
export declare function takerSide(a: { makerBaseValue: bigint; makerQuote: bigint; rand: () => number; takerCan: { buy: boolean; sell: boolean } }): Side | null;
export declare function chunks<T>(items: T[], size?: number): T[][];
export declare function step(p: MakerPair, api: MakerApi): Promise<void>;
