/** Savings texts built from a product: its term and the statement of where its interest comes from. */
import { m } from "../../i18n/index.ts";
import { formatMoney } from "../../lib/format.ts";
import type { EarnProduct } from "./api.ts";

export { termLabel } from "../../lib/holds.ts";

/** "Paid from the exchange's reserved marketing budget of N; M remain." */
export const sourceText = (p: EarnProduct) => m.earn_source({ budget: formatMoney(p.budget, p.currency), remaining: formatMoney(p.remaining, p.currency), currency: p.currency });
