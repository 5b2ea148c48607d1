/** The words of tickets: categories, states, order kinds and sides, in the app's language. */
import { m } from "../../i18n/index.ts";
import type { SupportRelatedKind, SupportStatus } from "./api.ts";
import type { SupportCategory } from "../../../../schemas/support.ts";

export const categoryText = (c: SupportCategory): string =>
  ({ complaint: m.support_cat_complaint, feedback: m.support_cat_feedback, question: m.support_cat_question, order: m.support_cat_order })[c]();

export const statusText = (s: SupportStatus): string =>
  ({ new: m.support_status_new, open: m.support_status_open, pending_customer: m.support_status_pending_customer, resolved: m.support_status_resolved, closed: m.support_status_closed })[s]();

/** The badge colour of a state: waiting on the user stands out, finished ones are grey. */
export const statusBadge = (s: SupportStatus): string =>
  s === "pending_customer" ? "badge-bad" : s === "resolved" ? "badge-ok" : s === "closed" ? "badge-none" : "badge-pending";

export const kindText = (k: SupportRelatedKind): string =>
  ({
    spot: m.support_kind_spot,
    seconds: m.support_kind_seconds,
    lever: m.support_kind_lever,
    c2c: m.support_kind_c2c,
    deposit: m.support_kind_deposit,
    withdrawal: m.support_kind_withdrawal,
  })[k]();

export function sideText(side: string): string {
  switch (side) {
    case "buy": return m.support_side_buy();
    case "sell": return m.support_side_sell();
    case "up": return m.support_side_up();
    case "down": return m.support_side_down();
    case "long": return m.support_side_long();
    case "short": return m.support_side_short();
    default: return "";
  }
}

export const unitText = (unit: string): string => (unit === "lots" ? m.support_unit_lots() : unit);
