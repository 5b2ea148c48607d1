/**
 * The accounts behind the roles of a seconds contract's movements (durable/engine/seconds.ts):
 * the user's micro account, the fee account and the house (treasury). Used by the Worker for the
 * acceptance hold and its refund, and by the pair object's outbox for the settlement, so all three
 * movements book the same accounts.
 */
import type { SecondsLeg } from "../../../durable/engine/seconds.ts";
import { roleEntries } from "../../lib/guarded.ts";
import type { LedgerEntry } from "../../lib/ledger.ts";

/** Movement keys, one per contract and step: each can apply at most once. */
export const secondsKeys = {
  open: (orderId: number) => `micro:${orderId}:open`,
  settle: (orderId: number) => `micro:${orderId}:settle`,
  refund: (orderId: number) => `micro:${orderId}:refund`,
};

/** Ledger entries of a contract's legs (the user's side in the micro account). */
export function secondsEntries(legs: SecondsLeg[], userId: number, currencyId: number, memo: string): LedgerEntry[] {
  return roleEntries(legs, userId, "micro", currencyId, memo);
}
