/**
 * Home (spec §2): banners, the notice ticker, the BTC/DOGE/ETH strip, shortcuts and the market
 * list. Data refreshes every 10 s; every price is the API's own value (no cosmetic jitter,
 * DESIGN §1). Tapping a market opens the chart for it.
 */
import { useNavigate } from "react-router";
import { selectCurrency, type QuotationRow } from "../../../lib/market.ts";
import { ErrorState, SkeletonBlock, SkeletonList } from "../../../components/States.tsx";
import { useHome } from "../api.ts";
import { BannerCarousel } from "./BannerCarousel.tsx";
import { MarketList } from "./MarketList.tsx";
import { NoticeTicker } from "./NoticeTicker.tsx";
import { PriceStrip } from "./PriceStrip.tsx";
import { Shortcuts } from "./Shortcuts.tsx";
import { EarnEntries } from "../../../components/EarnEntries.tsx";
import s from "./home.module.css";

export default function HomePage() {
  const navigate = useNavigate();
  const { data, error, loading, reload } = useHome();

  if (loading && !data) {
    return (
      <div className={`${s.home} page-pad`} data-testid="home-loading">
        <SkeletonBlock height={140} />
        <SkeletonBlock height={64} />
        <SkeletonList rows={5} avatar />
      </div>
    );
  }
  if (error && !data) return <ErrorState message={error.message} onRetry={reload} />;
  if (!data) return null;

  const rows = data.quotation_new?.[0]?.quotation ?? [];
  const open = (row: QuotationRow) => {
    selectCurrency(row);
    navigate("/kline");
  };

  return (
    <div className={`${s.home} page-pad`} data-testid="home">
      <BannerCarousel banners={data.banner_list ?? []} />
      <NoticeTicker notices={data.notice_list ?? []} />
      <PriceStrip rows={rows} onOpen={open} />
      <Shortcuts />
      <EarnEntries variant="tiles" />
      <MarketList rows={rows} onOpen={open} />
    </div>
  );
}
