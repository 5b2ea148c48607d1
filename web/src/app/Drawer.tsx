/**
 * The side drawer (spec §2): who is logged in (account, user id, real name only once verified),
 * or a login/register prompt; links to account screens (the inbox with its unread count); logout
 * only when logged in. Its content is drawn the first time it opens (and kept, so it slides out
 * again): the first screen of a visit does not build a menu nobody has asked for.
 */
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { m } from "../i18n/index.ts";
import { useSession } from "../lib/session.ts";
import { pathOn, useProducts, type Products } from "../lib/products.ts";
import { toast } from "../lib/toast.ts";
import { Icon, LogoMark, type IconName } from "../components/Icon.tsx";
import { useDrawerPanel } from "../components/useDrawerPanel.ts";
import { logout } from "../features/auth/api.ts";
import { UnreadCount } from "../features/notifications/components/NotificationBell.tsx";
import d from "../components/drawer.module.css";
import s from "./shell.module.css";

function verifyLabel(status: string): { text: string; tone: string } {
  switch (status) {
    case "1":
      return { text: m.verify_status_1(), tone: "pending" };
    case "2":
      return { text: m.verify_status_2(), tone: "ok" };
    case "3":
      return { text: m.verify_status_3(), tone: "bad" };
    default:
      return { text: m.verify_status_0(), tone: "none" };
  }
}

interface Entry {
  to: string;
  icon: IconName;
  label: () => string;
  auth: boolean;
  /** Shown only to operators (the console itself checks the role with the server). */
  operator?: boolean;
}

const entries: Entry[] = [
  { to: "/customer", icon: "service", label: m.menu_customer, auth: false },
  { to: "/personal", icon: "user", label: m.title_personal, auth: true },
  { to: "/notifications", icon: "bell", label: m.title_notifications, auth: true },
  { to: "/bank", icon: "bank", label: m.menu_bank, auth: true },
  { to: "/verifyed", icon: "shield", label: m.menu_verify, auth: true },
  { to: "/security", icon: "key", label: m.sec_title, auth: true },
  { to: "/password", icon: "key", label: m.menu_password, auth: true },
  { to: "/recharge", icon: "deposit", label: m.menu_deposit, auth: true },
  { to: "/withdrawal", icon: "withdraw", label: m.menu_withdrawal, auth: true },
  { to: "/transfer", icon: "transfer", label: m.menu_transfer, auth: true },
  { to: "/lever", icon: "lever", label: m.title_lever, auth: true },
  { to: "/insurance", icon: "shield", label: m.title_insurance, auth: false },
  { to: "/legal/index", icon: "c2c", label: m.menu_c2c, auth: false },
  { to: "/assets", icon: "wallet", label: m.menu_assets, auth: true },
  { to: "/recharge/log", icon: "records", label: m.menu_records, auth: true },
  { to: "/invite", icon: "gift", label: m.menu_invite, auth: true },
  { to: "/launch", icon: "markets", label: m.menu_launch, auth: false },
  { to: "/earn", icon: "wallet", label: m.menu_earn, auth: false },
  { to: "/admin", icon: "shield", label: m.op_title, auth: true, operator: true },
];

export function Drawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [drawn, setDrawn] = useState(open);
  if (open && !drawn) setDrawn(true);
  // The product switches load at start-up all the same, so the first opening shows every entry at once.
  const products = useProducts();
  const panelRef = useDrawerPanel(open, onClose);
  return (
    <div className={`${d.drawerRoot} ${open ? d.open : ""}`} aria-hidden={!open}>
      <div className={d.drawerBackdrop} onClick={onClose} />
      <aside className={d.drawer} ref={panelRef} tabIndex={-1} role="dialog" aria-modal="true" aria-label={m.menu_title()} inert={!open}>
        {drawn && <DrawerContent products={products} onClose={onClose} />}
      </aside>
    </div>
  );
}

function DrawerContent({ products, onClose }: { products: Products | null; onClose: () => void }) {
  const session = useSession();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const loggedIn = session.token !== "";
  const status = verifyLabel(session.verified);

  const doLogout = async () => {
    setBusy(true);
    await logout();
    setBusy(false);
    onClose();
    toast.success(m.logout_done());
    navigate("/login", { replace: true });
  };

  return (
    <>
      <div className={d.drawerHead}>
        <div className={s.drawerBrand}>
          <LogoMark size={26} />
          <span>Honest Exchange</span>
        </div>
        <button type="button" className="icon-btn" onClick={onClose} aria-label={m.close()}>
          <Icon name="close" />
        </button>
      </div>

      {loggedIn ? (
        <div className={s.drawerUser} data-testid="drawer-user">
          <div className={s.drawerAvatar}>
            <Icon name="user" size={26} />
          </div>
          <div className={s.drawerUserText}>
            <div className={s.drawerAccount}>{session.accountNum || "—"}</div>
            <div className={`${s.drawerUid} num`}>
              {m.user_id_label()}: {session.user_id}
            </div>
            {session.verified === "2" && session.true_name && (
              <div className={s.drawerName}>
                {m.real_name_label()}: {session.true_name}
              </div>
            )}
          </div>
        </div>
      ) : (
        <div className={s.drawerGuest}>
          <p className={s.drawerGuestTitle}>{m.drawer_welcome()}</p>
          <p className="muted">{m.drawer_login_prompt()}</p>
          <div className={s.drawerGuestActions}>
            <Link to="/login" className="btn btn-primary btn-small">
              {m.login()}
            </Link>
            <Link to="/register" className="btn btn-outline btn-small">
              {m.register()}
            </Link>
          </div>
        </div>
      )}

      <nav className={s.drawerMenu} data-testid="drawer-menu">
        {entries
          .filter((e) => (loggedIn || !e.auth) && (!e.operator || session.role === "operator") && pathOn(e.to, products))
          .map((e) => (
            <Link key={e.to} to={e.to} className={s.drawerItem}>
              <Icon name={e.icon} size={20} />
              <span className={s.drawerItemLabel}>{e.label()}</span>
              {e.to === "/verifyed" && <span className={`badge badge-${status.tone}`}>{status.text}</span>}
              {e.to === "/notifications" && <UnreadCount />}
              <Icon name="chevron" size={16} className={s.drawerChevron} />
            </Link>
          ))}
      </nav>

      {loggedIn && (
        <button type="button" className={s.drawerLogout} onClick={doLogout} disabled={busy} data-testid="logout-button">
          <Icon name="logout" size={20} />
          {m.logout()}
        </button>
      )}
    </>
  );
}
