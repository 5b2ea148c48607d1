/**
 * The asset centre (POST /api/wallet/list): every product's account per currency valued in USDT at real
 * last prices; the spot-account list (GET /api/user/user_wallet); transfers between own accounts.
 * Amounts are decimal strings at the currency's scale.
 */
import { z } from "zod";
import type { WalletAccountName } from "./wallet.ts";
import { ACCOUNT_NAMES } from "./products.ts";

/** One coin in one account. Balance fields are named after the account (change_balance, lock_micro_balance …). */
function walletRowSchema<A extends WalletAccountName>(account: A) {
  const balances = { [`${account}_balance`]: z.string(), [`lock_${account}_balance`]: z.string() } as Record<`${A}_balance` | `lock_${A}_balance`, z.ZodString>;
  return z.object({
    currency: z.number().int(),
    currency_name: z.string(),
    show: z.number().int(),
    /** value in USDT, 2 decimals */
    usdt_totle: z.string(),
    /** Last traded price in USDT; null when the coin has never traded (its value then counts as 0). */
    usdt_price: z.string().nullable(),
    ...balances,
  });
}

const walletSchema = <A extends WalletAccountName>(account: A) => z.object({ usdt_totle: z.string(), balance: z.array(walletRowSchema(account)) });

/** `{account}_wallet` per declared account (schemas/products.ts): change_wallet, micro_wallet, legal_wallet, lever_wallet. */
type WalletsShape = { [A in WalletAccountName as `${A}_wallet`]: ReturnType<typeof walletSchema<A>> };
const walletsShape = Object.fromEntries(ACCOUNT_NAMES.map((a) => [`${a}_wallet`, walletSchema(a)])) as unknown as WalletsShape;

export const walletListSchema = z.object({
  ...walletsShape,
  total_usdt: z.string(),
  /** Realised profit is not tracked: always "0.00". */
  totalProfits: z.string(),
});
export type WalletList = z.infer<typeof walletListSchema>;
export type WalletRow<A extends WalletAccountName> = z.infer<ReturnType<typeof walletRowSchema<A>>>;

/** GET /api/user/user_wallet: every shown currency with its spot-account balance and scale. */
export const userWalletRowSchema = z.object({
  currency: z.number().int(),
  currency_name: z.string(),
  change_balance: z.string(),
  lock_change_balance: z.string(),
  decimals: z.number().int(),
});
export type UserWalletRow = z.infer<typeof userWalletRowSchema>;
export const userWalletSchema = z.array(userWalletRowSchema);

/** POST /api/wallet/change */
export const transferDoneSchema = z.object({ currency_id: z.number().int(), from_field: z.string(), to_field: z.string(), number: z.string() });
export type TransferDone = z.infer<typeof transferDoneSchema>;
