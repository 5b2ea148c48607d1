/** Leveraged contracts (schemas/products.ts "lever", the `lever` account): open positions explain its frozen margin and the house's hold. */
import type { ProductModule } from "../ledger/holds.ts";
import { leverHolds } from "./positions.ts";

export const leverProduct: ProductModule = { id: "lever", holdSources: [leverHolds] };
