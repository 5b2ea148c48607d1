/** Conversion (schemas/products.ts "conversion"): executes at once on the spot account, so it holds nothing. */
import type { ProductModule } from "../ledger/holds.ts";

export const conversionProduct: ProductModule = { id: "conversion", holdSources: [] };
