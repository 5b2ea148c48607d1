/**
 * What a product declares for the reconciler (worker/domain/ledger/reconcile.ts): its hold sources,
 * the open commitments that explain its users' frozen funds. A product lists them in its
 * worker/domain/<area>/product.ts; worker/domain/products.ts gathers every product's.
 */
import type { WalletAccount } from "../../lib/ledger.ts";
import type { ProductId } from "../../../schemas/products.ts";

export interface Hold {
  userId: number;
  currencyId: number;
  account: WalletAccount;
  units: bigint;
}

/** A feature's open holds (e.g. pending withdrawals, open spot orders). */
export interface HoldSource {
  name: string;
  load(db: D1Database): Promise<Hold[]>;
}

/** A product's worker side (worker/domain/<area>/product.ts): its declaration's id and its hold sources. */
export interface ProductModule {
  id: ProductId;
  holdSources: readonly HoldSource[];
}
