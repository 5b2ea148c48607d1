/**
 * Money in and out (spec §7): deposit addresses and claims, withdrawals with the published fee
 * table, transfers between own accounts, flash exchange, and their records. Amounts stay
 * decimal strings at the currency's scale.
 */
import type { UserWalletRow, WalletList } from "../../../../schemas/assets.ts";
import type { SavedAddress } from "../../../../schemas/address-book.ts";
import type { ConversionDone, ConversionRecord, ConversionSettings } from "../../../../schemas/conversion.ts";
import type { DepositAddress, DepositAddresses, DepositRecord } from "../../../../schemas/deposit.ts";
import type { FeeRow, NetworkTerms, WithdrawalRecord, WithdrawInfo } from "../../../../schemas/withdrawal.ts";
import { call, client } from "../../lib/api.ts";
import type { AccountName } from "../../lib/products.ts";
import { pagesById, sharedKeys, useCallMutation, usePagedQuery, useScreenQuery } from "../../lib/query.ts";

export type { ConversionRecord, ConversionSettings, DepositAddress, DepositAddresses, DepositRecord, FeeRow, NetworkTerms, SavedAddress, UserWalletRow, WalletList, WithdrawalRecord, WithdrawInfo };
export type ConversionResult = ConversionDone;

export const USDT_ID = 3;
export type { AccountName };

// ── currencies and balances ──────────────────────────────────────────────────────────────────

/** GET /api/user/user_wallet: every shown currency with its spot-account balance and scale. */
export const fetchUserWallet = (signal?: AbortSignal) => call((o) => client.api.user.user_wallet.$get({}, o), { notify: false, signal });

export const fetchWalletList = (signal?: AbortSignal) => call((o) => client.api.wallet.list.$post({}, o), { notify: false, signal });

/** The available balance of one currency in one account, from the wallet list. */
export function availableIn(list: WalletList, account: AccountName, currency: number): string {
  const wallet = list[`${account}_wallet`];
  const row = (wallet.balance as Record<string, unknown>[]).find((r) => r.currency === currency);
  const v = row?.[`${account}_balance`];
  return typeof v === "string" ? v : "0";
}

// ── transfer ─────────────────────────────────────────────────────────────────────────────────

export const transfer = (body: { number: string; from_field: AccountName; to_field: AccountName; currency_id: number }) =>
  call((o) => client.api.wallet.change.$post({ json: body }, o));

// ── deposit ──────────────────────────────────────────────────────────────────────────────────

export const fetchDepositAddresses = (currency: number, lang: string, signal?: AbortSignal) =>
  call((o) => client.api.wallet.get_in_address.$post({ json: { currency, lang } }, o), { notify: false, signal });

export const submitDeposit = (body: { currency: number; type: string; acc: string; amount: string; pic: string; hash?: string }) =>
  call((o) => client.api.wallet.charge_req.$post({ json: body }, o));

export const fetchDepositLog = (page: number, signal?: AbortSignal) =>
  call((o) => client.api.new.users.rechargeLog.$get({ query: { page: String(page) } }, o), { notify: false, signal });

// ── withdrawal ───────────────────────────────────────────────────────────────────────────────

export const fetchWithdrawInfo = (currency: number, signal?: AbortSignal) =>
  call((o) => client.api.wallet.get_info.$post({ json: { currency } }, o), { notify: false, signal });

export const fetchFeeTable = (signal?: AbortSignal) => call((o) => client.api.wallet.fees.$get({}, o), { notify: false, signal });

export interface WithdrawRequest {
  currency: number;
  address: string;
  number: string;
  /** A network of the server's fee table (0 ERC20, 1 TRC20); the server checks it. */
  type?: number;
  password: string;
  charge: string;
  totp_code?: string;
}
export const submitWithdrawal = (body: WithdrawRequest) =>
  call((o) => client.api.wallet.out.$post({ json: { ...body, type: body.type as 0 | 1 | undefined } }, o), { notify: false });

export const fetchWithdrawalLog = (page: number, signal?: AbortSignal) =>
  call((o) => client.api.new.users.withdrawalLog.$get({ query: { page: String(page) } }, o), { notify: false, signal });

export const fetchSavedAddresses = (currency: number, signal?: AbortSignal) =>
  call((o) => client.api.user.addresses.$get({ query: { currency: String(currency) } }, o), { notify: false, signal });

// ── flash exchange ───────────────────────────────────────────────────────────────────────────

export const fetchConversionSettings = (signal?: AbortSignal) => call((o) => client.api.user.shandui_set.$get({}, o), { notify: false, signal });

/** Prices a conversion and holds that price for a few seconds (its quote_id executes it). */
export const requestQuote = (body: { from_currency: number; to_currency: number; money: string }) =>
  call((o) => client.api.user.shandui_quote.$post({ json: body }, o), { notify: false });

/** Executes exactly a quote, or fails with quote_expired. */
export const convert = (body: { quote_id: string }) => call((o) => client.api.user.shandui_sub.$post({ json: body }, o), { notify: false });

/** The spec's own page shape (`lists.count`, `lists.data`) as the usual `{ total, lists }`. */
export const fetchConversionLog = async (page: number, signal?: AbortSignal): Promise<{ total: number; lists: ConversionRecord[] }> => {
  const res = await call((o) => client.api.user.shandui_log.$get({ query: { page: String(page), limit: "20" } }, o), { notify: false, signal });
  return { total: res.lists.count, lists: res.lists.data };
};

// ── queries and mutations ────────────────────────────────────────────────────────────────────

const balances = sharedKeys.balances;

export const useUserWallet = () => useScreenQuery({ queryKey: [...balances, "userWallet"], queryFn: ({ signal }) => fetchUserWallet(signal) });
export const useWalletList = () => useScreenQuery({ queryKey: [...balances, "wallets"], queryFn: ({ signal }) => fetchWalletList(signal) });
export const useDepositAddresses = (currency: number, lang: string) =>
  useScreenQuery({ queryKey: ["depositAddresses", currency, lang], queryFn: ({ signal }) => fetchDepositAddresses(currency, lang, signal) });
/** Limits, fee terms and the available balance of a currency: a balance, so money moves invalidate it. */
export const useWithdrawInfo = (currency: number) =>
  useScreenQuery({ queryKey: [...balances, "withdrawInfo", currency], queryFn: ({ signal }) => fetchWithdrawInfo(currency, signal) });
/** The published withdrawal fee table (every coin and network). */
export const useFeeTable = () => useScreenQuery({ queryKey: ["feeTable"], queryFn: ({ signal }) => fetchFeeTable(signal) });
export const useSavedAddresses = (currency: number) =>
  useScreenQuery({ queryKey: [...sharedKeys.addresses, currency], queryFn: ({ signal }) => fetchSavedAddresses(currency, signal) });
/** Rates move: the flash-exchange terms refresh every 10 s while the screen is open. */
export const useConversionSettings = () =>
  useScreenQuery({ queryKey: ["conversionSettings"], queryFn: ({ signal }) => fetchConversionSettings(signal), refetchInterval: 10_000 });

export const useDepositLog = () => usePagedQuery({ queryKey: ["records", "deposits"], fetchPage: fetchDepositLog, view: pagesById<DepositRecord> });
export const useWithdrawalLog = () => usePagedQuery({ queryKey: ["records", "withdrawals"], fetchPage: fetchWithdrawalLog, view: pagesById<WithdrawalRecord> });
export const useConversionLog = () => usePagedQuery({ queryKey: ["records", "conversions"], fetchPage: fetchConversionLog, view: pagesById<ConversionRecord> });

/** Moving money changes every balance and the record lists. */
const moneyMoved = [balances, ["records"]] as const;
export const useTransfer = () => useCallMutation(transfer, moneyMoved);
export const useConvert = () => useCallMutation(convert, moneyMoved);
export const useSubmitWithdrawal = () => useCallMutation(submitWithdrawal, moneyMoved);
export const useSubmitDeposit = () => useCallMutation(submitDeposit, moneyMoved);
