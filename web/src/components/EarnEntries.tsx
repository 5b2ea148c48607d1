/**
 * The "Earn" entry point (issue #19): the earn products that are declared and on here
 * (lib/earn.ts), as tiles on the home screen or as menu rows in the personal centre. Nothing is
 * shown when none is on.
 */
import { Link } from "react-router";
import { m } from "../i18n/index.ts";
import { earnEntries } from "../lib/earn.ts";
import { useProducts } from "../lib/products.ts";
import { Icon } from "./Icon.tsx";
import s from "./EarnEntries.module.css";

export function EarnEntries({ variant }: { variant: "tiles" | "rows" }) {
  const entries = earnEntries(useProducts());
  if (entries.length === 0) return null;
  return (
    <section className={variant === "tiles" ? s.tilesSection : `card ${s.rowsSection}`} aria-labelledby={`earn-title-${variant}`} data-testid={`earn-${variant}`}>
      <h2 className={`section-title ${s.title}`} id={`earn-title-${variant}`}>
        {m.earn_title()}
      </h2>
      <p className={s.intro}>{m.earn_intro()}</p>
      <div className={variant === "tiles" ? s.tiles : s.rows}>
        {entries.map((e) => (
          <Link key={e.to} to={e.to} className={variant === "tiles" ? s.tile : s.row} data-testid={`earn-entry-${e.product}`}>
            <span className={s.icon}>
              <Icon name={e.icon} size={20} />
            </span>
            <span className={s.text}>
              <span className={s.label}>{e.label()}</span>
              <span className={s.note}>{e.note()}</span>
            </span>
            {variant === "rows" && <Icon name="chevron" size={16} className={s.chevron} />}
          </Link>
        ))}
      </div>
    </section>
  );
}
