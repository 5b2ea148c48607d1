/**
 * The accounts behind the roles of a seconds contract's movements (durable/engine/seconds.ts):
 * the user's micro account, the fee account and the house (treasury). Used by the Worker for the
 * acceptance hold and its refund, and by the pair object's outbox for the settlement, so all three
 * movements book the same accounts.
 */
import type { SecondsLeg } from "../../../durable/engine/seconds.ts";
import { TREASURY } from "../../lib/guarded.ts";
import { SYSTEM, type LedgerEntry } from "../../lib/ledger.ts";

/** Movement keys, one per contract and step: each can apply at most once. */
export const secondsKeys = {
  open: (orderId: number) => `micro:${orderId}:open`,
  settle: (orderId: number) => `micro:${orderId}:settle`,
  refund: (orderId: number) => `micro:${orderId}:refund`,
};

/** The house's hold and result live in the treasury's `change` account (where it is funded). */
export const HOUSE_ACCOUNT = "change" as const;

/** Ledger entries of a contract's legs. */
export function secondsEntries(legs: SecondsLeg[], userId: number, currencyId: number, memo: string): LedgerEntry[] {
  return legs.map((l) => ({
    userId: l.role === "user" ? userId : l.role === "fees" ? SYSTEM.fees : TREASURY,
    currencyId,
    account: l.role === "user" ? ("micro" as const) : HOUSE_ACCOUNT,
    dAvailable: l.dAvailable,
    dFrozen: l.dFrozen,
    memo,
  }));
}
