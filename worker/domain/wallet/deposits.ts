/**
 * Deposits (spec §2 Deposit): the published deposit addresses and one's in-site address, claims
 * with a proof picture that an operator credits (large ones by two operators), and the record of
 * claims plus in-site transfers received.
 */
import type { z } from "zod";
import { formatUnits } from "../../../schemas/money.ts";
import { addressTipFor, depositStatusLabels, depositTipsFor, inSiteTexts, type depositRequestSchema } from "../../../schemas/wallet.ts";
import type { Locale } from "../../../schemas/locale.ts";
import { ApiError } from "../../lib/errors.ts";
import { qrPngDataUrl } from "../../lib/qr.ts";
import { rateLimit } from "../../lib/ratelimit.ts";
import { depositNeedsSecond } from "../operator/reviews.ts";
import { ownUpload, uploadUrl } from "../uploads/uploads.ts";
import { amountOrThrow, big, getCurrency, setting, settings, timeFormat } from "./currency.ts";
import { internalAddressOf, maskAccount } from "./internal-addresses.ts";

const MINUTE = 60_000;
/** Deposit claims a user may have waiting for review at once. */
export const MAX_PENDING_DEPOSITS = 5;

/** The enabled deposit addresses of a currency with QR codes, and the user's own in-site address. */
export async function depositAddresses(env: Pick<Env, "DB" | "PEPPER">, userId: number, currencyId: number, locale: Locale) {
  const db = env.DB;
  const cur = await getCurrency(db, currencyId);
  const { results } = await db
    .prepare("SELECT title, network, address, tips FROM deposit_addresses WHERE currency_id = ? AND enabled = 1 ORDER BY sort, id")
    .bind(cur.id)
    .all<{ title: string; network: string; address: string; tips: string }>();
  if (results.length === 0) throw new ApiError("currency_unsupported");
  const list = await Promise.all(
    results.map(async (r) => ({
      title: r.title,
      currency_id: cur.id,
      currency: cur.name,
      network: r.network,
      address: r.address,
      qrcode: await qrPngDataUrl(r.address),
      tips: addressTipFor(locale, r.tips),
    })),
  );
  const type = Number(await setting(db, "userchongbi_type", "1")) === 2 ? 2 : 1;
  // The user's own in-site address (same for every currency): other users send here for free.
  const own = await internalAddressOf(db, env.PEPPER, userId);
  const internal = { address: own, qrcode: await qrPngDataUrl(own), tips: inSiteTexts[locale].tips };
  const note = await settings(db, { deposit_tips: "", [`deposit_tips_${locale}`]: "" });
  const tips = depositTipsFor(locale, note.deposit_tips ?? "", note[`deposit_tips_${locale}`] ?? "");
  return { list, userchongbi_type: type, tips, internal };
}

/**
 * Records a deposit claim to a published address with one's own proof picture: at most 20 well-formed
 * claims an hour and MAX_PENDING_DEPOSITS waiting at once.
 */
export async function claimDeposit(env: Pick<Env, "DB" | "DEPOSIT_SECOND_APPROVAL_USDT">, userId: number, b: z.output<typeof depositRequestSchema>, locale: Locale) {
  const db = env.DB;
  const cur = await getCurrency(db, b.currency);
  const amount = amountOrThrow(b.amount, cur.scale);
  const address = await db
    .prepare("SELECT address, network FROM deposit_addresses WHERE currency_id = ? AND address = ? AND enabled = 1")
    .bind(cur.id, b.acc)
    .first<{ address: string; network: string }>();
  if (!address) throw new ApiError("address_invalid");
  const pic = await ownUpload(db, userId, b.pic, "pic");
  await rateLimit(db, `deposit:${userId}`, 20, 60 * MINUTE);
  const pending = await db.prepare("SELECT count(*) AS n FROM deposits WHERE user_id = ? AND status = 0").bind(userId).first<{ n: number }>();
  if ((pending?.n ?? 0) >= MAX_PENDING_DEPOSITS) throw new ApiError("pending_limit", 429);
  // Large claims are marked for two operators at once (the first approval checks again at its price).
  const needsSecond = await depositNeedsSecond(db, cur.id, amount, env.DEPOSIT_SECOND_APPROVAL_USDT);
  const row = await db
    .prepare("INSERT INTO deposits (user_id, currency_id, amount, address, network, tx_hash, pic, needs_second, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")
    .bind(userId, cur.id, amount.toString(), address.address, b.type || address.network, b.hash, pic, needsSecond ? 1 : 0, Date.now())
    .first<{ id: number }>();
  return { id: row!.id, status: 0 as const, status_text: depositStatusLabels[locale][0] };
}

/** One's deposit claims plus in-site transfers received (withdrawals of other users with status 5), newest first. */
export async function depositRecords(db: D1Database, uid: number, page: number, limit: number, locale: Locale) {
  const labels = depositStatusLabels[locale];
  const [count, rows] = await db.batch([
    db
      .prepare("SELECT (SELECT count(*) FROM deposits WHERE user_id = ?1) + (SELECT count(*) FROM withdrawals WHERE recipient_user_id = ?1 AND status = 5) AS n")
      .bind(uid),
    db
      .prepare(
        `SELECT r.*, c.name, c.scale FROM (
           SELECT 'chain' AS kind, d.id, d.currency_id, d.amount, d.address, d.network, d.tx_hash, d.pic, d.status, d.reason, d.created_at, '' AS sender
             FROM deposits d WHERE d.user_id = ?1
           UNION ALL
           SELECT 'in_site', w.id, w.currency_id, w.amount, w.address, '', '', '', 1, '', w.created_at, u.account
             FROM withdrawals w JOIN users u ON u.id = w.user_id WHERE w.recipient_user_id = ?1 AND w.status = 5
         ) r JOIN currencies c ON c.id = r.currency_id ORDER BY r.created_at DESC, r.id DESC LIMIT ?2 OFFSET ?3`,
      )
      .bind(uid, limit, (page - 1) * limit),
  ]);
  type Row = { kind: "chain" | "in_site"; id: number; currency_id: number; amount: number; address: string; network: string; tx_hash: string; pic: string; status: 0 | 1 | 2; reason: string; created_at: number; sender: string; name: string; scale: number };
  const from = inSiteTexts[locale].from;
  return {
    total: (count!.results?.[0] as { n: number } | undefined)?.n ?? 0,
    lists: ((rows!.results ?? []) as Row[]).map((r) => ({
      id: r.id,
      kind: r.kind,
      note: r.kind === "in_site" ? from.replace("{sender}", maskAccount(r.sender)) : "",
      status: r.status,
      status_text: labels[r.status],
      time_format: timeFormat(r.created_at),
      currency_id: r.currency_id,
      currency_name: r.name,
      amount: formatUnits(big(r.amount), r.scale),
      pic: r.pic ? uploadUrl(r.pic) : "",
      address: r.address,
      network: r.network,
      hash: r.tx_hash,
      reason: r.reason,
    })),
  };
}
