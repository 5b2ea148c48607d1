/** Withdrawals: the published fee table, a currency's terms, the submit answer and the records. */
import { z } from "zod";
import { pageSchema } from "./envelope.ts";

/** One row of the public fee table (GET /api/wallet/fees). */
export const feeRowSchema = z.object({
  currency_id: z.number().int(),
  currency: z.string(),
  /** -1 the coin's own chain, 0 ERC20, 1 TRC20 */
  network: z.number().int(),
  network_name: z.string(),
  fee: z.string(),
  min: z.string(),
  max: z.string(),
});
export type FeeRow = z.infer<typeof feeRowSchema>;
export const feeTableSchema = z.array(feeRowSchema);

export const networkTermsSchema = z.object({
  /** -1 the coin's own chain (and the general rate), 0 ERC20, 1 TRC20. */
  type: z.number().int(),
  network_name: z.string(),
  fee: z.string(),
  min: z.string(),
  max: z.string(),
});
export type NetworkTerms = z.infer<typeof networkTermsSchema>;

/** POST /api/wallet/get_info: balance, fees and limits of one currency, and what the form needs. */
export const withdrawInfoSchema = z.object({
  currency: z.number().int(),
  currency_name: z.string(),
  change_balance: z.string(),
  lock_change_balance: z.string(),
  rate: z.string(),
  erc_rate: z.string(),
  trc_rate: z.string(),
  min: z.string(),
  max: z.string(),
  networks: z.array(networkTermsSchema),
  fees: z.array(networkTermsSchema),
  has_fund_password: z.boolean(),
  totp_enabled: z.boolean(),
  /** The account has passkeys: one can confirm instead of the authenticator code (and is needed without one). */
  has_passkey: z.boolean(),
  has_receiving_info: z.boolean(),
});
export type WithdrawInfo = z.infer<typeof withdrawInfoSchema>;

/** POST /api/wallet/out: status 0 applying (chain), or 5 done at once (in-site, `in_site` and `note`). */
export const withdrawalSubmittedSchema = z.object({
  id: z.number().int(),
  status: z.union([z.literal(0), z.literal(5)]),
  status_text: z.string(),
  in_site: z.literal(true).optional(),
  note: z.string().optional(),
  number: z.string(),
  charge: z.string(),
  total: z.string(),
});
export type WithdrawalSubmitted = z.infer<typeof withdrawalSubmittedSchema>;

/** Withdrawal statuses (spec §4): 0 applying … 5 in-site success. */
export const withdrawalStatusSchema = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]);

/** One row of GET /api/new/users/withdrawalLog. */
export const withdrawalRecordSchema = z.object({
  id: z.number().int(),
  currency_id: z.number().int(),
  currency_name: z.string(),
  network: z.number().int(),
  network_name: z.string(),
  address: z.string(),
  memo: z.string(),
  number: z.string(),
  rate: z.string(),
  charge: z.string(),
  real_number: z.string(),
  total: z.string(),
  status: withdrawalStatusSchema,
  status_text: z.string(),
  in_site: z.boolean(),
  reason: z.string(),
  txid: z.string(),
  time_format: z.string(),
});
export type WithdrawalRecord = z.infer<typeof withdrawalRecordSchema>;
export const withdrawalRecordPageSchema = pageSchema(withdrawalRecordSchema);
