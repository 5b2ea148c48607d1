/**
 * A screen of an optional product (DESIGN §1 product switches): shown only when the deployment
 * has the product on; otherwise a plain "not open here" state, also for a typed-in or bookmarked
 * address. While the switches load, nothing of the product is shown.
 */
import type { ReactNode } from "react";
import { Link } from "react-router";
import { m, useLocale } from "../i18n/index.ts";
import { useProducts, type Products } from "../lib/products.ts";
import { Icon } from "./Icon.tsx";

export function ProductGate({ product, children }: { product: keyof Products; children: ReactNode }) {
  useLocale();
  const products = useProducts();
  if (products === null) return <div className="skeleton" aria-busy="true" style={{ height: 120, margin: 16 }} />;
  if (products[product]) return <>{children}</>;
  return (
    <div className="coming-soon" data-testid="product-off" data-product={product}>
      <div className="coming-soon-icon">
        <Icon name="shield" size={34} />
      </div>
      <h2>{m.product_off_title()}</h2>
      <p>{m.product_off_body()}</p>
      <Link to="/" className="btn btn-outline btn-small">
        {m.back_home()}
      </Link>
    </div>
  );
}
