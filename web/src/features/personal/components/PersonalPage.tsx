/**
 * Personal centre (spec §2): user id, the real name with a time-of-day greeting once verified,
 * the total of every account with a hide toggle and account tabs, shortcuts to deposit,
 * withdrawal, assets and transfer, the account menu (verification, bank card, security centre,
 * password, invite friends, records, flash exchange; the operator console for operators) and logout.
 */
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { MASK, useHideTotals } from "../../../lib/hideTotals.ts";
import { clearLogin, useSession } from "../../../lib/session.ts";
import { toast } from "../../../lib/toast.ts";
import { accountLabel, accountTabs, useProducts, useProductsSettled, type AccountName } from "../../../lib/products.ts";
import { Icon, type IconName } from "../../../components/Icon.tsx";
import { EarnEntries } from "../../../components/EarnEntries.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { endSession, greetingPart, useCenter, useTotals, type WalletTotals } from "../api.ts";
import acct from "../../../components/account.module.css";
import { formatMoney } from "../../../lib/format.ts";
import { TotalsHead } from "../../../components/TotalsHead.tsx";

function verifyBadge(status: number): { text: string; tone: string } {
  if (status === 2) return { text: m.verify_status_2(), tone: "ok" };
  if (status === 1) return { text: m.verify_status_1(), tone: "pending" };
  if (status === 3) return { text: m.verify_status_3(), tone: "bad" };
  return { text: m.verify_status_0(), tone: "none" };
}

function greeting(): string {
  const part = greetingPart(new Date().getHours());
  return part === "morning" ? m.assets_good_morning() : part === "afternoon" ? m.assets_good_afternoon() : m.assets_good_evening();
}

function accountTotal(t: WalletTotals, a: AccountName): string {
  return t[`${a}_wallet`].usdt_totle;
}

export default function PersonalPage() {
  const session = useSession();
  const navigate = useNavigate();
  const hidden = useHideTotals();
  const products = useProducts();
  const settled = useProductsSettled();
  const [tab, setTab] = useState<AccountName>("change");
  const [busy, setBusy] = useState(false);
  const center = useCenter();
  const totals = useTotals();
  const mask = (s: string) => (hidden ? MASK : s);

  const logout = async () => {
    setBusy(true);
    try {
      await endSession();
    } catch {
      // an expired session is already logged out on the server
    }
    clearLogin();
    setBusy(false);
    toast.success(m.logout_done());
    navigate("/login", { replace: true });
  };

  const c = center.data;
  const status = c ? verifyBadge(c.review_status) : null;
  const menu: { to: string; icon: IconName; label: string; badge?: { text: string; tone: string }; testId: string }[] = [
    { to: "/verifyed", icon: "shield", label: m.menu_verify(), badge: status ?? undefined, testId: "menu-verify" },
    { to: "/bank", icon: "bank", label: m.menu_bank(), badge: c ? (c.bank ? { text: m.assets_bound(), tone: "ok" } : { text: m.assets_not_bound(), tone: "none" }) : undefined, testId: "menu-bank" },
    { to: "/security", icon: "key", label: m.sec_title(), badge: c ? (c.has_fund_password ? undefined : { text: m.sec_fund_not_set(), tone: "pending" }) : undefined, testId: "menu-security" },
    { to: "/password", icon: "key", label: m.menu_password(), testId: "menu-password" },
    { to: "/invite", icon: "gift", label: m.menu_invite(), testId: "menu-invite" },
    { to: "/transparency/liabilities", icon: "shield", label: m.menu_liabilities(), testId: "menu-liabilities" },
    { to: "/transparency", icon: "eye", label: m.menu_transparency(), testId: "menu-transparency" },
    { to: "/recharge/log", icon: "records", label: m.menu_records(), testId: "menu-records" },
    { to: "/excharge", icon: "exchange", label: m.title_excharge(), testId: "menu-excharge" },
    { to: "/lang", icon: "globe", label: m.title_lang(), testId: "menu-lang" },
    { to: "/customer", icon: "service", label: m.menu_customer(), testId: "menu-customer" },
  ];
  if (session.role === "operator") menu.push({ to: "/admin", icon: "shield", label: m.op_title(), testId: "menu-admin" });

  return (
    <div className={acct.acctPage} data-testid="personal-page">
      {center.error && !c ? (
        <ErrorState message={center.error.message} onRetry={center.reload} />
      ) : !c ? (
        // The card's own frame and lines, so the menu below stays put when the answer arrives.
        <section className={acct.profileCard} aria-busy="true">
          <div className={acct.profileAvatar}>
            <Icon name="user" size={28} />
          </div>
          <div className={`${acct.profileText} ${acct.profileLoading}`} aria-hidden="true">
            <span className={`skeleton ${acct.profileGreeting}`}>{"\u00a0"}</span>
            <span className={`skeleton ${acct.profileAccount}`}>{"\u00a0"}</span>
            <span className={acct.profileMeta}>
              <span className="skeleton badge">{"\u00a0"}</span>
            </span>
          </div>
        </section>
      ) : (
        <section className={acct.profileCard}>
          <div className={acct.profileAvatar}>
            <Icon name="user" size={28} />
          </div>
          <div className={acct.profileText}>
            <div className={acct.profileGreeting} data-testid="greeting">
              {c.review_status === 2 && c.name ? m.assets_greeting_named({ greeting: greeting(), name: c.name }) : greeting()}
            </div>
            <div className={acct.profileAccount}>{c.account}</div>
            <div className={acct.profileMeta}>
              <span className="num" data-testid="user-id">
                {m.user_id_label()}: {c.id}
              </span>
              {status && <span className={`badge badge-${status.tone}`}>{status.text}</span>}
            </div>
          </div>
        </section>
      )}

      <section className={`${acct.heroCard} ${acct.compact}`}>
        <TotalsHead />
        {totals.error && !totals.data ? (
          <button type="button" className="text-btn" onClick={totals.reload}>
            {m.load_failed()} · {m.retry()}
          </button>
        ) : (
          <>
            {totals.data ? (
              <div className={`${acct.heroValue} num`} data-testid="personal-total">
                {mask(formatMoney(totals.data.total_usdt, "USDT"))}
                <span className={acct.heroUnit}>USDT</span>
              </div>
            ) : (
              // As tall as the figures it stands for, so the menu below stays put when they arrive.
              <div className={`${acct.heroValue} num skeleton ${acct.heroSkeleton}`} aria-hidden="true">
                {"\u00a0"}
              </div>
            )}
            <div className={acct.miniTabs} role="tablist" aria-label={m.assets_accounts()}>
              {accountTabs(products).map((a) => (
                <button key={a} type="button" role="tab" aria-selected={tab === a} className={tab === a ? "active" : ""} onClick={() => setTab(a)}>
                  {accountLabel(a)}
                </button>
              ))}
            </div>
            <div className={`${acct.miniTabValue} num`} data-testid={totals.data ? "personal-account-total" : undefined}>
              {totals.data ? `${mask(formatMoney(accountTotal(totals.data, tab), "USDT"))} USDT` : "\u00a0"}
            </div>
          </>
        )}
      </section>

      <nav className={acct.shortcutGrid} aria-label={m.assets_shortcuts()}>
        <Link to="/recharge" className={acct.shortcut}>
          <span className={acct.shortcutIcon}><Icon name="deposit" /></span>
          <span>{m.assets_deposit()}</span>
        </Link>
        <Link to="/withdrawal" className={acct.shortcut}>
          <span className={acct.shortcutIcon}><Icon name="withdraw" /></span>
          <span>{m.assets_withdraw()}</span>
        </Link>
        <Link to="/assets" className={acct.shortcut}>
          <span className={acct.shortcutIcon}><Icon name="wallet" /></span>
          <span>{m.tab_assets()}</span>
        </Link>
        <Link to="/transfer" className={acct.shortcut}>
          <span className={acct.shortcutIcon}><Icon name="transfer" /></span>
          <span>{m.assets_transfer()}</span>
        </Link>
      </nav>

      {/* The earn rows (issue #19) come with the product switches and sit above the menu: the
          menu is drawn once the switches are settled, so its entries never move under a finger. */}
      {!settled ? (
        <SkeletonBlock height={200} />
      ) : (
        <>
          <EarnEntries variant="rows" />
          <nav className={acct.menuList}>
            {menu.map((item) => (
              <Link key={item.to} to={item.to} className={acct.menuItem} data-testid={item.testId}>
                <Icon name={item.icon} size={20} />
                <span className={acct.menuItemLabel}>{item.label}</span>
                {item.badge && <span className={`badge badge-${item.badge.tone}`}>{item.badge.text}</span>}
                <Icon name="chevron" size={16} className={acct.menuChevron} />
              </Link>
            ))}
          </nav>
        </>
      )}

      <button type="button" className={`btn btn-ghost btn-block btn-large ${acct.logoutBtn}`} onClick={logout} disabled={busy} data-testid="personal-logout">
        {busy ? <Spinner size={16} /> : <Icon name="logout" size={18} />}
        {m.logout()}
      </button>
    </div>
  );
}
