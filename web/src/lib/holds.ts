/**
 * What the user's frozen funds are held for (issue #26; GET /api/wallet/holds), read by the assets
 * screen (under "Frozen") and the holds screen: the query and the words of each purpose.
 */
import type { HoldGroup, HoldItem, HoldPurpose } from "../../../schemas/statement.ts";
import { m } from "../i18n/index.ts";
import { call, client } from "./api.ts";
import type { AccountName } from "./products.ts";
import { sharedKeys, useScreenQuery } from "./query.ts";

export type { HoldGroup, HoldItem, HoldPurpose };

export const fetchHolds = (signal?: AbortSignal) => call((o) => client.api.wallet.holds.$get({}, o), { notify: false, signal });

/** Under the balances root: every money move and money notification reads it again. */
export const holdsKey = [...sharedKeys.balances, "holds"] as const;

export const useHolds = (enabled = true) => useScreenQuery({ queryKey: holdsKey, queryFn: ({ signal }) => fetchHolds(signal), enabled });

/** The holds of one coin in one account (null when nothing of it is frozen). */
export function holdsOf(groups: readonly HoldGroup[] | undefined, currencyId: number, account: AccountName): HoldGroup | null {
  return groups?.find((g) => g.currency_id === currencyId && g.account === account) ?? null;
}

const PURPOSE_WORDS: Record<HoldPurpose, () => string> = {
  spot_order: m.hold_spot_order,
  withdrawal: m.hold_withdrawal,
  vote: m.hold_vote,
  launch: m.hold_launch,
  launch_locked: m.hold_launch_locked,
  savings: m.hold_savings,
  c2c_order: m.hold_c2c_order,
  c2c_advert: m.hold_c2c_advert,
  c2c_deposit: m.hold_c2c_deposit,
  seconds: m.hold_seconds,
  lever_margin: m.hold_lever_margin,
  unexplained: m.hold_unexplained,
};

/** A hold's purpose in words. */
export const purposeLabel = (p: HoldPurpose): string => PURPOSE_WORDS[p]();

/** A savings product's term in words: "Flexible", "30 days" (the savings screens name a product by its coin and this). */
export const termLabel = (p: { term_days: number }) => (p.term_days === 0 ? m.earn_flexible() : m.earn_fixed_days({ days: String(p.term_days) }));

/** The record's short name under a hold: its label (a pair, a title), or a savings position's term. */
export const holdName = (h: Pick<HoldItem, "label" | "term_days">): string => h.label || (h.term_days === undefined ? "" : termLabel({ term_days: h.term_days }));

/** Where the holds of one coin and account are listed. */
export const holdsRoute = (currencyId: number, account: AccountName) => `/holds?currency_id=${currencyId}&account=${account}`;
