/** Savings texts built from a product: its term and the statement of where its interest comes from. */
import { m } from "../../i18n/index.ts";
import { formatMoney } from "../../lib/format.ts";
import type { EarnProduct } from "./api.ts";

export const termLabel = (p: { term_days: number }) => (p.term_days === 0 ? m.earn_flexible() : m.earn_fixed_days({ days: String(p.term_days) }));

/** "Paid from the exchange's reserved marketing budget of N; M remain." */
export const sourceText = (p: EarnProduct) => m.earn_source({ budget: formatMoney(p.budget, p.currency), remaining: formatMoney(p.remaining, p.currency), currency: p.currency });
