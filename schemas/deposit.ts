/** Deposits: addresses to send to, claims with a proof picture, and the deposit records. */
import { z } from "zod";
import { pageSchema } from "./envelope.ts";

export const depositAddressSchema = z.object({
  title: z.string(),
  currency_id: z.number().int(),
  currency: z.string(),
  network: z.string(),
  address: z.string(),
  /** A PNG data URL drawn by the server. */
  qrcode: z.string(),
  tips: z.string(),
});
export type DepositAddress = z.infer<typeof depositAddressSchema>;

/** POST /api/wallet/get_in_address */
export const depositAddressesSchema = z.object({
  list: z.array(depositAddressSchema),
  /** 2: show the tips text first and let the user pick; otherwise the first address is pre-selected. */
  userchongbi_type: z.number().int(),
  tips: z.string(),
  /** The user's own in-site address: other users of the exchange send here instantly, free. */
  internal: z.object({ address: z.string(), qrcode: z.string(), tips: z.string() }),
});
export type DepositAddresses = z.infer<typeof depositAddressesSchema>;

/** POST /api/wallet/charge_req: the claim waits for an operator (status 0). */
export const depositClaimedSchema = z.object({ id: z.number().int(), status: z.literal(0), status_text: z.string() });

/** Deposit statuses: 0 applying, 1 credited, 2 rejected. */
export const depositStatusSchema = z.union([z.literal(0), z.literal(1), z.literal(2)]);

/** One row of GET /api/new/users/rechargeLog. */
export const depositRecordSchema = z.object({
  id: z.number().int(),
  /** "in_site": received from another user's in-site withdrawal (no proof picture). */
  kind: z.enum(["chain", "in_site"]),
  note: z.string(),
  status: depositStatusSchema,
  status_text: z.string(),
  time_format: z.string(),
  currency_id: z.number().int(),
  currency_name: z.string(),
  amount: z.string(),
  pic: z.string(),
  address: z.string(),
  network: z.string(),
  hash: z.string(),
  reason: z.string(),
});
export type DepositRecord = z.infer<typeof depositRecordSchema>;
export const depositRecordPageSchema = pageSchema(depositRecordSchema);
