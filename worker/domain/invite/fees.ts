/**
 * Which fees count for invitation rebates (issue #18 §2): the fees the invitee really paid, from the
 * ledger's fee movements (rows crediting the fee account, SYSTEM.fees, in a movement that debits
 * the invitee) and, for spot, from the trades the same drain batch wrote (a spot batch's ledger rows
 * are netted per account, so spot_trades.buyer_fee / seller_fee are the per-user record of the fee
 * the batch credited to SYSTEM.fees).
 *
 * `feeProductOf` is the one lookup from a movement kind to its product; the SQL below is generated
 * from it. Withdrawal fees (network costs) and the rebate payments themselves are not product
 * fees and never count; C2C charges no fee today.
 */
import type { InviteProduct } from "../../../schemas/invite.ts";
import { PRODUCTS } from "../../../schemas/products.ts";

/**
 * Movement kind → product, read from the product declarations (schemas/products.ts `feeKinds`).
 * Spot is left out here: its ledger rows are netted per drain batch, so its fees are read from
 * spot_trades instead (see above).
 */
const FEE_KINDS: Readonly<Record<string, InviteProduct>> = Object.fromEntries(
  PRODUCTS.filter((p) => p.id !== "spot").flatMap((p) => p.feeKinds.map((kind) => [kind, p.id as InviteProduct])),
);

/** The product whose fee a ledger movement of this kind books, or null when it books none that counts. */
export function feeProductOf(kind: string): InviteProduct | null {
  return Object.hasOwn(FEE_KINDS, kind) ? FEE_KINDS[kind]! : null;
}

/** Every product whose fees count (spot's come from spot_trades). */
export const COUNTED_PRODUCTS: readonly InviteProduct[] = ["spot", ...new Set(Object.values(FEE_KINDS))];

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const kinds = Object.keys(FEE_KINDS).filter((k) => feeProductOf(k) !== null);

/** `kind IN (...)` and `CASE kind WHEN ... END` over the lookup, for the settlement's aggregation. */
export const feeKindsSql = (col: string) => `${col} IN (${kinds.map(quote).join(", ")})`;
export const feeProductSql = (col: string) => `CASE ${col} ${kinds.map((k) => `WHEN ${quote(k)} THEN ${quote(feeProductOf(k)!)}`).join(" ")} END`;
