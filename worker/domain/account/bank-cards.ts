/** The receiving bank card (spec §2 Bank): one per user, its bank named from the card number when known. */
import type { z } from "zod";
import type { bankCardSchema } from "../../../schemas/kyc.ts";
import type { Locale } from "../../../schemas/locale.ts";
import { ApiError } from "../../lib/errors.ts";
import { maskCard } from "../kyc/state.ts";
import { bankNameFor } from "./banks.ts";

/** Saves (or replaces) the user's card; answers it with the number masked. */
export async function saveBankCard(db: D1Database, uid: number, b: z.output<typeof bankCardSchema>, locale: Locale) {
  const bankName = bankNameFor(b.bank_account, locale) ?? b.bank_name;
  if (!bankName) throw new ApiError("missing_field", 400, { field: "bank_name" });
  await db
    .prepare(
      `INSERT INTO bank_cards (user_id, real_name, bank_account, bank_name, bank_branch, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET real_name = excluded.real_name, bank_account = excluded.bank_account,
         bank_name = excluded.bank_name, bank_branch = excluded.bank_branch, updated_at = excluded.updated_at`,
    )
    .bind(uid, b.real_name, b.bank_account, bankName, b.bank_branch, Date.now())
    .run();
  return { real_name: b.real_name, bank_account: maskCard(b.bank_account), bank_name: bankName, bank_branch: b.bank_branch };
}
