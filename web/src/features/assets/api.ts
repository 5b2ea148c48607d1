/** The asset centre's one call (spec §7 POST /api/wallet/list): three accounts valued in USDT. */
import { api } from "../../lib/api.ts";

export type AccountName = "change" | "micro" | "legal";
export const ACCOUNTS: readonly AccountName[] = ["change", "micro", "legal"];

/** One coin in one account. Balance fields are named after the account (change_balance, lock_micro_balance …). */
export interface WalletRow {
  currency: number;
  currency_name: string;
  show: number;
  usdt_totle: string;
  /** Last traded price in USDT; null when the coin has never traded (its value then counts as 0). */
  usdt_price: string | null;
  [field: string]: string | number | null;
}

export interface Wallet {
  usdt_totle: string;
  balance: WalletRow[];
}

export interface WalletList {
  change_wallet: Wallet;
  micro_wallet: Wallet;
  legal_wallet: Wallet;
  total_usdt: string;
  totalProfits: string;
}

export const fetchWallets = (signal?: AbortSignal) => api.post<WalletList>("/api/wallet/list", undefined, { notify: false, signal });

export function walletOf(list: WalletList, account: AccountName): Wallet {
  return account === "change" ? list.change_wallet : account === "micro" ? list.micro_wallet : list.legal_wallet;
}

/** Available and frozen amounts of a row, as the decimal strings the API sent. */
export function amountsOf(row: WalletRow, account: AccountName): { available: string; frozen: string } {
  const available = row[`${account}_balance`];
  const frozen = row[`lock_${account}_balance`];
  return { available: typeof available === "string" ? available : "0", frozen: typeof frozen === "string" ? frozen : "0" };
}
