/** C2C (schemas/products.ts "c2c", the `legal` account): merchant deposits, sell-advert escrow and running orders explain its frozen funds. */
import type { ProductModule } from "../ledger/holds.ts";
import { c2cHolds } from "./holds.ts";

export const c2cProduct: ProductModule = { id: "c2c", holdSources: [c2cHolds] };
