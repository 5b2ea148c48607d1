/**
 * Account area (spec §2 Personal, Bank, Verification, security labels; §7): identity verification
 * in three levels, the personal centre, the receiving bank card, the fund password, the
 * authenticator app and the withdrawal address book. Everything is scoped to the session's user.
 */
import { Hono } from "hono";
import { parseUnits, formatUnits } from "../../schemas/money.ts";
import {
  bankCardSchema,
  bankCardViewSchema,
  bankLookupSchema,
  bankNameQuerySchema,
  fundPasswordSchema,
  fundPasswordSetSchema,
  identityFormSchema,
  identitySubmittedSchema,
  luhnValid,
  totpCodeSchema,
  totpEnrolmentSchema,
  totpStateSchema,
  userCenterSchema,
} from "../../schemas/kyc.ts";
import { addressBookAddSchema, addressListQuerySchema, idBodySchema, networkNames } from "../../schemas/wallet.ts";
import { requireUser } from "../lib/auth.ts";
import { bankNameFor } from "../lib/banks.ts";
import type { AppEnv } from "../lib/context.ts";
import { getCurrency, setting, timeFormat } from "../lib/currency.ts";
import { ApiError, notFound } from "../lib/errors.ts";
import { kycState, maskCard, maskId } from "../lib/kyc.ts";
import { hashPassword, verifyPassword } from "../lib/password.ts";
import { holdingsInBtc, usdtPrices } from "../lib/prices.ts";
import { qrPngDataUrl } from "../lib/qr.ts";
import { rateLimit } from "../lib/ratelimit.ts";
import { answers, ok } from "../lib/respond.ts";
import { addressAddedSchema, addressDeletedSchema, savedAddressListSchema } from "../../schemas/address-book.ts";
import { checkFundPassword, checkTotpIfEnabled } from "../lib/security.ts";
import { consumeCode, encryptSecret, newSecret, otpauthUri } from "../lib/totp.ts";
import { ownUpload } from "../lib/uploads.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { feeRows, hasNetworks } from "../lib/withdrawals.ts";

const MINUTE = 60_000;
export const MAX_ADDRESSES = 50;

export const accountRoutes = new Hono<AppEnv>()
  // ── Identity verification ───────────────────────────────────────────────────────────────────
  .post("/user/real_name", requireUser, jsonBody(identityFormSchema), answers(identitySubmittedSchema, { summary: "Submit identity verification (levels 1-3) for review", auth: true }), async (c) => {
    const db = c.env.DB;
    const user = c.get("user");
    const f = c.req.valid("json");
    await rateLimit(db, `kyc:${user.id}`, 10, 60 * MINUTE);
    const state = await kycState(db, user.id);
    if (state.pending) throw new ApiError("kyc_under_review", 409);
    const hasPics = Boolean(f.front_pic || f.reverse_pic || f.hand_pic);
    const level = f.level ?? (f.asset_pic ? 3 : hasPics ? 2 : 1);
    if (level <= state.approvedLevel) throw new ApiError("kyc_approved", 409);

    // The fields of every level between the approved one and the one applied for are required.
    const needs1 = state.approvedLevel < 1;
    const needs2 = level >= 2 && state.approvedLevel < 2;
    const needs3 = level === 3;
    const has1 = f.name !== undefined || f.type !== undefined || f.card_id !== undefined;
    if (needs1 && level > 1 && !has1) throw new ApiError("kyc_level_order", 400, { level: 1 });
    if (needs2 && level > 2 && !hasPics) throw new ApiError("kyc_level_order", 400, { level: 2 });
    const row = {
      name: null as string | null,
      type: null as number | null,
      card_id: null as string | null,
      front_pic: null as string | null,
      reverse_pic: null as string | null,
      hand_pic: null as string | null,
      asset_pic: null as string | null,
      asset_btc: null as string | null,
    };
    if (needs1) {
      if (f.name === undefined) throw new ApiError("missing_field", 400, { field: "name" });
      if (f.type === undefined) throw new ApiError("missing_field", 400, { field: "type" });
      if (f.card_id === undefined) throw new ApiError("missing_field", 400, { field: "card_id" });
      Object.assign(row, { name: f.name, type: f.type, card_id: f.card_id.toUpperCase() });
    }
    if (needs2) {
      row.front_pic = await ownUpload(db, user.id, f.front_pic, "front_pic");
      row.reverse_pic = await ownUpload(db, user.id, f.reverse_pic, "reverse_pic");
      row.hand_pic = await ownUpload(db, user.id, f.hand_pic, "hand_pic");
    }
    if (needs3) {
      row.asset_pic = await ownUpload(db, user.id, f.asset_pic, "asset_pic");
      // Level 3 needs assets above the threshold, valued in BTC at real last prices.
      const minText = await setting(db, "kyc_level3_min_btc", "20");
      const min = parseUnits(minText, 8) ?? 20n * 10n ** 8n;
      const { results } = await db
        .prepare("SELECT b.currency_id, CAST(b.available + b.frozen AS TEXT) AS u, c.scale FROM balances b JOIN currencies c ON c.id = b.currency_id WHERE b.user_id = ?")
        .bind(user.id)
        .all<{ currency_id: number; u: string; scale: number }>();
      const btc = holdingsInBtc(
        results.map((r) => ({ currencyId: r.currency_id, units: BigInt(r.u), scale: r.scale })),
        await usdtPrices(db),
      );
      if (btc <= min) throw new ApiError("kyc_assets_low", 400, { min: minText, value: formatUnits(btc, 8) });
      row.asset_btc = formatUnits(btc, 8);
    }
    const now = Date.now();
    try {
      await db.batch([
        db
          .prepare(
            `INSERT INTO kyc_submissions (user_id, level, name, type, card_id, front_pic, reverse_pic, hand_pic, asset_pic, asset_btc, status, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
          )
          .bind(user.id, level, row.name, row.type, row.card_id, row.front_pic, row.reverse_pic, row.hand_pic, row.asset_pic, row.asset_btc, now),
        db.prepare("UPDATE users SET review_status = CASE WHEN review_status = 2 THEN 2 ELSE 1 END WHERE id = ?").bind(user.id),
      ]);
    } catch (err) {
      if (/UNIQUE constraint failed/i.test(String(err))) throw new ApiError("kyc_under_review", 409);
      throw err;
    }
    const status = await db.prepare("SELECT review_status FROM users WHERE id = ?").bind(user.id).first<{ review_status: number }>();
    return ok(c, { level, review_status: status?.review_status ?? 1, submitted: true as const });
  })
  .get("/user/center", requireUser, answers(userCenterSchema, { summary: "Profile, identity state and security flags", auth: true }), async (c) => {
    const db = c.env.DB;
    const uid = c.get("user").id;
    const [u, bank, totp, state] = await Promise.all([
      db
        .prepare("SELECT id, account, extension_code, is_seller, review_status, real_name, fund_password_hash IS NOT NULL AS fp, created_at FROM users WHERE id = ?")
        .bind(uid)
        .first<{ id: number; account: string; extension_code: string; is_seller: number; review_status: number; real_name: string | null; fp: number; created_at: number }>(),
      db.prepare("SELECT real_name, bank_account, bank_name, bank_branch FROM bank_cards WHERE user_id = ?").bind(uid).first<{ real_name: string; bank_account: string; bank_name: string; bank_branch: string }>(),
      db.prepare("SELECT enabled FROM totp_secrets WHERE user_id = ?").bind(uid).first<{ enabled: number }>(),
      kycState(db, uid),
    ]);
    if (!u) throw notFound();
    const shown = state.identity ?? (state.pending?.name ? { name: state.pending.name, type: state.pending.type ?? 0, card_id: state.pending.card_id ?? "" } : null);
    return ok(c, {
      id: u.id,
      account: u.account,
      extension_code: u.extension_code,
      is_seller: u.is_seller,
      review_status: u.review_status,
      level: state.approvedLevel,
      pending_level: state.pending?.level ?? null,
      // The real name is shown only once verified (spec §4).
      name: u.review_status === 2 ? u.real_name : null,
      type: shown?.type ?? null,
      card_id: shown?.card_id ? maskId(shown.card_id) : null,
      rejection_reason: state.latest?.status === 3 ? state.latest.reason : null,
      bank: bank ? { real_name: bank.real_name, bank_account: maskCard(bank.bank_account), bank_name: bank.bank_name, bank_branch: bank.bank_branch } : null,
      has_fund_password: u.fp === 1,
      totp_enabled: totp?.enabled === 1,
      created_at: timeFormat(u.created_at),
    });
  })

  // ── Receiving bank card ─────────────────────────────────────────────────────────────────────
  .get("/user/bank_name", requireUser, query(bankNameQuerySchema), answers(bankLookupSchema, { summary: "The bank of a card number (6+ digits)", auth: true }), async (c) => {
    const card = c.req.valid("query").card;
    return ok(c, { bank_name: bankNameFor(card, c.get("locale")), valid: card.length >= 12 && luhnValid(card) });
  })
  .post("/user/cash_save", requireUser, jsonBody(bankCardSchema), answers(bankCardViewSchema, { summary: "Save the receiving bank card", auth: true }), async (c) => {
    const db = c.env.DB;
    const uid = c.get("user").id;
    await rateLimit(db, `bank:${uid}`, 20, 60 * MINUTE);
    const b = c.req.valid("json");
    const bankName = bankNameFor(b.bank_account, c.get("locale")) ?? b.bank_name;
    if (!bankName) throw new ApiError("missing_field", 400, { field: "bank_name" });
    await db
      .prepare(
        `INSERT INTO bank_cards (user_id, real_name, bank_account, bank_name, bank_branch, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET real_name = excluded.real_name, bank_account = excluded.bank_account,
           bank_name = excluded.bank_name, bank_branch = excluded.bank_branch, updated_at = excluded.updated_at`,
      )
      .bind(uid, b.real_name, b.bank_account, bankName, b.bank_branch, Date.now())
      .run();
    return ok(c, { real_name: b.real_name, bank_account: maskCard(b.bank_account), bank_name: bankName, bank_branch: b.bank_branch });
  })

  // ── Fund password ───────────────────────────────────────────────────────────────────────────
  .post("/user/fund_password", requireUser, jsonBody(fundPasswordSchema), answers(fundPasswordSetSchema, { summary: "Set or change the 6-digit fund password", auth: true }), async (c) => {
    const db = c.env.DB;
    const uid = c.get("user").id;
    await rateLimit(db, `fundpw-set:${uid}`, 10, 10 * MINUTE);
    const b = c.req.valid("json");
    const row = await db.prepare("SELECT password_hash, fund_password_hash FROM users WHERE id = ?").bind(uid).first<{ password_hash: string; fund_password_hash: string | null }>();
    if (!row) throw notFound();
    if (row.fund_password_hash && b.old_fund_password !== undefined) {
      await checkFundPassword(c.env, uid, b.old_fund_password);
    } else {
      if (b.login_password === undefined) throw new ApiError("missing_field", 400, { field: row.fund_password_hash ? "old_fund_password" : "login_password" });
      if (!(await verifyPassword(b.login_password, row.password_hash, c.env.PEPPER))) throw new ApiError("old_password_wrong");
    }
    await db.prepare("UPDATE users SET fund_password_hash = ? WHERE id = ?").bind(await hashPassword(b.fund_password, c.env.PEPPER), uid).run();
    return ok(c, { has_fund_password: true as const });
  })

  // ── Authenticator app (TOTP) ────────────────────────────────────────────────────────────────
  .post("/user/totp/enrol", requireUser, answers(totpEnrolmentSchema, { summary: "Start authenticator enrolment", auth: true }), async (c) => {
    const db = c.env.DB;
    const user = c.get("user");
    await rateLimit(db, `totp-enrol:${user.id}`, 10, 10 * MINUTE);
    const existing = await db.prepare("SELECT enabled FROM totp_secrets WHERE user_id = ?").bind(user.id).first<{ enabled: number }>();
    if (existing?.enabled) throw new ApiError("totp_enabled", 409);
    const secret = newSecret();
    await db
      .prepare(
        `INSERT INTO totp_secrets (user_id, secret_enc, enabled, last_step, created_at) VALUES (?, ?, 0, 0, ?)
         ON CONFLICT (user_id) DO UPDATE SET secret_enc = excluded.secret_enc, last_step = 0, created_at = excluded.created_at WHERE enabled = 0`,
      )
      .bind(user.id, await encryptSecret(c.env.PEPPER, secret), Date.now())
      .run();
    const uri = otpauthUri(secret, user.account, c.env.BRAND || "Exchange");
    return ok(c, { secret, uri, qrcode: await qrPngDataUrl(uri) });
  })
  .post("/user/totp/confirm", requireUser, jsonBody(totpCodeSchema), answers(totpStateSchema, { summary: "Confirm the authenticator with a code", auth: true }), async (c) => {
    const db = c.env.DB;
    const uid = c.get("user").id;
    await rateLimit(db, `totp-confirm:${uid}`, 10, 10 * MINUTE);
    const row = await db.prepare("SELECT enabled FROM totp_secrets WHERE user_id = ?").bind(uid).first<{ enabled: number }>();
    if (!row) throw new ApiError("totp_not_enabled", 409);
    if (row.enabled) throw new ApiError("totp_enabled", 409);
    if (!(await consumeCode(db, c.env.PEPPER, uid, c.req.valid("json").code, false))) throw new ApiError("totp_wrong");
    await db.prepare("UPDATE totp_secrets SET enabled = 1, enabled_at = ? WHERE user_id = ?").bind(Date.now(), uid).run();
    return ok(c, { totp_enabled: true });
  })
  .post("/user/totp/disable", requireUser, jsonBody(totpCodeSchema), answers(totpStateSchema, { summary: "Turn the authenticator off with a code", auth: true }), async (c) => {
    const db = c.env.DB;
    const uid = c.get("user").id;
    const row = await db.prepare("SELECT 1 FROM totp_secrets WHERE user_id = ? AND enabled = 1").bind(uid).first();
    if (!row) throw new ApiError("totp_not_enabled", 409);
    await checkTotpIfEnabled(c.env, uid, c.req.valid("json").code);
    await db.prepare("DELETE FROM totp_secrets WHERE user_id = ?").bind(uid).run();
    return ok(c, { totp_enabled: false });
  })

  // ── Withdrawal address book ─────────────────────────────────────────────────────────────────
  .get("/user/addresses", requireUser, query(addressListQuerySchema), answers(savedAddressListSchema, { summary: "One's withdrawal address book", auth: true }), async (c) => {
    const currency = c.req.valid("query").currency;
    const { results } = await c.env.DB.prepare(
      `SELECT a.id, a.currency_id, c.name AS currency_name, a.network, a.address, a.label, a.memo, a.created_at
         FROM withdraw_addresses a LEFT JOIN currencies c ON c.id = a.currency_id
        WHERE a.user_id = ? AND (?2 IS NULL OR a.currency_id = ?2) ORDER BY a.id DESC`,
    )
      .bind(c.get("user").id, currency ?? null)
      .all<{ id: number; currency_id: number; currency_name: string | null; network: number; address: string; label: string; memo: string; created_at: number }>();
    return ok(
      c,
      results.map((r) => ({ ...r, network_name: networkNames[r.network] ?? "", created_at: timeFormat(r.created_at) })),
    );
  })
  .post("/user/addresses", requireUser, jsonBody(addressBookAddSchema), answers(addressAddedSchema, { summary: "Add an address to the book", auth: true }), async (c) => {
    const db = c.env.DB;
    const uid = c.get("user").id;
    const b = c.req.valid("json");
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
      return ok(c, { id: row!.id, currency_id: cur.id, network, address: b.address, label: b.label, memo: b.memo });
    } catch (err) {
      if (/UNIQUE constraint failed/i.test(String(err))) throw new ApiError("address_exists", 409);
      throw err;
    }
  })
  .post("/user/addresses/delete", requireUser, jsonBody(idBodySchema), answers(addressDeletedSchema, { summary: "Delete an address of one's book", auth: true }), async (c) => {
    const r = await c.env.DB.prepare("DELETE FROM withdraw_addresses WHERE id = ? AND user_id = ?").bind(c.req.valid("json").id, c.get("user").id).run();
    // Someone else's address answers exactly like a missing one.
    if (r.meta.changes !== 1) throw notFound();
    return ok(c, { deleted: true as const });
  });

