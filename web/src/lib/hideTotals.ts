/**
 * "Hide totals" (spec §2 personal centre): one eye toggle that masks balances on the asset and
 * personal screens, remembered on this device.
 */
import { atom } from "nanostores";
import { useStore } from "@nanostores/react";

const KEY = "hide_totals";

function initial(): boolean {
  try {
    return localStorage.getItem(KEY) === "1";
  } catch {
    return false;
  }
}

export const $hideTotals = atom<boolean>(initial());

export function toggleHideTotals() {
  const next = !$hideTotals.get();
  try {
    if (next) localStorage.setItem(KEY, "1");
    else localStorage.removeItem(KEY);
  } catch {
    // remembered for this visit only
  }
  $hideTotals.set(next);
}

export function useHideTotals(): boolean {
  return useStore($hideTotals);
}

/** What a masked amount looks like. */
export const MASK = "****";
