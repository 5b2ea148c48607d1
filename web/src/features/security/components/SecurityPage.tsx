/**
 * Security centre: the fund password that authorises withdrawals, the authenticator app, the
 * withdrawal address book and the login password, each with its current state.
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { Icon, type IconName } from "../../../components/Icon.tsx";
import { ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useGuards, useSecurity } from "../api.ts";
import acct from "../../../components/account.module.css";

export default function SecurityPage() {
  const s = useSecurity();
  const g = useGuards();
  if (s.error && !s.data) return <ErrorState message={s.error.message} onRetry={s.reload} />;
  if (!s.data) return <SkeletonList rows={4} />;
  const d = s.data;
  const items: { to: string; icon: IconName; label: string; desc: string; badge?: { text: string; tone: string }; testId: string }[] = [
    {
      to: "/security/fund-password",
      icon: "key",
      label: m.sec_fund_title(),
      desc: m.sec_fund_desc(),
      badge: d.has_fund_password ? { text: m.sec_state_set(), tone: "ok" } : { text: m.sec_fund_not_set(), tone: "pending" },
      testId: "sec-fund",
    },
    {
      to: "/security/authenticator",
      icon: "shield",
      label: m.sec_totp_title(),
      desc: m.sec_totp_desc(),
      badge: d.totp_enabled ? { text: m.sec_state_on(), tone: "ok" } : { text: m.sec_state_off(), tone: "none" },
      testId: "sec-totp",
    },
    { to: "/security/addresses", icon: "records", label: m.sec_addresses_title(), desc: m.sec_addresses_desc(), testId: "sec-addresses" },
    { to: "/password", icon: "key", label: m.menu_password(), desc: m.sec_password_desc(), testId: "sec-password" },
    // Account guards (issue #29): their states come from /api/security/settings.
    { to: "/security/passkeys", icon: "key", label: m.sec_passkeys_title(), desc: m.sec_passkeys_desc(), ...(g.data ? { badge: g.data.passkeys > 0 ? { text: String(g.data.passkeys), tone: "ok" } : { text: m.sec_state_off(), tone: "none" } } : {}), testId: "sec-passkeys" },
    { to: "/security/anti-phishing", icon: "shield", label: m.sec_anti_title(), desc: m.sec_anti_desc(), ...(g.data ? { badge: g.data.anti_phishing_code ? { text: m.sec_state_set(), tone: "ok" } : { text: m.sec_anti_none(), tone: "none" } } : {}), testId: "sec-anti-phishing" },
    { to: "/security/whitelist", icon: "records", label: m.sec_whitelist_title(), desc: m.sec_whitelist_desc(), ...(g.data ? { badge: g.data.locked_until ? { text: m.sec_locked(), tone: "pending" } : g.data.whitelist ? { text: m.sec_state_on(), tone: "ok" } : { text: m.sec_state_off(), tone: "none" } } : {}), testId: "sec-whitelist" },
    // Issue #29: API keys, devices, sign-ins and exports (features/access).
    { to: "/security/api-keys", icon: "build", label: m.apikey_title(), desc: m.apikey_menu_desc(), testId: "sec-apikeys" },
    { to: "/security/devices", icon: "user", label: m.devices_title(), desc: m.devices_menu_desc(), testId: "sec-devices" },
    { to: "/security/logins", icon: "records", label: m.logins_title(), desc: m.logins_menu_desc(), testId: "sec-logins" },
    { to: "/security/export", icon: "deposit", label: m.export_title(), desc: m.export_menu_desc(), testId: "sec-export" },
  ];
  return (
    <div className={acct.acctPage} data-testid="security-page">
      <nav className={acct.menuList}>
        {items.map((i) => (
          <Link key={i.to} to={i.to} className={`${acct.menuItem} tall`} data-testid={i.testId}>
            <Icon name={i.icon} size={20} />
            <span className={acct.menuItemLabel}>
              {i.label}
              <small className="muted">{i.desc}</small>
            </span>
            {i.badge && <span className={`badge badge-${i.badge.tone}`}>{i.badge.text}</span>}
            <Icon name="chevron" size={16} className={acct.menuChevron} />
          </Link>
        ))}
      </nav>
    </div>
  );
}
