/**
 * Internal (in-site) addresses and in-site withdrawals (spec §4 status 5 "in-site success").
 *
 * The exchange's chain deposit addresses are shared, so they identify nobody. Each user also has
 * one internal address, 'HX' + 30 hex characters of HMAC-SHA256(PEPPER, "internal:" + userId):
 * stable across runs, not guessable from the id. The row (migrations/0006) is written the first
 * time the user asks for their deposit addresses, so only an address that was shown resolves.
 *
 * A withdrawal to another user's internal address never touches a chain and costs nothing (the
 * published fee table applies to chain withdrawals only). It is ONE D1 batch: the movement
 * `withdraw-internal:{id}` (sender change available → recipient change available) and the
 * withdrawal row inserted as status 5 with recipient_user_id. Nothing is frozen, so there is no
 * hold for the reconciliation to explain; an overdraft aborts the whole batch (insufficient_balance).
 */
import { batchWithNewId, takenIn } from "../../lib/ids.ts";
import { ApiError } from "../../lib/errors.ts";
import { classifyBatchError, movementStatements } from "../../lib/ledger.ts";

const encoder = new TextEncoder();

/** The deterministic internal address of a user. */
export async function deriveInternalAddress(pepper: string, userId: number): Promise<string> {
  if (!pepper) throw new Error("PEPPER secret is not configured");
  const key = await crypto.subtle.importKey("raw", encoder.encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(`internal:${userId}`)));
  const hex = Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
  return `HX${hex.slice(0, 30)}`;
}

/** The user's internal address, created on first use (idempotent: the same value every time). */
export async function internalAddressOf(db: D1Database, pepper: string, userId: number): Promise<string> {
  const existing = await db.prepare("SELECT address FROM internal_addresses WHERE user_id = ?").bind(userId).first<{ address: string }>();
  if (existing) return existing.address;
  const address = await deriveInternalAddress(pepper, userId);
  await db
    .prepare("INSERT INTO internal_addresses (user_id, address, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING")
    .bind(userId, address, Date.now())
    .run();
  const row = await db.prepare("SELECT address FROM internal_addresses WHERE user_id = ?").bind(userId).first<{ address: string }>();
  return row!.address;
}

/** The owner of a (canonical) internal address, or null when no user was ever given it. */
export async function internalAddressOwner(db: D1Database, address: string): Promise<number | null> {
  const row = await db.prepare("SELECT user_id FROM internal_addresses WHERE address = ?").bind(address).first<{ user_id: number }>();
  return row?.user_id ?? null;
}

/** A sender as the recipient sees it: e-mail 'li***@example.com', phone '138****5678'. */
export function maskAccount(account: string): string {
  const at = account.indexOf("@");
  if (at > 0) {
    const name = account.slice(0, at);
    return `${name.slice(0, Math.min(2, name.length - 1))}***${account.slice(at)}`;
  }
  if (account.length <= 4) return "*".repeat(account.length);
  if (account.length <= 7) return `${account.slice(0, 1)}***${account.slice(-2)}`;
  return `${account.slice(0, 3)}****${account.slice(-4)}`;
}

export interface InSiteRequest {
  senderId: number;
  recipientId: number;
  currencyId: number;
  network: -1 | 0 | 1;
  address: string;
  memo: string;
  amount: bigint;
}

/**
 * Writes the batch `build(id)` with a new withdrawal id, taken before the batch so that its movement
 * key can carry the id (the statement links each movement to its withdrawal): time-ordered, drawn
 * again when taken (worker/lib/ids.ts). Returns the id; any other failure is thrown as it came.
 */
export function withNextWithdrawalId(db: D1Database, build: (id: number) => D1PreparedStatement[]): Promise<number> {
  return batchWithNewId(db, takenIn("withdrawals"), build);
}

/**
 * Moves `amount` from the sender's change available to the recipient's, and records the settled
 * withdrawal, in one batch (keyed by the withdrawal's id: withNextWithdrawalId). Returns the withdrawal id.
 */
export async function inSiteWithdrawal(db: D1Database, r: InSiteRequest): Promise<number> {
  if (r.senderId === r.recipientId) throw new ApiError("self_transfer");
  try {
    return await withNextWithdrawalId(db, (id) => {
      const key = `withdraw-internal:${id}`;
      const now = Date.now();
      return [
        ...movementStatements(
          db,
          key,
          "withdrawal_in_site",
          [
            { userId: r.senderId, currencyId: r.currencyId, account: "change", dAvailable: -r.amount, dFrozen: 0n, memo: `in-site withdrawal ${id}` },
            { userId: r.recipientId, currencyId: r.currencyId, account: "change", dAvailable: r.amount, dFrozen: 0n, memo: `in-site withdrawal ${id}` },
          ],
          now,
        ),
        db
          .prepare(
            `INSERT INTO withdrawals (id, user_id, currency_id, network, address, memo, amount, fee, status, freeze_key, recipient_user_id, settled_at, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, 0, 5, ?, ?, ?, ?)`,
          )
          .bind(id, r.senderId, r.currencyId, r.network, r.address, r.memo, r.amount.toString(), key, r.recipientId, now, now),
      ];
    });
  } catch (err) {
    const msg = String((err as Error)?.message ?? err);
    if (msg.includes("state_conflict")) throw new ApiError("state_conflict", 409);
    if (classifyBatchError(err) === "insufficient") throw new ApiError("insufficient_balance", 409);
    throw err;
  }
}
