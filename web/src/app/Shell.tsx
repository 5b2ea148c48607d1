/**
 * The app frame (spec §2 "Shell"): header with menu or back icon, logo, title, the notification
 * bell (logged in) and language icon; the side drawer; the footer tabs on the five tab screens. It also guards auth routes,
 * sets the document title and re-mounts the screen when the language changes so every text
 * and every server-translated payload follows the new locale.
 */
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { Link, Navigate, Outlet, useLocation, useMatches, useNavigate } from "react-router";
import { m, useLocale } from "../i18n/index.ts";
import { useSession } from "../lib/session.ts";
import { Icon, LogoMark } from "../components/Icon.tsx";
import { PageSpinner } from "../components/States.tsx";
import { Drawer } from "./Drawer.tsx";
import { TabBar } from "./TabBar.tsx";
import type { RouteMeta } from "./routes.tsx";
import { refreshUserInfo } from "../features/auth/api.ts";
import { NotificationBell } from "../features/notifications/components/NotificationBell.tsx";
import s from "./shell.module.css";

export const BRAND = "Honest Exchange";

// The notification centre's live updates (user channel events), loaded after start-up with the channel's code.
const NotificationLive = lazy(() => import("../features/notifications/components/NotificationLive.tsx"));
// The "confirm your e-mail or phone" banner (issue #29), only for an account that has not entered its code.
const ContactBanner = lazy(() => import("../features/auth/components/ContactBanner.tsx"));

function useRouteMeta(): RouteMeta | undefined {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const h = matches[i]?.handle as RouteMeta | undefined;
    if (h && typeof h.title === "function") return h;
  }
  return undefined;
}

export function Shell() {
  const locale = useLocale();
  const session = useSession();
  const meta = useRouteMeta();
  const location = useLocation();
  const navigate = useNavigate();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const loggedIn = session.token !== "";

  const title = meta?.title() ?? "";
  useEffect(() => {
    document.title = title ? `${title} - ${BRAND}` : BRAND;
  }, [title, locale]);

  // Close the drawer on navigation.
  useEffect(() => setDrawerOpen(false), [location.pathname, location.search]);

  // Refresh the cached profile once per visit (verification status may have changed).
  useEffect(() => {
    if (loggedIn) void refreshUserInfo().catch(() => undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // The last screen a logged-out visitor could see, for the back arrow of the login screens:
  // going back to the page that sent them to log in would only send them here again.
  const lastOpen = useRef<string | null>(null);
  const onAuthScreen = /^\/(login|register|forget)$/.test(location.pathname);
  useEffect(() => {
    if (!onAuthScreen && (!meta?.auth || loggedIn)) lastOpen.current = location.pathname + location.search;
  }, [location.pathname, location.search, onAuthScreen, meta, loggedIn]);

  if (meta?.auth && !loggedIn) {
    const target = location.pathname + location.search;
    return <Navigate to={`/login?redirect=${encodeURIComponent(target)}`} replace />;
  }

  const isTab = meta?.tab ?? false;
  const goBack = () => {
    if (onAuthScreen && !loggedIn) {
      // Back from logging in: to the last screen that needs no login, else the public quotations.
      navigate(lastOpen.current ?? "/quotations", { replace: true });
      return;
    }
    // history.state.idx is React Router's position in this tab's history; 0 means we came from outside.
    const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0;
    if (idx > 0) navigate(-1);
    else navigate("/", { replace: true });
  };

  return (
    <div className={`${s.app} ${isTab ? s.hasTabbar : ""}`}>
      <header className={s.appHeader}>
        <div className={s.appHeaderSide}>
          {isTab ? (
            <button type="button" className="icon-btn" onClick={() => setDrawerOpen(true)} aria-label={m.open_menu()} data-testid="menu-button">
              <Icon name="menu" />
            </button>
          ) : (
            <button type="button" className="icon-btn" onClick={goBack} aria-label={m.go_back()} data-testid="back-button">
              <Icon name="back" />
            </button>
          )}
        </div>
        <div className={s.appHeaderTitle}>
          <Link to="/" className={s.appLogo} aria-label={BRAND}>
            <LogoMark size={22} />
          </Link>
          <h1 data-testid="page-title">{title}</h1>
        </div>
        <div className={`${s.appHeaderSide} ${s.appHeaderEnd}`}>
          {loggedIn && <NotificationBell />}
          <Link to="/lang" className="icon-btn" aria-label={m.change_language()} data-testid="lang-button">
            <Icon name="globe" />
          </Link>
        </div>
      </header>

      <main className={s.appMain} key={locale}>
        {loggedIn && session.contact_verified === "0" && (
          <Suspense fallback={null}>
            <ContactBanner />
          </Suspense>
        )}
        <Suspense fallback={<PageSpinner />}>
          <Outlet />
        </Suspense>
      </main>

      {isTab && <TabBar />}
      <Drawer open={drawerOpen} onClose={() => setDrawerOpen(false)} />
      {loggedIn && (
        <Suspense fallback={null}>
          <NotificationLive />
        </Suspense>
      )}
    </div>
  );
}
