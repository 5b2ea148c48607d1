/**
 * The products' worker side, gathered: each product's worker/domain/<area>/product.ts, in the
 * order of their declarations (schemas/products.ts). The reconciler iterates these hold sources
 * and imports no product; a new product adds its module to this list (tests/api/products.test.ts
 * checks that every declared product has exactly one).
 */
import type { HoldSource, ProductModule } from "./ledger/holds.ts";
import { spotProduct } from "./spot/product.ts";
import { secondsProduct } from "./seconds/product.ts";
import { c2cProduct } from "./c2c/product.ts";
import { leverProduct } from "./lever/product.ts";
import { conversionProduct } from "./conversion/product.ts";
import { voteProduct } from "./vote/product.ts";
import { insuranceProduct } from "./insurance/product.ts";
import { launchProduct } from "./launch/product.ts";
import { earnProduct } from "./earn/product.ts";
import { miningProduct } from "./mining/product.ts";

export const PRODUCT_MODULES: readonly ProductModule[] = [spotProduct, secondsProduct, c2cProduct, leverProduct, conversionProduct, voteProduct, insuranceProduct, launchProduct, earnProduct, miningProduct];

/** Every product's hold sources, in order; a source listed by two products counts once. */
export function holdSourcesOf(modules: readonly ProductModule[] = PRODUCT_MODULES): HoldSource[] {
  const out: HoldSource[] = [];
  for (const m of modules) for (const s of m.holdSources) if (!out.some((o) => o.name === s.name)) out.push(s);
  return out;
}
