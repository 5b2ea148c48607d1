/** Spot (schemas/products.ts "spot", the `change` account): open withdrawals and open orders explain its frozen funds. */
import type { ProductModule } from "../ledger/holds.ts";
import { withdrawalHolds } from "../withdrawals/holds.ts";
import { spotOrderHolds } from "./holds.ts";
import { spotConditionalHolds } from "./conditional.ts";

export const spotProduct: ProductModule = { id: "spot", holdSources: [withdrawalHolds, spotOrderHolds, spotConditionalHolds] };
