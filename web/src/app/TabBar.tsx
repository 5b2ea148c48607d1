/** Footer tabs (spec §2): home, quotations, exchange, trade, assets. */
import { NavLink } from "react-router";
import { m } from "../i18n/index.ts";
import { Icon, type IconName } from "../components/Icon.tsx";
import { pathOn, useProducts } from "../lib/products.ts";
import s from "./shell.module.css";

const tabs: { to: string; icon: IconName; label: () => string }[] = [
  { to: "/", icon: "home", label: m.tab_home },
  { to: "/quotations", icon: "markets", label: m.tab_quotations },
  { to: "/exchange", icon: "exchange", label: m.tab_exchange },
  { to: "/trade", icon: "trade", label: m.tab_trade },
  { to: "/assets", icon: "wallet", label: m.tab_assets },
];

export function TabBar() {
  // The contract tab only when seconds contracts are on here (hidden while the switches load).
  const products = useProducts();
  const shown = tabs.filter((t) => pathOn(t.to, products));
  return (
    <nav className={s.tabbar} style={{ gridTemplateColumns: `repeat(${shown.length}, 1fr)` }} data-testid="tabbar" aria-label={m.main_navigation()}>
      {shown.map((t) => (
        <NavLink key={t.to} to={t.to} end className={({ isActive }) => `${s.tab} ${isActive ? "active" : ""}`}>
          <Icon name={t.icon} size={22} />
          <span>{t.label()}</span>
        </NavLink>
      ))}
    </nav>
  );
}
