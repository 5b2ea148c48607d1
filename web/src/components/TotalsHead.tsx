/**
 * The head of a totals card (Assets, the personal centre): "Total assets" and the eye that masks
 * every total on this device (lib/hideTotals.ts).
 */
import { m } from "../i18n/index.ts";
import { toggleHideTotals, useHideTotals } from "../lib/hideTotals.ts";
import { Icon } from "./Icon.tsx";
import acct from "./account.module.css";

export function TotalsHead() {
  const hidden = useHideTotals();
  return (
    <div className={acct.heroTop}>
      <span className={acct.heroLabel}>{m.assets_total_label()}</span>
      <button type="button" className={`icon-btn ${acct.heroEye}`} onClick={toggleHideTotals} aria-pressed={hidden} aria-label={hidden ? m.assets_show_totals() : m.assets_hide_totals()} data-testid="hide-totals">
        <Icon name={hidden ? "eyeOff" : "eye"} size={18} />
      </button>
    </div>
  );
}
