/**
 * Savings interest (worker/domain/earn/accrual.ts): at 00:00 UTC and every minute after, each open
 * position's ended interest days are accrued once per (position, day) (flexible: paid from the
 * reserve; fixed: paid with the principal at maturity), and closed products' unpromised budgets go
 * back to the treasury. Bounded per invocation; a missed or cut run is caught up by the next.
 */
import { runAccruals } from "../domain/earn/accrual.ts";
import type { Job } from "./job.ts";

export const earnInterestJob: Job = {
  name: "earn-interest",
  async run(env, { now }) {
    const r = await runAccruals(env, now);
    if (r.accrued > 0 || r.matured > 0 || r.released > 0) console.log(JSON.stringify({ level: "info", event: "earn_interest", ...r }));
  },
};
