/**
 * Shortcuts to C2C, seconds and leveraged contracts (each when on here), inviting friends, customer
 * service, the help centre and news. Up to five sit in one row; more wrap into two even rows.
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { Icon, type IconName } from "../../../components/Icon.tsx";
import { pathOn, useProducts } from "../../../lib/products.ts";
import s from "./home.module.css";

const items: { to: string; icon: IconName; label: () => string }[] = [
  { to: "/legal/index", icon: "c2c", label: m.home_shortcut_c2c },
  { to: "/customer", icon: "service", label: m.home_shortcut_service },
  { to: "/help/center", icon: "help", label: m.home_shortcut_help },
  { to: "/news/list", icon: "news", label: m.home_shortcut_news },
];

const invite: (typeof items)[number] = { to: "/invite", icon: "gift", label: m.home_shortcut_invite };
const trade: (typeof items)[number] = { to: "/trade", icon: "trade", label: m.home_shortcut_trade };
const lever: (typeof items)[number] = { to: "/lever", icon: "lever", label: m.home_shortcut_lever };

export function Shortcuts() {
  const products = useProducts();
  // Seconds', leverage's and C2C's shortcuts only when their product is on here (lib/products.ts pathOn).
  const shown = [items[0], trade, lever, invite, ...items.slice(1)].filter((it): it is (typeof items)[number] => it !== undefined && pathOn(it.to, products));
  const columns = shown.length <= 5 ? shown.length : Math.ceil(shown.length / 2);
  return (
    <nav className={s.shortcuts} style={shown.length <= 5 ? { gridTemplateColumns: `repeat(${columns}, 1fr)` } : { gridTemplateColumns: `repeat(${columns}, 1fr)`, gridAutoFlow: "row", rowGap: 14 }} aria-label={m.home_shortcuts()}>
      {shown.map((it) => (
        <Link key={it.to} to={it.to} className={s.shortcut} data-testid={`home-shortcut-${it.to.split("/")[1]}`}>
          <span className={s.shortcutIcon}>
            <Icon name={it.icon} size={22} />
          </span>
          <span className={s.shortcutLabel}>{it.label()}</span>
        </Link>
      ))}
    </nav>
  );
}
