/**
 * The route table (spec §2, hash mode). Each route carries its title, whether it needs a login
 * and whether it is one of the five footer tabs. Screens another engineer is building are routes
 * with a placeholder; replace `placeholder(...)` with the real page when it lands.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from "react";
import { useSearchParams, type RouteObject } from "react-router";
import { m } from "../i18n/index.ts";
import { $session } from "../lib/session.ts";
import { ComingSoon } from "../components/ComingSoon.tsx";
import { ProductGate } from "../components/ProductGate.tsx";
import { productOfPath } from "../lib/products.ts";
import { Shell } from "./Shell.tsx";
import { tabRoute } from "./tabs.ts";
import { RouteError, NotFound } from "./RouteError.tsx";

export interface RouteMeta {
  /** The header title, and the document title before " - Honest Exchange". */
  title: () => string;
  /** Anonymous visitors are sent to /login?redirect=<path>. */
  auth: boolean;
  /** One of the footer tabs: the header shows the menu icon instead of the back icon. */
  tab: boolean;
  /** Hide the header logo (auth screens show their own brand block). */
  bare?: boolean;
}

function page<T extends ComponentType<object>>(load: () => Promise<{ default: T }>): LazyExoticComponent<T> {
  return lazy(load);
}

const HomePage = page(() => import("../features/home/components/HomePage.tsx"));
const LoginPage = page(() => import("../features/auth/components/LoginPage.tsx"));
const RegisterPage = page(() => import("../features/auth/components/RegisterPage.tsx"));
const ForgetPage = page(() => import("../features/auth/components/ForgetPage.tsx"));
const LangPage = page(() => import("../features/settings/components/LangPage.tsx"));
const AgreementPage = page(() => import("../features/news/components/AgreementPage.tsx"));
const NewsListPage = page(() => import("../features/news/components/NewsListPage.tsx"));
const NewsDetailPage = page(() => import("../features/news/components/NewsDetailPage.tsx"));
const HelpCenterPage = page(() => import("../features/news/components/HelpCenterPage.tsx"));
const CustomerPage = page(() => import("../features/support/components/CustomerPage.tsx"));
const TicketNewPage = page(() => import("../features/support/components/TicketNewPage.tsx"));
const TicketPage = page(() => import("../features/support/components/TicketPage.tsx"));
const QuotationsPage = page(() => import("../features/quotations/components/QuotationsPage.tsx"));
const ExchangePage = page(() => import("../features/spot/components/ExchangePage.tsx"));
const ExchangeListsPage = page(() => import("../features/spot/components/ExchangeListsPage.tsx"));
const KlinePage = lazy(() => import("../features/kline/components/KlinePage.tsx"));
const SpotOrderSheet = lazy(() => import("../features/spot/components/OrderSheet.tsx"));
const ContractSheet = lazy(() => import("../features/seconds/components/OrderSheet.tsx"));
const LeverPage = lazy(() => import("../features/lever/components/LeverPage.tsx"));
/**
 * The chart page with the order dialog of where it was opened from plugged in (features never
 * import each other): /kline?from=trade (with mode=seconds) has up/down and the contract form,
 * otherwise buy/sell and the spot form.
 */
function KlineRoute() {
  const [params] = useSearchParams();
  return params.get("from") === "trade" ? <KlinePage OrderSheet={ContractSheet} trade /> : <KlinePage OrderSheet={SpotOrderSheet} />;
}
// Money in and out, the account area and the operator console.
const AssetsPage = page(() => import("../features/assets/components/AssetsPage.tsx"));
const PersonalPage = page(() => import("../features/personal/components/PersonalPage.tsx"));
const NotificationsPage = page(() => import("../features/notifications/components/NotificationsPage.tsx"));
const AlertsPage = page(() => import("../features/alerts/components/AlertsPage.tsx"));
const RechargePage = page(() => import("../features/wallet/components/RechargePage.tsx"));
const RecordsPage = page(() => import("../features/wallet/components/RecordsPage.tsx"));
const WithdrawalPage = page(() => import("../features/wallet/components/WithdrawalPage.tsx"));
const TransferPage = page(() => import("../features/wallet/components/TransferPage.tsx"));
const ExchargePage = page(() => import("../features/wallet/components/ExchargePage.tsx"));
const ExchargeLogPage = page(() => import("../features/wallet/components/ExchargeLogPage.tsx"));
// Every movement of one's money and what its frozen part is held for (issue #26).
const StatementPage = page(() => import("../features/wallet/components/StatementPage.tsx"));
const HoldsPage = page(() => import("../features/wallet/components/HoldsPage.tsx"));
const VerifyPage = page(() => import("../features/kyc/components/VerifyPage.tsx"));
const BankPage = page(() => import("../features/kyc/components/BankPage.tsx"));
const PasswordPage = page(() => import("../features/security/components/PasswordPage.tsx"));
const SecurityPage = page(() => import("../features/security/components/SecurityPage.tsx"));
const FundPasswordPage = page(() => import("../features/security/components/FundPasswordPage.tsx"));
const TotpPage = page(() => import("../features/security/components/TotpPage.tsx"));
const AddressesPage = page(() => import("../features/security/components/AddressesPage.tsx"));
const PasskeysPage = page(() => import("../features/security/components/PasskeysPage.tsx"));
const AntiPhishingPage = page(() => import("../features/security/components/AntiPhishingPage.tsx"));
const WhitelistPage = page(() => import("../features/security/components/WhitelistPage.tsx"));
// API keys for bots, signed-in devices, recent sign-ins and CSV exports (issue #29).
const ApiKeysPage = page(() => import("../features/access/components/ApiKeysPage.tsx"));
const DevicesPage = page(() => import("../features/access/components/DevicesPage.tsx"));
const LoginsPage = page(() => import("../features/access/components/LoginsPage.tsx"));
const ExportPage = page(() => import("../features/access/components/ExportPage.tsx"));
// Invitations (issue #18): one's code, team and rebates, and the public terms.
const InvitePage = page(() => import("../features/invite/components/InvitePage.tsx"));
const InviteTeamPage = page(() => import("../features/invite/components/TeamPage.tsx"));
const InviteRebatesPage = page(() => import("../features/invite/components/RebatesPage.tsx"));
const InviteTermsPage = page(() => import("../features/invite/components/TermsPage.tsx"));
// Listing votes (issue #19 §3): public rounds and tallies; voting needs a verified login.
const VotePage = page(() => import("../features/vote/components/VotePage.tsx"));
const InsurancePage = page(() => import("../features/insurance/components/InsurancePage.tsx"));
const InsuranceMyPage = page(() => import("../features/insurance/components/MyCoversPage.tsx"));
const LaunchPage = page(() => import("../features/launch/components/LaunchPage.tsx"));
const LaunchProjectPage = page(() => import("../features/launch/components/ProjectPage.tsx"));
const LaunchMyPage = page(() => import("../features/launch/components/MyPage.tsx"));
// Savings (issue #19 §1): products, one product's terms and subscription, one's positions.
const EarnPage = page(() => import("../features/earn/components/EarnPage.tsx"));
const EarnProductPage = page(() => import("../features/earn/components/ProductPage.tsx"));
// Mining plans (issue #20 §1): public plans and payouts; buying needs a verified login.
const MiningPage = page(() => import("../features/mining/components/MiningPage.tsx"));
const MiningPlanPage = page(() => import("../features/mining/components/PlanPage.tsx"));
const MiningMyPage = page(() => import("../features/mining/components/MyPage.tsx"));
const EarnPositionsPage = page(() => import("../features/earn/components/PositionsPage.tsx"));
// Transparency (issue #20): the public summary, proof of liabilities.
const TransparencyPage = page(() => import("../features/transparency/components/TransparencyPage.tsx"));
const LiabilitiesPage = page(() => import("../features/transparency/components/LiabilitiesPage.tsx"));
const AdminPage = page(() => import("../features/operator/components/AdminPage.tsx"));
const TradePage = page(() => import("../features/seconds/components/TradePage.tsx"));
const TradeListsPage = page(() => import("../features/seconds/components/TradeListsPage.tsx"));
// Every settlement checkable (issue #20 §3): a contract's ticks and recomputed result, a position's closing tick.
const TradeVerifyPage = page(() => import("../features/seconds/components/VerifyPage.tsx"));
const LeverVerifyPage = page(() => import("../features/lever/components/VerifyPage.tsx"));
// C2C (fiat trading with merchants).
const C2cMarketPage = page(() => import("../features/c2c/components/MarketPage.tsx"));
const C2cOrdersPage = page(() => import("../features/c2c/components/OrdersPage.tsx"));
const C2cShowPage = page(() => import("../features/c2c/components/ShowPage.tsx"));
const C2cPayPage = page(() => import("../features/c2c/components/PayPage.tsx"));
const C2cChatPage = page(() => import("../features/c2c/components/ChatPage.tsx"));
const C2cAppealPage = page(() => import("../features/c2c/components/AppealPage.tsx"));
const C2cMerchantPage = page(() => import("../features/c2c/components/MerchantPage.tsx"));
const C2cAdvertFormPage = page(() => import("../features/c2c/components/AdvertFormPage.tsx"));
const C2cPaymentPage = page(() => import("../features/c2c/components/PaymentPage.tsx"));

interface Entry {
  path: string;
  title: () => string;
  auth?: boolean;
  tab?: boolean;
  Component?: ComponentType;
}

/** Public and authenticated screens in spec order. Entries without a Component are placeholders. */
const entries: Entry[] = [
  { path: "/", title: m.title_home, ...tabRoute("/"), Component: HomePage },
  { path: "/login", title: m.title_login, Component: LoginPage },
  { path: "/register", title: m.title_register, Component: RegisterPage },
  { path: "/forget", title: m.title_forget, Component: ForgetPage },
  { path: "/lang", title: m.title_lang, Component: LangPage },
  { path: "/agreement", title: m.title_agreement, Component: AgreementPage },
  { path: "/customer", title: m.title_customer, Component: CustomerPage },
  { path: "/support/new", title: m.title_support_new, auth: true, Component: TicketNewPage },
  { path: "/support/ticket", title: m.title_support_ticket, auth: true, Component: TicketPage },
  // Titled "{currency}/USDT" (spec §2) from the pair the user tapped last.
  { path: "/kline", title: () => `${$session.get().currentCurrency}/${$session.get().legal_name}`, Component: KlineRoute },
  { path: "/quotations", title: m.title_quotations, ...tabRoute("/quotations"), Component: QuotationsPage },
  { path: "/news/list", title: m.title_news, Component: NewsListPage },
  { path: "/news/detail", title: m.title_news_detail, Component: NewsDetailPage },
  { path: "/help/center", title: m.title_help, Component: HelpCenterPage },
  { path: "/password", title: m.title_password, auth: true, Component: PasswordPage },
  { path: "/bank", title: m.title_bank, auth: true, Component: BankPage },
  { path: "/verifyed", title: m.title_verifyed, auth: true, Component: VerifyPage },
  { path: "/exchange", title: m.title_exchange, ...tabRoute("/exchange"), Component: ExchangePage },
  { path: "/exchange/lists", title: m.title_exchange_lists, auth: true, Component: ExchangeListsPage },
  { path: "/assets", title: m.title_assets, ...tabRoute("/assets"), Component: AssetsPage },
  { path: "/personal", title: m.title_personal, auth: true, Component: PersonalPage },
  { path: "/notifications", title: m.title_notifications, auth: true, Component: NotificationsPage },
  { path: "/alerts", title: m.title_alerts, auth: true, Component: AlertsPage },
  { path: "/statement", title: m.title_statement, auth: true, Component: StatementPage },
  { path: "/holds", title: m.title_holds, auth: true, Component: HoldsPage },
  { path: "/trade", title: m.title_trade, ...tabRoute("/trade"), Component: TradePage },
  { path: "/trade/lists", title: m.title_trade_lists, auth: true, Component: TradeListsPage },
  { path: "/trade/verify", title: m.title_trade_verify, auth: true, Component: TradeVerifyPage },
  { path: "/lever", title: m.title_lever, Component: LeverPage },
  { path: "/lever/verify", title: m.title_lever_verify, auth: true, Component: LeverVerifyPage },
  { path: "/recharge", title: m.title_recharge, auth: true, Component: RechargePage },
  { path: "/recharge/log", title: m.title_recharge_log, auth: true, Component: RecordsPage },
  { path: "/withdrawal", title: m.title_withdrawal, auth: true, Component: WithdrawalPage },
  { path: "/withdrawal/log", title: m.title_withdrawal_log, auth: true, Component: RecordsPage },
  { path: "/excharge", title: m.title_excharge, auth: true, Component: ExchargePage },
  { path: "/excharge/log", title: m.title_excharge_log, auth: true, Component: ExchargeLogPage },
  { path: "/transfer", title: m.title_transfer, Component: TransferPage },
  { path: "/security", title: m.sec_title, auth: true, Component: SecurityPage },
  { path: "/security/fund-password", title: m.sec_fund_title, auth: true, Component: FundPasswordPage },
  { path: "/security/authenticator", title: m.sec_totp_title, auth: true, Component: TotpPage },
  { path: "/security/addresses", title: m.sec_addresses_title, auth: true, Component: AddressesPage },
  { path: "/security/passkeys", title: m.sec_passkeys_title, auth: true, Component: PasskeysPage },
  { path: "/security/anti-phishing", title: m.sec_anti_title, auth: true, Component: AntiPhishingPage },
  { path: "/security/whitelist", title: m.sec_whitelist_title, auth: true, Component: WhitelistPage },
  { path: "/security/api-keys", title: m.apikey_title, auth: true, Component: ApiKeysPage },
  { path: "/security/devices", title: m.devices_title, auth: true, Component: DevicesPage },
  { path: "/security/logins", title: m.logins_title, auth: true, Component: LoginsPage },
  { path: "/security/export", title: m.export_title, auth: true, Component: ExportPage },
  { path: "/invite", title: m.title_invite, auth: true, Component: InvitePage },
  { path: "/invite/team", title: m.title_invite_team, auth: true, Component: InviteTeamPage },
  { path: "/invite/rebates", title: m.title_invite_rebates, auth: true, Component: InviteRebatesPage },
  { path: "/invite/terms", title: m.title_invite_terms, Component: InviteTermsPage },
  { path: "/vote", title: m.title_vote, Component: VotePage },
  { path: "/insurance", title: m.title_insurance, Component: InsurancePage },
  { path: "/insurance/my", title: m.title_insurance_my, auth: true, Component: InsuranceMyPage },
  { path: "/launch", title: m.title_launch, Component: LaunchPage },
  { path: "/launch/project", title: m.title_launch_project, Component: LaunchProjectPage },
  { path: "/launch/my", title: m.title_launch_my, auth: true, Component: LaunchMyPage },
  { path: "/earn", title: m.title_earn, Component: EarnPage },
  { path: "/earn/product", title: m.title_earn_product, Component: EarnProductPage },
  { path: "/earn/positions", title: m.title_earn_positions, auth: true, Component: EarnPositionsPage },
  { path: "/mining", title: m.title_mining, Component: MiningPage },
  { path: "/mining/plan", title: m.title_mining_plan, Component: MiningPlanPage },
  { path: "/mining/my", title: m.title_mining_my, auth: true, Component: MiningMyPage },
  // Public: the summary and the published totals need no login; one's own proof appears when logged in.
  { path: "/transparency", title: m.title_transparency, Component: TransparencyPage },
  { path: "/transparency/liabilities", title: m.title_liabilities, Component: LiabilitiesPage },
  { path: "/admin", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/deposits", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/withdrawals", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/kyc", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/users", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/user", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/adjustments", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/audit", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/reconcile", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/seconds", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/c2c-merchants", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/c2c-adverts", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/c2c-appeals", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/support", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/invite", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/vote", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/insurance", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/mining", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/launch", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/earn", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/admin/liabilities", title: m.op_title, auth: true, Component: AdminPage },
  { path: "/legal/index", title: m.title_legal, Component: C2cMarketPage },
  { path: "/legal/order", title: m.title_legal_order, auth: true, Component: C2cOrdersPage },
  { path: "/legal/show", title: m.title_legal_show, auth: true, Component: C2cShowPage },
  // Spec: "no auth flag"; it shows one's own order, so a login is needed all the same.
  { path: "/legal/pay", title: m.title_legal_pay, auth: true, Component: C2cPayPage },
  { path: "/legal/chat", title: m.title_legal_chat, auth: true, Component: C2cChatPage },
  { path: "/legal/appeal", title: m.title_legal_appeal, auth: true, Component: C2cAppealPage },
  { path: "/legal/merchant", title: m.title_legal_merchant, auth: true, Component: C2cMerchantPage },
  { path: "/legal/advert", title: m.title_legal_advert, auth: true, Component: C2cAdvertFormPage },
  { path: "/legal/payment", title: m.title_legal_payment, auth: true, Component: C2cPaymentPage },
];

function Placeholder({ title }: { title: () => string }) {
  return <ComingSoon title={title()} />;
}

export const routes: RouteObject[] = [
  {
    element: <Shell />,
    errorElement: <RouteError />,
    children: [
      ...entries.map<RouteObject>((e) => {
        const handle: RouteMeta = { title: e.title, auth: e.auth ?? false, tab: e.tab ?? false };
        const screen = e.Component ? <e.Component /> : <Placeholder title={e.title} />;
        // A screen of an optional product shows "not open here" when the deployment has it off. Built
        // screens say so themselves (seconds: features/seconds NotOpen); placeholders get the generic state.
        const product = e.Component ? null : productOfPath(e.path);
        const element = product ? <ProductGate product={product}>{screen}</ProductGate> : screen;
        return e.path === "/" ? { index: true, element, handle } : { path: e.path, element, handle };
      }),
      { path: "*", element: <NotFound />, handle: { title: m.title_not_found, auth: false, tab: false } satisfies RouteMeta },
    ],
  },
];
