/**
 * Money in and out (spec §7): deposit addresses and claims, withdrawals with the published fee
 * table, transfers between own accounts, flash exchange, and their records. Amounts stay
 * decimal strings at the currency's scale.
 */
import { api } from "../../lib/api.ts";
import type { Page } from "../../lib/usePaged.ts";

export const USDT_ID = 3;
export type AccountName = "change" | "micro" | "legal";
export const ACCOUNTS: readonly AccountName[] = ["change", "micro", "legal"];

// ── currencies and balances ──────────────────────────────────────────────────────────────────

/** GET /api/user/user_wallet: every shown currency with its spot-account balance and scale. */
export interface UserWalletRow {
  currency: number;
  currency_name: string;
  change_balance: string;
  lock_change_balance: string;
  decimals: number;
}
export const fetchUserWallet = (signal?: AbortSignal) => api.get<UserWalletRow[]>("/api/user/user_wallet", { notify: false, signal });

export interface WalletListRow {
  currency: number;
  currency_name: string;
  show: number;
  usdt_totle: string;
  usdt_price: string | null;
  [field: string]: string | number | null;
}
export interface WalletList {
  change_wallet: { usdt_totle: string; balance: WalletListRow[] };
  micro_wallet: { usdt_totle: string; balance: WalletListRow[] };
  legal_wallet: { usdt_totle: string; balance: WalletListRow[] };
  total_usdt: string;
}
export const fetchWalletList = (signal?: AbortSignal) => api.post<WalletList>("/api/wallet/list", undefined, { notify: false, signal });

/** The available balance of one currency in one account, from the wallet list. */
export function availableIn(list: WalletList, account: AccountName, currency: number): string {
  const wallet = account === "change" ? list.change_wallet : account === "micro" ? list.micro_wallet : list.legal_wallet;
  const row = wallet.balance.find((r) => r.currency === currency);
  const v = row?.[`${account}_balance`];
  return typeof v === "string" ? v : "0";
}

// ── transfer ─────────────────────────────────────────────────────────────────────────────────

export const transfer = (body: { number: string; from_field: AccountName; to_field: AccountName; currency_id: number }) =>
  api.post<{ currency_id: number; from_field: string; to_field: string; number: string }>("/api/wallet/change", body);

// ── deposit ──────────────────────────────────────────────────────────────────────────────────

export interface DepositAddress {
  title: string;
  currency_id: number;
  currency: string;
  network: string;
  address: string;
  /** A PNG data URL drawn by the server. */
  qrcode: string;
  tips: string;
}
export interface DepositAddresses {
  list: DepositAddress[];
  /** 2: show the tips text first and let the user pick; otherwise the first address is pre-selected. */
  userchongbi_type: number;
  tips: string;
  /** The user's own in-site address: other users of the exchange send here instantly, free. */
  internal?: { address: string; qrcode: string; tips: string };
}
export const fetchDepositAddresses = (currency: number, lang: string, signal?: AbortSignal) =>
  api.post<DepositAddresses>("/api/wallet/get_in_address", { currency, lang }, { notify: false, signal });

export const submitDeposit = (body: { currency: number; type: string; acc: string; amount: string; pic: string; hash?: string }) =>
  api.post<{ id: number; status: number; status_text: string }>("/api/wallet/charge_req", body);

export interface DepositRecord {
  id: number;
  /** "in_site": received from another user's in-site withdrawal (no proof picture). */
  kind?: "chain" | "in_site";
  note?: string;
  status: 0 | 1 | 2;
  status_text: string;
  time_format: string;
  currency_name: string;
  amount: string;
  pic: string;
  address: string;
  network: string;
  hash: string;
  reason: string;
}
export const fetchDepositLog = (page: number, signal?: AbortSignal) =>
  api.get<Page<DepositRecord>>("/api/new/users/rechargeLog", { query: { page }, notify: false, signal });

// ── withdrawal ───────────────────────────────────────────────────────────────────────────────

export interface NetworkTerms {
  /** -1 the coin's own chain (and the general rate), 0 ERC20, 1 TRC20. */
  type: number;
  network_name: string;
  fee: string;
  min: string;
  max: string;
}
export interface WithdrawInfo {
  currency: number;
  currency_name: string;
  change_balance: string;
  lock_change_balance: string;
  rate: string;
  erc_rate: string;
  trc_rate: string;
  min: string;
  max: string;
  networks: NetworkTerms[];
  fees: NetworkTerms[];
  has_fund_password: boolean;
  totp_enabled: boolean;
  has_receiving_info: boolean;
}
export const fetchWithdrawInfo = (currency: number, signal?: AbortSignal) =>
  api.post<WithdrawInfo>("/api/wallet/get_info", { currency }, { notify: false, signal });

/** One row of the public fee table (GET /api/wallet/fees). */
export interface FeeRow {
  currency_id: number;
  currency: string;
  network: number;
  network_name: string;
  fee: string;
  min: string;
  max: string;
}
export const fetchFeeTable = (signal?: AbortSignal) => api.get<FeeRow[]>("/api/wallet/fees", { notify: false, signal });

export interface WithdrawRequest {
  currency: number;
  address: string;
  number: string;
  type?: number;
  password: string;
  charge: string;
  totp_code?: string;
}
export const submitWithdrawal = (body: WithdrawRequest) =>
  api.post<{ id: number; status: number; status_text: string; number: string; charge: string; total: string; in_site?: boolean; note?: string }>("/api/wallet/out", body, {
    notify: false,
  });

export interface WithdrawalRecord {
  id: number;
  currency_name: string;
  network: number;
  network_name: string;
  address: string;
  number: string;
  rate: string;
  charge: string;
  real_number: string;
  total: string;
  status: 0 | 1 | 2 | 3 | 4 | 5;
  status_text: string;
  in_site?: boolean;
  reason: string;
  txid: string;
  time_format: string;
}
export const fetchWithdrawalLog = (page: number, signal?: AbortSignal) =>
  api.get<Page<WithdrawalRecord>>("/api/new/users/withdrawalLog", { query: { page }, notify: false, signal });

export interface SavedAddress {
  id: number;
  currency_id: number;
  network: number;
  network_name: string;
  address: string;
  label: string;
  memo: string;
}
export const fetchSavedAddresses = (currency: number, signal?: AbortSignal) =>
  api.get<SavedAddress[]>("/api/user/addresses", { query: { currency }, notify: false, signal });

// ── flash exchange ───────────────────────────────────────────────────────────────────────────

export interface ConversionSettings {
  shandui_sxf1: string;
  shandui_sxf2: string;
  shandui_sxf_money: string;
  shanduiMin: string;
  shanduiMax: string;
  shandui_time: string;
  fee_currency: string;
  prices: { currency_id: number; currency_name: string; price: string | null }[];
}
export const fetchConversionSettings = (signal?: AbortSignal) => api.get<ConversionSettings>("/api/user/shandui_set", { notify: false, signal });

export interface ConversionResult {
  from: string;
  to: string;
  money: string;
  money2: string;
  money2_display: string;
  huilv: string;
  price: string;
  sxf: string;
  fee_percent: string;
  usdt_value: string;
}
export const convert = (body: { from_currency: number; to_currency: number; money: string }) =>
  api.post<ConversionResult>("/api/user/shandui_sub", body, { notify: false });

export interface ConversionRecord {
  id: number;
  money: string;
  money2: string;
  from: string;
  to: string;
  huilv: string;
  price: string;
  sxf: string;
  fee_percent: string;
  addtime: string;
}
export const fetchConversionLog = async (page: number, signal?: AbortSignal): Promise<Page<ConversionRecord>> => {
  const res = await api.get<{ lists: { count: number; data: ConversionRecord[] } }>("/api/user/shandui_log", { query: { page, limit: 20 }, notify: false, signal });
  return { total: res.lists.count, lists: res.lists.data };
};
