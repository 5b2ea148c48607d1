/**
 * The accounts behind the roles of a leveraged position's movements (durable/engine/margin.ts):
 * the user's `lever` account, the fee account and the house (treasury). Used by the Worker for the
 * open hold and its refund, and by the pair object's outbox for overnight fees, closes and
 * revokes, so every movement of a position books the same accounts.
 */
import type { LeverLeg } from "../../../durable/engine/margin.ts";
import { roleEntries } from "../../lib/guarded.ts";
import type { LedgerEntry } from "../../lib/ledger.ts";

/** Movement keys, one per position and step: each applies at most once. */
export const leverKeys = {
  open: (id: number) => `lever:${id}:open`,
  /** the close or the revoke of a pending order: at most one of them, ever */
  close: (id: number) => `lever:${id}:close`,
  /** an open refused by the pair object (or never seen by it) */
  refund: (id: number) => `lever:${id}:refund`,
  night: (id: number, day: number) => `lever:${id}:night:${day}`,
};

/** Ledger entries of a position's legs (the user's side in the lever account). */
export function leverEntries(legs: LeverLeg[], userId: number, currencyId: number, memo: string): LedgerEntry[] {
  return roleEntries(legs, userId, "lever", currencyId, memo);
}
