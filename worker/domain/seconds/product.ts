/** Seconds contracts (schemas/products.ts "seconds", the `micro` account): unsettled contracts explain its frozen funds and the house's. */
import type { ProductModule } from "../ledger/holds.ts";
import { secondsHolds } from "./orders.ts";

export const secondsProduct: ProductModule = { id: "seconds", holdSources: [secondsHolds] };
