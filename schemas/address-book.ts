/** The withdrawal address book (GET/POST /api/user/addresses, POST /api/user/addresses/delete). */
import { z } from "zod";

export const savedAddressSchema = z.object({
  id: z.number().int(),
  currency_id: z.number().int(),
  currency_name: z.string().nullable(),
  /** -1 the coin's own chain, 0 ERC20, 1 TRC20 */
  network: z.number().int(),
  network_name: z.string(),
  address: z.string(),
  label: z.string(),
  memo: z.string(),
  created_at: z.string(),
  /** Added while the withdrawal whitelist was on: usable from this Beijing time; null once usable. */
  usable_from: z.string().nullable(),
});
export type SavedAddress = z.infer<typeof savedAddressSchema>;

export const savedAddressListSchema = z.array(savedAddressSchema);

export const addressAddedSchema = savedAddressSchema.omit({ currency_name: true, network_name: true, created_at: true });
export type AddressAdded = z.infer<typeof addressAddedSchema>;

export const addressDeletedSchema = z.object({ deleted: z.literal(true) });
