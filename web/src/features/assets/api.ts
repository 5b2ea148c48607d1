/** The asset centre's one call (spec §7 POST /api/wallet/list): every product's account valued in USDT (spot, seconds, fiat, lever). */
import type { WalletList } from "../../../../schemas/assets.ts";
import type { AccountName } from "../../lib/products.ts";
import { call, client } from "../../lib/api.ts";
import { sharedKeys, useScreenQuery } from "../../lib/query.ts";

export type { WalletList };
export type { AccountName };

export type Wallet = WalletList[`${AccountName}_wallet`];
/** One coin in one account. Balance fields are named after the account (change_balance, lock_micro_balance …). */
export type WalletRow = Wallet["balance"][number];

export const fetchWallets = (signal?: AbortSignal) => call((o) => client.api.wallet.list.$post({}, o), { notify: false, signal });

export function walletOf(list: WalletList, account: AccountName): Wallet {
  return list[`${account}_wallet`];
}

/** Available and frozen amounts of a row, as the decimal strings the API sent. */
export function amountsOf(row: WalletRow, account: AccountName): { available: string; frozen: string } {
  const fields = row as Record<string, unknown>;
  const available = fields[`${account}_balance`];
  const frozen = fields[`lock_${account}_balance`];
  return { available: typeof available === "string" ? available : "0", frozen: typeof frozen === "string" ? frozen : "0" };
}

/** The asset centre refreshes every 15 s while open. */
export const useWallets = () =>
  useScreenQuery({ queryKey: [...sharedKeys.balances, "wallets"], queryFn: ({ signal }) => fetchWallets(signal), refetchInterval: 15_000 });
