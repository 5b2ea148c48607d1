/** The three level rates side by side: level, rate, whose fees (invite page and terms). */
import { m } from "../../../i18n/index.ts";
import { formatRate } from "../../../lib/rate.ts";
import type { InviteInfo } from "../api.ts";
import s from "./invite.module.css";

export function RateRow({ rates }: { rates: InviteInfo["level_rates"] }) {
  const whose = { 1: m.invite_level_1_who, 2: m.invite_level_2_who, 3: m.invite_level_3_who } as const;
  return (
    <div className={s.rates}>
      {[...rates]
        .sort((a, b) => a.level - b.level)
        .map((r) => (
          <div key={r.level} className={s.rate} data-testid={`invite-rate-${r.level}`}>
            <span className={s.rateLevel}>{m.invite_level({ level: String(r.level) })}</span>
            <span className={`${s.rateValue} num`}>{formatRate(r.rate)}</span>
            <span className={s.rateWho}>{whose[r.level]()}</span>
          </div>
        ))}
    </div>
  );
}
