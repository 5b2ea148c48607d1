/**
 * The withdrawal address book: at most MAX_ADDRESSES per user, each scoped to its owner. Changes
 * are frozen by the settings lock (checked in the change's own batch) and notified; an address
 * added while the withdrawal whitelist is on can be used only ADDRESS_COOLING_MS later.
 */
import type { z } from "zod";
import { networkName, type addressBookAddSchema } from "../../../schemas/wallet.ts";
import { getCurrency, timeFormat } from "../wallet/currency.ts";
import { now } from "../../lib/clock.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { formatShanghai } from "../../lib/time.ts";
import { announceNotifications } from "../notifications/inbox.ts";
import { feeRows, hasNetworks } from "../withdrawals/withdrawals.ts";
import { batchUnlessLocked, refuseWhileLocked, securityNotice } from "./settings-lock.ts";

export const MAX_ADDRESSES = 50;
/** How long an address added while the whitelist is on waits before a withdrawal may use it. */
export const ADDRESS_COOLING_MS = 24 * 3600 * 1000;

/** One's saved addresses, newest first, optionally of one currency. */
export async function listAddresses(db: D1Database, uid: number, currency: number | undefined) {
  const { results } = await db
    .prepare(
      `SELECT a.id, a.currency_id, c.name AS currency_name, a.network, a.address, a.label, a.memo, a.created_at, a.usable_at
         FROM withdraw_addresses a LEFT JOIN currencies c ON c.id = a.currency_id
        WHERE a.user_id = ? AND (?2 IS NULL OR a.currency_id = ?2) ORDER BY a.id DESC`,
    )
    .bind(uid, currency ?? null)
    .all<{ id: number; currency_id: number; currency_name: string | null; network: number; address: string; label: string; memo: string; created_at: number; usable_at: number }>();
  const at = now();
  return results.map(({ usable_at, ...r }) => ({
    ...r,
    network_name: networkName(r.network, r.currency_name ?? ""),
    created_at: timeFormat(r.created_at),
    usable_from: usable_at > at ? formatShanghai(usable_at) : null,
  }));
}

/**
 * Adds an address (the network is required for a currency with networks). With the whitelist on,
 * it opens ADDRESS_COOLING_MS later; the whitelist's state is read in the INSERT itself.
 */
export async function addAddress(env: Env, uid: number, b: z.output<typeof addressBookAddSchema>) {
  const db = env.DB;
  await refuseWhileLocked(db, uid);
  const cur = await getCurrency(db, b.currency);
  const network = hasNetworks(await feeRows(db, cur)) ? b.type : -1;
  if (network === undefined) throw new ApiError("missing_field", 400, { field: "type" });
  const count = await db.prepare("SELECT count(*) AS n FROM withdraw_addresses WHERE user_id = ?").bind(uid).first<{ n: number }>();
  if ((count?.n ?? 0) >= MAX_ADDRESSES) throw new ApiError("address_limit", 409, { max: MAX_ADDRESSES });
  const at = now();
  let results: D1Result[];
  try {
    results = await batchUnlessLocked(db, uid, [
      db
        .prepare(
          `INSERT INTO withdraw_addresses (user_id, currency_id, network, address, label, memo, created_at, usable_at)
           SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, CASE WHEN u.withdraw_whitelist = 1 THEN ?7 + ?8 ELSE 0 END FROM users u WHERE u.id = ?1
           RETURNING id, usable_at`,
        )
        .bind(uid, cur.id, network, b.address, b.label, b.memo, at, ADDRESS_COOLING_MS),
      securityNotice(db, uid, "security_address_added", { currency: cur.name, address: b.address }, at),
    ], at);
  } catch (err) {
    if (/UNIQUE constraint failed/i.test(String(err))) throw new ApiError("address_exists", 409);
    throw err;
  }
  const row = results[0]?.results?.[0] as { id: number; usable_at: number } | undefined;
  if (!row) throw new ApiError("try_again", 503);
  await announceNotifications(env, [uid]);
  return { id: row.id, currency_id: cur.id, network, address: b.address, label: b.label, memo: b.memo, usable_from: row.usable_at > at ? formatShanghai(row.usable_at) : null };
}

/** Deletes one of one's addresses; someone else's answers exactly like a missing one. */
export async function deleteAddress(env: Env, uid: number, id: number): Promise<void> {
  const db = env.DB;
  const row = await db
    .prepare("SELECT a.address, c.name FROM withdraw_addresses a LEFT JOIN currencies c ON c.id = a.currency_id WHERE a.id = ? AND a.user_id = ?")
    .bind(id, uid)
    .first<{ address: string; name: string | null }>();
  if (!row) throw notFound();
  const [del] = await batchUnlessLocked(db, uid, [
    db.prepare("DELETE FROM withdraw_addresses WHERE id = ? AND user_id = ?").bind(id, uid),
    securityNotice(db, uid, "security_address_removed", { currency: row.name ?? "", address: row.address }),
  ]);
  if (del?.meta.changes !== 1) throw notFound();
  await announceNotifications(env, [uid]);
}
