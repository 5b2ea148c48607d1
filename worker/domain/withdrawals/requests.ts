/**
 * Withdrawal requests (spec §2 Withdrawal): the published fee table, the terms a form shows, a
 * request (fund password and authenticator checked; amount + fee frozen with the withdrawal row in
 * one batch; an internal address is an instant, free in-site transfer), and one's record.
 * What happens after the request is in ./withdrawals.ts.
 */
import type { z } from "zod";
import { formatUnits, parseUnits } from "../../../schemas/money.ts";
import type { Locale } from "../../../schemas/locale.ts";
import { inSiteTexts, networkName, normalizeInternalAddress, withdrawalStatusLabels, type withdrawalSchema } from "../../../schemas/wallet.ts";
import type { FeeRow as PublishedFee, WithdrawalSubmitted } from "../../../schemas/withdrawal.ts";
import { ApiError } from "../../lib/errors.ts";
import { guardedError } from "../../lib/guarded.ts";
import { balanceOf, movementStatements } from "../../lib/ledger.ts";
import { checkFundPassword } from "../account/security.ts";
import { checkSecondFactor, checkWhitelist } from "../account/guards.ts";
import type { RelyingParty } from "../account/passkeys.ts";
import { inSiteRecord, inSiteWithdrawal, internalAddressOwner, withNextWithdrawalId } from "../wallet/internal-addresses.ts";
import { amountOrThrow, big, getCurrency, listCurrencies, timeFormat } from "../wallet/currency.ts";
import { balanceIn, type AccountReads } from "../wallet/object-reads.ts";
import { cheaperFirst, feeRows, hasNetworks, termsFor } from "./withdrawals.ts";
import { holdThenRecord, inSiteLegs } from "./objects.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";

const fmt = (units: bigint, scale: number) => formatUnits(units, scale);

/** The published fee table: fee, min and max per currency and network. */
export async function feeTable(db: D1Database): Promise<PublishedFee[]> {
  const currencies = await listCurrencies(db);
  const out: PublishedFee[] = [];
  for (const cur of currencies) {
    const rows = await feeRows(db, cur);
    for (const r of rows) {
      const t = termsFor(rows, r.network);
      if (t) out.push({ currency_id: cur.id, currency: cur.name, network: r.network, network_name: networkName(r.network, cur.name), fee: fmt(t.fee, cur.scale), min: fmt(t.min, cur.scale), max: fmt(t.max, cur.scale) });
    }
  }
  return out;
}

/** The withdrawal terms of a currency and what the form needs (balance, second factors). */
export async function withdrawInfo(db: D1Database, uid: number, currencyId: number, reads: AccountReads | null = null) {
  const cur = await getCurrency(db, currencyId);
  const rows = await feeRows(db, cur);
  const general = termsFor(rows, -1);
  if (!general) throw new ApiError("currency_unsupported");
  const erc = termsFor(rows, 0);
  const trc = termsFor(rows, 1);
  const [bal, security] = await Promise.all([
    // What the user can withdraw: the spot account's available balance (the account object's, exactly, in objects mode).
    reads ? reads.balances(uid).then((rows) => balanceIn(rows, "change", cur.id)) : balanceOf(db, uid, cur.id, "change"),
    db
      .prepare(
        `SELECT u.fund_password_hash IS NOT NULL AS fp, EXISTS (SELECT 1 FROM totp_secrets t WHERE t.user_id = u.id AND t.enabled = 1) AS totp,
                EXISTS (SELECT 1 FROM passkeys p WHERE p.user_id = u.id) AS passkey,
                EXISTS (SELECT 1 FROM bank_cards b WHERE b.user_id = u.id) AS bank FROM users u WHERE u.id = ?`,
      )
      .bind(uid)
      .first<{ fp: number; totp: number; passkey: number; bank: number }>(),
  ]);
  const terms = (network: -1 | 0 | 1) => {
    const t = termsFor(rows, network)!;
    return { type: network, network_name: networkName(network, cur.name), fee: fmt(t.fee, cur.scale), min: fmt(t.min, cur.scale), max: fmt(t.max, cur.scale) };
  };
  return {
    currency: cur.id,
    currency_name: cur.name,
    change_balance: fmt(bal.available, cur.scale),
    lock_change_balance: fmt(bal.frozen, cur.scale),
    rate: fmt(general.fee, cur.scale),
    erc_rate: erc ? fmt(erc.fee, cur.scale) : "0",
    trc_rate: trc ? fmt(trc.fee, cur.scale) : "0",
    min: fmt(general.min, cur.scale),
    max: fmt(general.max, cur.scale),
    // The cheaper network first (the form pre-selects it); equal fees keep the table's order.
    networks: hasNetworks(rows) ? cheaperFirst(rows.filter((r) => r.network !== -1)).map((r) => terms(r.network)) : [],
    fees: [terms(-1), ...rows.filter((r) => r.network !== -1).map((r) => terms(r.network))],
    has_fund_password: security?.fp === 1,
    totp_enabled: security?.totp === 1,
    has_passkey: security?.passkey === 1,
    has_receiving_info: security?.bank === 1,
  };
}

/** Requests a withdrawal, or settles it in-site when the address is another user's internal one. */
export async function requestWithdrawal(env: Env, userId: number, b: z.output<typeof withdrawalSchema>, locale: Locale, rp: RelyingParty): Promise<WithdrawalSubmitted> {
  const db = env.DB;
  const cur = await getCurrency(db, b.currency);
  const rows = await feeRows(db, cur);
  if (rows.length === 0) throw new ApiError("currency_unsupported");
  // An internal address ('HX' + 30 hex) is settled in-site: another user's address is a free,
  // instant transfer (status 5); one's own is refused; an address that resolves to nobody is
  // refused as invalid (it is not a chain address of any supported coin, so it is never sent).
  const internal = normalizeInternalAddress(b.address);
  let recipientId: number | null = null;
  if (internal) {
    recipientId = await internalAddressOwner(db, internal);
    if (recipientId === null) throw new ApiError("address_invalid");
    if (recipientId === userId) throw new ApiError("self_transfer");
  }
  let network: -1 | 0 | 1 = -1;
  if (hasNetworks(rows)) {
    if (b.type !== undefined) network = b.type as 0 | 1;
    else if (recipientId === null) throw new ApiError("missing_field", 400, { field: "type" });
  }
  const terms = termsFor(rows, network);
  if (!terms) throw new ApiError("currency_unsupported");
  // The published fee table applies to chain withdrawals only; in-site transfers cost nothing.
  const fee = recipientId === null ? terms.fee : 0n;
  const amount = amountOrThrow(b.number, cur.scale);
  if (amount < terms.min) throw new ApiError("below_min", 400, { min: `${fmt(terms.min, cur.scale)} ${cur.name}` });
  if (amount > terms.max) throw new ApiError("above_max", 400, { max: `${fmt(terms.max, cur.scale)} ${cur.name}` });
  // The client's charge/rate are only a confirmation of what it showed; the table decides.
  for (const shown of [b.charge, b.rate]) {
    if (shown === undefined) continue;
    const units = parseUnits(shown, cur.scale);
    if (units === null || units !== fee) throw new ApiError("fee_mismatch", 409, { fee: `${fmt(fee, cur.scale)} ${cur.name}` });
  }
  // With the whitelist on, only to the address book (and a new entry only after it cooled).
  await checkWhitelist(db, userId, { currencyId: cur.id, network, address: internal ?? b.address, inSite: recipientId !== null });
  // A coin withdrawal needs no bank card: the receiving-account gate (997) is for fiat (C2C).
  await checkFundPassword(env, userId, b.password);
  // The authenticator code, or a passkey instead (an account with passkeys only needs one).
  await checkSecondFactor(env, userId, b, rp, { required: false });
  const objects = accountsOnObjects(env);
  if (recipientId !== null && internal) {
    const to = recipientId;
    const id = objects
      ? await holdThenRecord(env, userId, cur.id, amount, (wid, now) => ({
          statements: [inSiteRecord(db, wid, { senderId: userId, recipientId: to, currencyId: cur.id, network: -1, address: internal, memo: b.memo, amount }, `withdrawal:${wid}`, now)],
          legs: inSiteLegs(wid, userId, to, cur.id, amount),
        }))
      : await inSiteWithdrawal(db, { senderId: userId, recipientId, currencyId: cur.id, network: -1, address: internal, memo: b.memo, amount });
    return {
      id,
      status: 5,
      status_text: withdrawalStatusLabels[locale][5],
      in_site: true,
      number: fmt(amount, cur.scale),
      charge: fmt(0n, cur.scale),
      total: fmt(amount, cur.scale),
      note: inSiteTexts[locale].note,
    };
  }
  const total = amount + terms.fee;
  // The freeze is keyed by the withdrawal's id, so the statement links it to its record.
  let id: number;
  // Objects mode: the hold in the user's object first, then the record (./objects.ts).
  if (objects) id = await holdThenRecord(env, userId, cur.id, total, (wid, now) => ({ statements: [chainRecord(db, wid, userId, cur.id, network, b, amount, terms.fee, `withdrawal:${wid}`, now)], legs: [] }));
  else
    try {
      id = await withNextWithdrawalId(db, (wid) => {
        const key = `withdrawal-freeze:${wid}`;
        const now = Date.now();
        return [
          ...movementStatements(db, key, "withdrawal_freeze", [{ userId, currencyId: cur.id, account: "change", dAvailable: -total, dFrozen: total }], now),
          chainRecord(db, wid, userId, cur.id, network, b, amount, terms.fee, key, now),
        ];
      });
    } catch (err) {
      throw guardedError(err);
    }
  return {
    id,
    status: 0,
    status_text: withdrawalStatusLabels[locale][0],
    number: fmt(amount, cur.scale),
    charge: fmt(terms.fee, cur.scale),
    total: fmt(total, cur.scale),
  };
}

/** The record of a chain withdrawal request (status 0), `key` the movement or hold that froze amount + fee. */
function chainRecord(db: D1Database, id: number, userId: number, currencyId: number, network: -1 | 0 | 1, b: { address: string; memo: string }, amount: bigint, fee: bigint, key: string, now: number) {
  return db
    .prepare("INSERT INTO withdrawals (id, user_id, currency_id, network, address, memo, amount, fee, freeze_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    .bind(id, userId, currencyId, network, b.address, b.memo, amount.toString(), fee.toString(), key, now);
}

/** One's withdrawals, newest first. */
export async function withdrawalRecords(db: D1Database, uid: number, page: number, limit: number, locale: Locale) {
  const labels = withdrawalStatusLabels[locale];
  const [count, rows] = await db.batch([
    db.prepare("SELECT count(*) AS n FROM withdrawals WHERE user_id = ?").bind(uid),
    db
      .prepare(
        `SELECT w.id, w.currency_id, w.network, w.address, w.memo, w.amount, w.fee, w.status, w.reason, w.txid, w.created_at, w.recipient_user_id, c.name, c.scale
           FROM withdrawals w JOIN currencies c ON c.id = w.currency_id WHERE w.user_id = ? ORDER BY w.id DESC LIMIT ? OFFSET ?`,
      )
      .bind(uid, limit, (page - 1) * limit),
  ]);
  type Row = { id: number; currency_id: number; network: number; address: string; memo: string; amount: number; fee: number; status: 0 | 1 | 2 | 3 | 4 | 5; reason: string; txid: string; created_at: number; recipient_user_id: number | null; name: string; scale: number };
  return {
    total: (count!.results?.[0] as { n: number } | undefined)?.n ?? 0,
    lists: ((rows!.results ?? []) as Row[]).map((r) => ({
      id: r.id,
      currency_id: r.currency_id,
      currency_name: r.name,
      network: r.network,
      network_name: networkName(r.network, r.name),
      address: r.address,
      memo: r.memo,
      number: fmt(big(r.amount), r.scale),
      rate: fmt(big(r.fee), r.scale),
      charge: fmt(big(r.fee), r.scale),
      real_number: fmt(big(r.amount), r.scale),
      total: fmt(big(r.amount) + big(r.fee), r.scale),
      status: r.status,
      status_text: labels[r.status],
      in_site: r.recipient_user_id !== null,
      reason: r.reason,
      txid: r.txid,
      time_format: timeFormat(r.created_at),
    })),
  };
}
