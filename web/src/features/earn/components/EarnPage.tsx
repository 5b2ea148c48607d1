/**
 * Savings (/earn, issue #19 §1): the open products, each with its coin, term (flexible or 7/30/90
 * days), APR, per-person limits and where its interest comes from ("paid from the exchange's
 * reserved marketing budget of N; M remain"). A card opens the product's terms and subscription.
 */
import { Link } from "react-router";
import { m, useLocale } from "../../../i18n/index.ts";
import { formatMoney } from "../../../lib/format.ts";
import { CoinAvatar } from "../../../components/CoinAvatar.tsx";
import { ProductGate } from "../../../components/ProductGate.tsx";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useProducts, type EarnProduct } from "../api.ts";
import { sourceText, termLabel } from "../labels.ts";
import acct from "../../../components/account.module.css";
import s from "./earn.module.css";

function ProductCard({ p }: { p: EarnProduct }) {
  return (
    <Link to={`/earn/product?id=${p.id}`} className={s.card} data-testid="earn-product">
      <div className={s.cardHead}>
        <span className={s.coin}>
          <CoinAvatar symbol={p.currency} size={24} />
          {p.currency}
          <span className="badge badge-none" data-testid="earn-term">{termLabel(p)}</span>
        </span>
        <span className={s.apr}>
          <span className={`${s.aprValue} num`} data-testid="earn-apr">{p.apr}%</span>
          <span className={s.aprLabel}>{m.earn_apr()}</span>
        </span>
      </div>
      <dl className={acct.kv}>
        <div className={acct.kvRow}>
          <dt>{m.earn_limits()}</dt>
          <dd className="num">
            {formatMoney(p.min_amount, p.currency)} – {formatMoney(p.max_amount, p.currency)} {p.currency}
          </dd>
        </div>
      </dl>
      <p className={s.source} data-testid="earn-source">{sourceText(p)}</p>
    </Link>
  );
}

function Products() {
  useLocale();
  const products = useProducts();
  return (
    <div className={acct.acctPage} data-testid="earn-page">
      <p className="form-note">{m.earn_savings_intro()}</p>
      <div className={s.links}>
        <Link to="/earn/positions" className="btn btn-outline btn-small" data-testid="earn-my-link">
          {m.earn_my_positions()}
        </Link>
      </div>
      {products.loading ? (
        <SkeletonList rows={3} />
      ) : products.error ? (
        <ErrorState message={products.error.message} onRetry={products.reload} />
      ) : (products.data ?? []).length === 0 ? (
        <EmptyState text={m.earn_empty()} />
      ) : (
        <div className={acct.recordList}>
          {products.data!.map((p) => (
            <ProductCard key={p.id} p={p} />
          ))}
        </div>
      )}
    </div>
  );
}

export default function EarnPage() {
  return (
    <ProductGate product="earn">
      <Products />
    </ProductGate>
  );
}
