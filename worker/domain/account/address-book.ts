/** The withdrawal address book: at most MAX_ADDRESSES per user, each scoped to its owner. */
import type { z } from "zod";
import { networkName, type addressBookAddSchema } from "../../../schemas/wallet.ts";
import { getCurrency, timeFormat } from "../wallet/currency.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { feeRows, hasNetworks } from "../withdrawals/withdrawals.ts";

export const MAX_ADDRESSES = 50;

/** One's saved addresses, newest first, optionally of one currency. */
export async function listAddresses(db: D1Database, uid: number, currency: number | undefined) {
  const { results } = await db
    .prepare(
      `SELECT a.id, a.currency_id, c.name AS currency_name, a.network, a.address, a.label, a.memo, a.created_at
         FROM withdraw_addresses a LEFT JOIN currencies c ON c.id = a.currency_id
        WHERE a.user_id = ? AND (?2 IS NULL OR a.currency_id = ?2) ORDER BY a.id DESC`,
    )
    .bind(uid, currency ?? null)
    .all<{ id: number; currency_id: number; currency_name: string | null; network: number; address: string; label: string; memo: string; created_at: number }>();
  return results.map((r) => ({ ...r, network_name: networkName(r.network, r.currency_name ?? ""), created_at: timeFormat(r.created_at) }));
}

/** Adds an address (the network is required for a currency with networks). */
export async function addAddress(db: D1Database, uid: number, b: z.output<typeof addressBookAddSchema>) {
  const cur = await getCurrency(db, b.currency);
  const network = hasNetworks(await feeRows(db, cur)) ? b.type : -1;
  if (network === undefined) throw new ApiError("missing_field", 400, { field: "type" });
  const count = await db.prepare("SELECT count(*) AS n FROM withdraw_addresses WHERE user_id = ?").bind(uid).first<{ n: number }>();
  if ((count?.n ?? 0) >= MAX_ADDRESSES) throw new ApiError("address_limit", 409, { max: MAX_ADDRESSES });
  try {
    const row = await db
      .prepare("INSERT INTO withdraw_addresses (user_id, currency_id, network, address, label, memo, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id")
      .bind(uid, cur.id, network, b.address, b.label, b.memo, Date.now())
      .first<{ id: number }>();
    return { id: row!.id, currency_id: cur.id, network, address: b.address, label: b.label, memo: b.memo };
  } catch (err) {
    if (/UNIQUE constraint failed/i.test(String(err))) throw new ApiError("address_exists", 409);
    throw err;
  }
}

/** Deletes one of one's addresses; someone else's answers exactly like a missing one. */
export async function deleteAddress(db: D1Database, uid: number, id: number): Promise<void> {
  const r = await db.prepare("DELETE FROM withdraw_addresses WHERE id = ? AND user_id = ?").bind(id, uid).run();
  if (r.meta.changes !== 1) throw notFound();
}
