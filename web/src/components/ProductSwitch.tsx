/**
 * The two contract products side by side (issue #16 §3): "Seconds" (/trade, seconds contracts) and
 * "Leverage" (/lever, leveraged contracts), each under its own name, so each is one tap from the
 * other. Only products switched on here are offered (lib/products.ts); with fewer than two there
 * is nothing to switch between and nothing is shown.
 */
import { NavLink } from "react-router";
import { m } from "../i18n/index.ts";
import { pathOn, useProducts } from "../lib/products.ts";
import s from "./ProductSwitch.module.css";

const items = [
  { to: "/trade", label: m.product_seconds, testId: "product-seconds" },
  { to: "/lever", label: m.product_lever, testId: "product-lever" },
];

export function ProductSwitch() {
  const products = useProducts();
  const shown = items.filter((it) => pathOn(it.to, products));
  if (shown.length < 2) return null;
  return (
    <nav className={s.switch} aria-label={m.product_switch()}>
      {shown.map((it) => (
        <NavLink key={it.to} to={it.to} end className={({ isActive }) => (isActive ? s.on : s.item)} data-testid={it.testId}>
          {it.label()}
        </NavLink>
      ))}
    </nav>
  );
}
