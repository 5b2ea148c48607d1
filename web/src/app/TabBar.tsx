/** Footer tabs (spec §2): home, quotations, exchange, trade, assets (app/tabs.ts). */
import { NavLink } from "react-router";
import { m } from "../i18n/index.ts";
import { Icon } from "../components/Icon.tsx";
import { pathOn, useProducts } from "../lib/products.ts";
import { TABS, type TabPath } from "./tabs.ts";
import s from "./shell.module.css";

const labels: Record<TabPath, () => string> = {
  "/": m.tab_home,
  "/quotations": m.tab_quotations,
  "/exchange": m.tab_exchange,
  "/trade": m.tab_trade,
  "/assets": m.tab_assets,
};

export function TabBar() {
  // The contract tab only when seconds contracts are on here (hidden while the switches load).
  const products = useProducts();
  const shown = TABS.filter((t) => pathOn(t.to, products));
  return (
    <nav className={s.tabbar} style={{ gridTemplateColumns: `repeat(${shown.length}, 1fr)` }} data-testid="tabbar" aria-label={m.main_navigation()}>
      {shown.map((t) => (
        <NavLink key={t.to} to={t.to} end className={({ isActive }) => `${s.tab} ${isActive ? "active" : ""}`}>
          <Icon name={t.icon} size={22} />
          <span>{labels[t.to]()}</span>
        </NavLink>
      ))}
    </nav>
  );
}
