/** The console's front page: how many items wait in each queue (C2C appeals and merchant applications too, where C2C is on), with links. */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { Icon, type IconName } from "../../../components/Icon.tsx";
import { useProducts } from "../../../lib/products.ts";
import { useQueueCounts } from "../api.ts";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

export function Overview() {
  const c2cOn = useProducts()?.c2c === true;
  const counts = useQueueCounts(c2cOn);
  const c = counts.data;
  const tiles: { to: string; icon: IconName; label: string; count: number | undefined; testId: string }[] = [
    { to: "/admin/deposits", icon: "deposit", label: m.op_tile_deposits(), count: c?.deposits, testId: "tile-deposits" },
    { to: "/admin/withdrawals", icon: "withdraw", label: m.op_tile_withdrawals(), count: c?.withdrawals, testId: "tile-withdrawals" },
    { to: "/admin/withdrawals", icon: "refresh", label: m.op_tile_chain(), count: c?.chain, testId: "tile-chain" },
    { to: "/admin/kyc", icon: "shield", label: m.op_tile_kyc(), count: c?.kyc, testId: "tile-kyc" },
    { to: "/admin/adjustments", icon: "wallet", label: m.op_tile_adjustments(), count: c?.adjustments, testId: "tile-adjustments" },
    ...(c2cOn
      ? [
          { to: "/admin/c2c-appeals", icon: "chat" as IconName, label: m.op_tile_c2c_appeals(), count: c?.appeals ?? undefined, testId: "tile-c2c-appeals" },
          { to: "/admin/c2c-merchants", icon: "user" as IconName, label: m.op_tile_c2c_merchants(), count: c?.merchants ?? undefined, testId: "tile-c2c-merchants" },
        ]
      : []),
  ];
  return (
    <section data-testid="admin-overview">
      <p className={`${acct.notice} ${acct.noticeInfo}`}>{m.op_intro()}</p>
      <div className={s.tileGrid}>
        {tiles.map((t) => (
          <Link key={t.testId} to={t.to} className={s.tile} data-testid={t.testId}>
            <Icon name={t.icon} size={20} />
            <span className={`${s.tileCount} num`} data-testid="tile-count">{t.count ?? (counts.error ? "!" : "…")}</span>
            <span className={s.tileLabel}>{t.label}</span>
          </Link>
        ))}
        <Link to="/admin/reconcile" className={s.tile} data-testid="tile-reconcile">
          <Icon name="check" size={20} />
          <span className={s.tileLabel}>{m.op_nav_reconcile()}</span>
        </Link>
        <Link to="/admin/audit" className={s.tile}>
          <Icon name="records" size={20} />
          <span className={s.tileLabel}>{m.op_nav_audit()}</span>
        </Link>
      </div>
    </section>
  );
}
