/**
 * Operator console (/admin and its sections). Only operators get past the gate (the server
 * checks the role on every call as well); everyone else sees "no permission". Sections:
 * overview, queues for deposits, withdrawals and identity reviews (approve, or reject with a
 * reason), support tickets (reply, internal note, state), user search with balances and ledger, balance adjustments (request; a second,
 * different operator approves), the audit log, the ledger reconciliation, the seconds-contract
 * settings (durations, payable currencies) and invitation rebates (rates, agent levels, daily runs).
 */
import { useEffect, useRef, type ReactNode } from "react";
import { NavLink, useLocation } from "react-router";
import { m } from "../../../i18n/index.ts";
import { $session } from "../../../lib/session.ts";
import { Icon } from "../../../components/Icon.tsx";
import { ErrorState, PageSpinner } from "../../../components/States.tsx";
import { useRole } from "../api.ts";
import { Overview } from "./Overview.tsx";
import { DepositsQueue } from "./DepositsQueue.tsx";
import { WithdrawalsQueue } from "./WithdrawalsQueue.tsx";
import { KycQueue } from "./KycQueue.tsx";
import { UsersSection, UserDetail } from "./Users.tsx";
import { AdjustmentsSection } from "./Adjustments.tsx";
import { AuditSection } from "./Audit.tsx";
import { ReconcileSection } from "./Reconcile.tsx";
import { SecondsSettings } from "./SecondsSettings.tsx";
import { C2cAdvertsQueue, C2cAppealsQueue, C2cMerchantsQueue } from "./C2cQueues.tsx";
import { SupportQueue } from "./SupportQueue.tsx";
import { InviteConsole } from "./InviteConsole.tsx";
import { VoteRounds } from "./VoteRounds.tsx";
import { InsuranceConsole } from "./InsuranceConsole.tsx";
import { LaunchConsole } from "./LaunchConsole.tsx";
import { EarnConsole } from "./EarnConsole.tsx";
import { MiningConsole } from "./MiningConsole.tsx";
import { LiabilitiesConsole } from "./LiabilitiesConsole.tsx";
import { useProducts } from "../../../lib/products.ts";
import { consolePagesOn, consolePageState } from "../../../../../schemas/products.ts";
import { navScrollLeft } from "../navScroll.ts";
import "../../../components/account.module.css";
import s from "./operator.module.css";

const sections: { to: string; label: () => string }[] = [
  { to: "/admin", label: m.op_nav_overview },
  { to: "/admin/deposits", label: m.op_nav_deposits },
  { to: "/admin/withdrawals", label: m.op_nav_withdrawals },
  { to: "/admin/kyc", label: m.op_nav_kyc },
  { to: "/admin/support", label: m.op_nav_support },
  { to: "/admin/users", label: m.op_nav_users },
  { to: "/admin/adjustments", label: m.op_nav_adjustments },
  { to: "/admin/audit", label: m.op_nav_audit },
  { to: "/admin/reconcile", label: m.op_nav_reconcile },
  { to: "/admin/invite", label: m.op_nav_invite },
  { to: "/admin/liabilities", label: m.op_nav_liabilities },
];
/** The products' console pages (declared with each product in schemas/products.ts, shown while it is on). */
const productPages: Record<string, () => ReactNode> = {
  "/admin/seconds": () => <SecondsSettings />,
  "/admin/c2c-merchants": () => <C2cMerchantsQueue />,
  "/admin/c2c-adverts": () => <C2cAdvertsQueue />,
  "/admin/c2c-appeals": () => <C2cAppealsQueue />,
  "/admin/vote": () => <VoteRounds />,
  "/admin/insurance": () => <InsuranceConsole />,
  "/admin/launch": () => <LaunchConsole />,
  "/admin/earn": () => <EarnConsole />,
  "/admin/mining": () => <MiningConsole />,
};

export default function AdminPage() {
  const { pathname } = useLocation();
  const role = useRole();
  const products = useProducts();

  // Moving between sections re-mounts the page: trust the cached role while the server confirms it.
  const cached = $session.get().role === "operator" ? { id: Number($session.get().user_id), role: "operator" } : null;
  const who = role.data ?? (role.loading ? cached : null);
  // The nav scrolls sideways on a phone: bring the active section into view (navScroll.ts).
  const navRef = useRef<HTMLElement>(null);
  const shown = who?.role === "operator";
  const productSections = consolePagesOn(products).map((p) => ({ to: p.path, label: m[p.label] }));
  const productNav = productSections.map((p) => p.to).join(" ");
  useEffect(() => {
    const nav = navRef.current;
    const active = nav?.querySelector<HTMLElement>("a.active");
    if (!nav || !active) return;
    const navBox = nav.getBoundingClientRect();
    const box = active.getBoundingClientRect();
    nav.scrollLeft = navScrollLeft(box.left - navBox.left + nav.scrollLeft, box.width, nav.clientWidth, nav.scrollWidth);
  }, [pathname, shown, productNav]);
  if (role.error && !role.data) return <ErrorState message={role.error.message} onRetry={role.reload} />;
  if (!who) return <PageSpinner />;
  if (who.role !== "operator") {
    return (
      <div className="state state-error" data-testid="no-permission">
        <Icon name="shield" size={40} />
        <h2>{m.op_no_permission_title()}</h2>
        <p>{m.op_no_permission_body()}</p>
      </div>
    );
  }

  const section = (() => {
    switch (pathname) {
      case "/admin/deposits":
        return <DepositsQueue />;
      case "/admin/withdrawals":
        return <WithdrawalsQueue />;
      case "/admin/kyc":
        return <KycQueue />;
      case "/admin/support":
        return <SupportQueue />;
      case "/admin/users":
        return <UsersSection />;
      case "/admin/user":
        return <UserDetail />;
      case "/admin/adjustments":
        return <AdjustmentsSection me={who.id} />;
      case "/admin/audit":
        return <AuditSection />;
      case "/admin/reconcile":
        return <ReconcileSection />;
      case "/admin/invite":
        return <InviteConsole />;
      case "/admin/liabilities":
        return <LiabilitiesConsole />;
      default: {
        const state = consolePageState(pathname, products);
        const page = productPages[pathname];
        if (state === "loading") return <PageSpinner />;
        return state === "page" && page ? page() : <Overview />;
      }
    }
  })();

  return (
    <div className={s.admin} data-testid="admin-page">
      <nav className={s.adminNav} aria-label={m.op_title()} ref={navRef}>
        {[...sections, ...productSections].map((s) => (
          <NavLink key={s.to} to={s.to} end replace className={({ isActive }) => (isActive || (s.to === "/admin/users" && pathname === "/admin/user") ? "active" : "")} data-testid={`admin-nav-${s.to.split("/")[2] ?? "overview"}`}>
            {s.label()}
          </NavLink>
        ))}
      </nav>
      <div className={s.adminBody}>{section}</div>
    </div>
  );
}
