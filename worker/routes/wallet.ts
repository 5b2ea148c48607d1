/**
 * Wallets (spec §2 Assets, Deposit, Withdrawal, Transfer, Conversion; §7): the three accounts
 * per currency valued at real prices, transfers between own accounts, flash exchange against the
 * treasury, uploads, deposit claims and withdrawals with the published fee table.
 * Every balance change is one ledger movement (worker/lib/ledger.ts); amounts are decimal strings.
 */
import { accountOn, productsOf } from "../lib/products.ts";
import { Hono } from "hono";
import { pageQuerySchema } from "../../schemas/envelope.ts";
import { formatUnits, parseUnits } from "../../schemas/money.ts";
import {
  conversionSchema,
  conversionSubSchema,
  currencyBodySchema,
  depositRequestSchema,
  depositStatusLabels,
  inSiteTexts,
  networkNames,
  normalizeInternalAddress,
  transferSchema,
  uploadBase64Schema,
  USDT_ID,
  walletAccounts,
  withdrawalSchema,
  withdrawalStatusLabels,
} from "../../schemas/wallet.ts";
import { refuseOperatorMoney, requireUser } from "../lib/auth.ts";
import { depositNeedsSecond } from "../lib/reviews.ts";
import type { AppEnv } from "../lib/context.ts";
import { conversionDirection, conversionSettings, quote } from "../lib/conversion.ts";
import { amountOrThrow, big, getCurrency, listCurrencies, setting, timeFormat } from "../lib/currency.ts";
import { ApiError } from "../lib/errors.ts";
import { runGuarded, TREASURY } from "../lib/guarded.ts";
import { applyMovement, balanceOf, movementStatements, SYSTEM, type LedgerEntry } from "../lib/ledger.ts";
import { usdtPrice, usdtPrices, usdtValue } from "../lib/prices.ts";
import { qrPngDataUrl } from "../lib/qr.ts";
import { rateLimit } from "../lib/ratelimit.ts";
import { answers, answersFile, answersNew, ok, okNew } from "../lib/respond.ts";
import { transferDoneSchema, userWalletSchema, walletListSchema, type WalletRow } from "../../schemas/assets.ts";
import { QUOTE_TTL_SECONDS, conversionDoneSchema, conversionLogSchema, conversionQuoteSchema, conversionSettingsSchema } from "../../schemas/conversion.ts";
import { depositAddressesSchema, depositClaimedSchema, depositRecordPageSchema } from "../../schemas/deposit.ts";
import { uploadSchema } from "../../schemas/upload.ts";
import { feeTableSchema, withdrawalRecordPageSchema, withdrawalSubmittedSchema, withdrawInfoSchema, type FeeRow } from "../../schemas/withdrawal.ts";
import { checkFundPassword, checkTotpIfEnabled } from "../domain/account/security.ts";
import { decodeBase64Image, MAX_UPLOAD_BYTES, ownUpload, readUpload, storeUpload, uploadUrl } from "../domain/uploads/uploads.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { cheaperFirst, feeRows, hasNetworks, termsFor } from "../lib/withdrawals.ts";
import { inSiteWithdrawal, internalAddressOf, internalAddressOwner, maskAccount } from "../lib/internal-addresses.ts";

const MINUTE = 60_000;
/** Deposit claims a user may have waiting for review at once. */
export const MAX_PENDING_DEPOSITS = 5;
/** Display precision of USDT values (spec §9: assets 2 decimals). */
const USDT_SCALE = 8;

const fmt = (units: bigint, scale: number) => formatUnits(units, scale);

export const walletRoutes = new Hono<AppEnv>()
  // ── Asset centre ────────────────────────────────────────────────────────────────────────────
  .post("/wallet/list", requireUser, answers(walletListSchema, { summary: "The three accounts per currency, valued in USDT at last traded prices", auth: true }), async (c) => {
    const db = c.env.DB;
    const [currencies, prices, rows] = await Promise.all([
      listCurrencies(db, true),
      usdtPrices(db),
      db
        .prepare("SELECT currency_id, account, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM balances WHERE user_id = ?")
        .bind(c.get("user").id)
        .all<{ currency_id: number; account: string; a: string; f: string }>(),
    ]);
    const held = new Map(rows.results.map((r) => [`${r.currency_id}|${r.account}`, { a: BigInt(r.a), f: BigInt(r.f) }]));
    let grand = 0n;
    const wallet = <A extends (typeof walletAccounts)[number]>(account: A) => {
      let total = 0n;
      const balance = currencies.map((cur) => {
        const b = held.get(`${cur.id}|${account}`) ?? { a: 0n, f: 0n };
        const value = usdtValue(cur.id, b.a + b.f, cur.scale, prices, USDT_SCALE);
        total += value ?? 0n;
        // Computed keys type as an index signature; the row schema names them per account.
        return {
          currency: cur.id,
          currency_name: cur.name,
          show: 1,
          [`${account}_balance`]: fmt(b.a, cur.scale),
          [`lock_${account}_balance`]: fmt(b.f, cur.scale),
          usdt_totle: formatUnits(value ?? 0n, USDT_SCALE, 2),
          usdt_price: cur.id === USDT_ID ? "1" : (prices.get(cur.id)?.text ?? null),
        } as WalletRow<A>;
      });
      grand += total;
      return { usdt_totle: formatUnits(total, USDT_SCALE, 2), balance };
    };
    const change_wallet = wallet("change");
    const micro_wallet = wallet("micro");
    const legal_wallet = wallet("legal");
    return ok(c, {
      change_wallet,
      micro_wallet,
      legal_wallet,
      total_usdt: formatUnits(grand, USDT_SCALE, 2),
      // Realised profit is not tracked by the wallet; reported as zero rather than invented.
      totalProfits: "0.00",
    });
  })

  // ── Transfers between own accounts ──────────────────────────────────────────────────────────
  .post("/wallet/change", requireUser, jsonBody(transferSchema), answers(transferDoneSchema, { summary: "Transfer between one's own accounts", auth: true }), async (c) => {
    const b = c.req.valid("json");
    const user = c.get("user");
    // An account of a product switched off in this deployment takes and gives nothing.
    const products = productsOf(c.env);
    if (!accountOn(products, b.from_field) || !accountOn(products, b.to_field)) throw new ApiError("feature_off", 403);
    const cur = await getCurrency(c.env.DB, b.currency_id);
    const units = amountOrThrow(b.number, cur.scale);
    await applyMovement(c.env.DB, `transfer:${user.id}:${crypto.randomUUID()}`, "transfer", [
      { userId: user.id, currencyId: cur.id, account: b.from_field, dAvailable: -units, dFrozen: 0n, memo: `to ${b.to_field}` },
      { userId: user.id, currencyId: cur.id, account: b.to_field, dAvailable: units, dFrozen: 0n, memo: `from ${b.from_field}` },
    ]);
    return ok(c, { currency_id: cur.id, from_field: b.from_field, to_field: b.to_field, number: fmt(units, cur.scale) });
  })

  // ── Flash exchange (coin ↔ USDT against the treasury at the last traded price) ─────────────
  .get("/user/shandui_set", requireUser, answers(conversionSettingsSchema, { summary: "Flash exchange settings and each coin's price", auth: true }), async (c) => {
    const s = await conversionSettings(c.env.DB);
    const prices = await usdtPrices(c.env.DB);
    const currencies = await listCurrencies(c.env.DB, true);
    return ok(c, {
      ...s,
      fee_currency: "USDT",
      prices: currencies.filter((cur) => cur.id !== USDT_ID).map((cur) => ({ currency_id: cur.id, currency_name: cur.name, price: prices.get(cur.id)?.text ?? null })),
    });
  })
  .get("/user/user_wallet", requireUser, answers(userWalletSchema, { summary: "Spot-account balance of every shown currency, with its scale", auth: true }), async (c) => {
    const db = c.env.DB;
    const currencies = await listCurrencies(db, true);
    const { results } = await db
      .prepare("SELECT currency_id, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM balances WHERE user_id = ? AND account = 'change'")
      .bind(c.get("user").id)
      .all<{ currency_id: number; a: string; f: string }>();
    const held = new Map(results.map((r) => [r.currency_id, r]));
    return ok(
      c,
      currencies.map((cur) => ({
        currency: cur.id,
        currency_name: cur.name,
        change_balance: fmt(big(held.get(cur.id)?.a), cur.scale),
        lock_change_balance: fmt(big(held.get(cur.id)?.f), cur.scale),
        decimals: cur.scale,
      })),
    );
  })
  .post("/user/shandui_quote", requireUser, refuseOperatorMoney, jsonBody(conversionSchema), answers(conversionQuoteSchema, { summary: "Price a flash exchange and hold it for 10 s", auth: true }), async (c) => {
    const db = c.env.DB;
    const user = c.get("user");
    const now = Date.now();
    const p = await priceConversion(db, user.id, c.req.valid("json"), now);
    const id = [...crypto.getRandomValues(new Uint8Array(16))].map((x) => x.toString(16).padStart(2, "0")).join("");
    const expiresAt = now + QUOTE_TTL_SECONDS * 1000;
    await db
      .prepare(
        `INSERT INTO conversion_quotes (id, user_id, from_currency, to_currency, money, money2, treasury_out, fee, fee_percent, usdt_value, price, rate, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(id, user.id, p.from.id, p.to.id, p.money.toString(), p.q.received.toString(), p.q.treasuryOut.toString(), p.q.fee.toString(), p.q.feePercent, p.q.usdtValue.toString(), p.price, p.rate, expiresAt, now)
      .run();
    return ok(c, { ...conversionOut(p), quote_id: id, expires_at: expiresAt, ttl_seconds: QUOTE_TTL_SECONDS });
  })
  .post("/user/shandui_sub", requireUser, refuseOperatorMoney, jsonBody(conversionSubSchema), answers(conversionDoneSchema, { summary: "Flash exchange coin ↔ USDT against the treasury: a quote exactly, or at the current price", auth: true }), async (c) => {
    const db = c.env.DB;
    const user = c.get("user");
    const b = c.req.valid("json");
    const now = Date.now();
    let p: PricedConversion;
    let key: string;
    if (b.quote_id !== undefined) {
      // Exactly what the user confirmed, or nothing: scoped to the caller, refused once expired,
      // and keyed by the quote so that it executes at most once.
      const row = await db.prepare("SELECT * FROM conversion_quotes WHERE id = ? AND user_id = ?").bind(b.quote_id, user.id).first<QuoteRow>();
      if (!row || row.expires_at <= now) throw new ApiError("quote_expired", 409);
      await checkConversionWait(db, user.id, now);
      const [from, to] = await Promise.all([getCurrency(db, row.from_currency), getCurrency(db, row.to_currency)]);
      const direction = conversionDirection(from.id, to.id)!;
      p = {
        direction,
        from,
        to,
        coin: direction === "coin_to_usdt" ? from : to,
        usdt: direction === "coin_to_usdt" ? to : from,
        money: BigInt(row.money),
        price: row.price,
        rate: row.rate,
        q: { received: BigInt(row.money2), treasuryOut: BigInt(row.treasury_out), fee: BigInt(row.fee), feePercent: row.fee_percent, usdtValue: BigInt(row.usdt_value), rate8: 0n },
      };
      key = `conversion:q:${row.id}`;
    } else {
      p = await priceConversion(db, user.id, { from_currency: b.from_currency!, to_currency: b.to_currency!, money: b.money! }, now);
      key = `conversion:${user.id}:${crypto.randomUUID()}`;
    }
    const { direction, from, to, coin, usdt, money, q } = p;
    const e = (userId: number, currencyId: number, d: bigint, memo = ""): LedgerEntry => ({ userId, currencyId, account: "change", dAvailable: d, dFrozen: 0n, memo });
    const entries =
      direction === "coin_to_usdt"
        ? [
            e(user.id, coin.id, -money),
            e(TREASURY, coin.id, money),
            e(TREASURY, usdt.id, -q.treasuryOut),
            e(user.id, usdt.id, q.received),
            e(SYSTEM.fees, usdt.id, q.fee, "flash exchange fee"),
          ]
        : [
            e(user.id, usdt.id, -money),
            e(SYSTEM.fees, usdt.id, q.fee, "flash exchange fee"),
            e(TREASURY, usdt.id, money - q.fee),
            e(TREASURY, coin.id, -q.treasuryOut),
            e(user.id, coin.id, q.received),
          ];
    await runGuarded(db, [
      ...movementStatements(db, key, "conversion", entries, now),
      db
        .prepare(
          `INSERT INTO conversions (user_id, from_currency, to_currency, money, money2, price, rate, fee, fee_percent, usdt_value, movement_key, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .bind(user.id, from.id, to.id, money.toString(), q.received.toString(), p.price, p.rate, q.fee.toString(), q.feePercent, q.usdtValue.toString(), key, now),
    ]).catch((err: unknown) => {
      // The quote's movement key already exists: it was executed before.
      if (err instanceof ApiError && err.key === "state_conflict" && b.quote_id !== undefined) throw new ApiError("quote_expired", 409);
      throw err;
    });
    return ok(c, conversionOut(p));
  })
  .get("/user/shandui_log", requireUser, query(pageQuerySchema), answers(conversionLogSchema, { summary: "One's flash exchanges, newest first", auth: true }), async (c) => {
    const db = c.env.DB;
    const { page, limit } = c.req.valid("query");
    const uid = c.get("user").id;
    const [count, rows] = await db.batch([
      db.prepare("SELECT count(*) AS n FROM conversions WHERE user_id = ?").bind(uid),
      db
        .prepare(
          `SELECT v.id, v.money, v.money2, v.rate, v.price, v.fee, v.fee_percent, v.created_at,
                  f.name AS from_name, f.scale AS from_scale, t.name AS to_name, t.scale AS to_scale, v.from_currency, v.to_currency
             FROM conversions v JOIN currencies f ON f.id = v.from_currency JOIN currencies t ON t.id = v.to_currency
            WHERE v.user_id = ? ORDER BY v.id DESC LIMIT ? OFFSET ?`,
        )
        .bind(uid, limit, (page - 1) * limit),
    ]);
    type Row = { id: number; money: number; money2: number; rate: string; price: string; fee: number; fee_percent: string; created_at: number; from_name: string; from_scale: number; to_name: string; to_scale: number; from_currency: number; to_currency: number };
    const usdtScale = (await db.prepare("SELECT scale FROM currencies WHERE id = ?").bind(USDT_ID).first<{ scale: number }>())?.scale ?? 8;
    const data = ((rows!.results ?? []) as Row[]).map((r) => ({
      id: r.id,
      money: fmt(big(r.money), r.from_scale),
      money2: fmt(big(r.money2), r.to_scale),
      from: r.from_name,
      to: r.to_name,
      from_currency: r.from_currency,
      to_currency: r.to_currency,
      huilv: r.rate,
      price: r.price,
      sxf: fmt(big(r.fee), usdtScale),
      fee_percent: r.fee_percent,
      addtime: timeFormat(r.created_at),
    }));
    return ok(c, { lists: { count: (count!.results?.[0] as { n: number } | undefined)?.n ?? 0, data }, page, limit });
  })

  // ── Uploads ─────────────────────────────────────────────────────────────────────────────────
  .post("/new/upload", requireUser, answersNew(uploadSchema, { summary: "Upload a JPEG or PNG (multipart field `file`, at most 4 MB)", auth: true }), async (c) => {
    const user = c.get("user");
    await rateLimit(c.env.DB, `upload:${user.id}`, 60, 10 * MINUTE);
    const length = Number(c.req.header("content-length") ?? "0");
    if (length > MAX_UPLOAD_BYTES + 64 * 1024) throw new ApiError("file_too_large", 413);
    if (!(c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data")) throw new ApiError("missing_field", 400, { field: "file" });
    let form: Record<string, string | File | (string | File)[]>;
    try {
      form = await c.req.parseBody();
    } catch {
      throw new ApiError("invalid_param");
    }
    const file = form.file;
    if (!(file instanceof File)) throw new ApiError("missing_field", 400, { field: "file" });
    if (file.size > MAX_UPLOAD_BYTES) throw new ApiError("file_too_large", 413);
    const scene = typeof form.scene === "string" ? form.scene : undefined;
    const info = await storeUpload(c.env, user.id, new Uint8Array(await file.arrayBuffer()), scene, { name: file.name, mime: file.type });
    return okNew(c, info);
  })
  .post("/new/upload/base64", requireUser, jsonBody(uploadBase64Schema), answersNew(uploadSchema, { summary: "Upload a JPEG or PNG as base64", auth: true }), async (c) => {
    const user = c.get("user");
    await rateLimit(c.env.DB, `upload:${user.id}`, 60, 10 * MINUTE);
    const b = c.req.valid("json");
    const { bytes, mime } = decodeBase64Image(b.file_base64);
    const info = await storeUpload(c.env, user.id, bytes, b.scene, { name: b.name, mime });
    return okNew(c, info);
  })
  .get("/new/upload/file/:id", requireUser, answersFile({ summary: "One's own upload (operators: any)", auth: true }), async (c) => readUpload(c.env, c.get("user"), c.req.param("id")))

  // ── Deposits ────────────────────────────────────────────────────────────────────────────────
  .post("/wallet/get_in_address", requireUser, jsonBody(currencyBodySchema), answers(depositAddressesSchema, { summary: "Deposit addresses of a currency, and one's in-site address", auth: true }), async (c) => {
    const db = c.env.DB;
    const cur = await getCurrency(db, c.req.valid("json").currency);
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
        tips: r.tips,
      })),
    );
    const type = Number(await setting(db, "userchongbi_type", "1")) === 2 ? 2 : 1;
    // The user's own in-site address (same for every currency): other users send here for free.
    const own = await internalAddressOf(db, c.env.PEPPER, c.get("user").id);
    const internal = { address: own, qrcode: await qrPngDataUrl(own), tips: inSiteTexts[c.get("locale")].tips };
    return ok(c, { list, userchongbi_type: type, tips: await setting(db, "deposit_tips", ""), internal });
  })
  .post("/wallet/charge_req", requireUser, refuseOperatorMoney, jsonBody(depositRequestSchema), answers(depositClaimedSchema, { summary: "Claim a deposit with a proof picture (an operator credits it)", auth: true }), async (c) => {
    const db = c.env.DB;
    const user = c.get("user");
    const b = c.req.valid("json");
    const cur = await getCurrency(db, b.currency);
    const amount = amountOrThrow(b.amount, cur.scale);
    const address = await db
      .prepare("SELECT address, network FROM deposit_addresses WHERE currency_id = ? AND address = ? AND enabled = 1")
      .bind(cur.id, b.acc)
      .first<{ address: string; network: string }>();
    if (!address) throw new ApiError("address_invalid");
    const pic = await ownUpload(db, user.id, b.pic, "pic");
    await rateLimit(db, `deposit:${user.id}`, 20, 60 * MINUTE);
    const pending = await db.prepare("SELECT count(*) AS n FROM deposits WHERE user_id = ? AND status = 0").bind(user.id).first<{ n: number }>();
    if ((pending?.n ?? 0) >= MAX_PENDING_DEPOSITS) throw new ApiError("pending_limit", 429);
    // Large claims are marked for two operators at once (the first approval checks again at its price).
    const needsSecond = await depositNeedsSecond(db, cur.id, amount, c.env.DEPOSIT_SECOND_APPROVAL_USDT);
    const row = await db
      .prepare("INSERT INTO deposits (user_id, currency_id, amount, address, network, tx_hash, pic, needs_second, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")
      .bind(user.id, cur.id, amount.toString(), address.address, b.type || address.network, b.hash, pic, needsSecond ? 1 : 0, Date.now())
      .first<{ id: number }>();
    return ok(c, { id: row!.id, status: 0, status_text: depositStatusLabels[c.get("locale")][0] });
  })
  .get("/new/users/rechargeLog", requireUser, query(pageQuerySchema), answersNew(depositRecordPageSchema, { summary: "One's deposit claims and in-site transfers received", auth: true }), async (c) => {
    const db = c.env.DB;
    const { page, limit } = c.req.valid("query");
    const uid = c.get("user").id;
    const labels = depositStatusLabels[c.get("locale")];
    // Deposit claims plus in-site transfers received (withdrawals of other users with status 5).
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
    const from = inSiteTexts[c.get("locale")].from;
    return okNew(c, {
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
        amount: fmt(big(r.amount), r.scale),
        pic: r.pic ? uploadUrl(r.pic) : "",
        address: r.address,
        network: r.network,
        hash: r.tx_hash,
        reason: r.reason,
      })),
    });
  })

  // ── Withdrawals ─────────────────────────────────────────────────────────────────────────────
  .get("/wallet/fees", answers(feeTableSchema, { summary: "The published withdrawal fee table: fee, min and max per currency and network" }), async (c) => {
    const db = c.env.DB;
    const currencies = await listCurrencies(db);
    const out: FeeRow[] = [];
    for (const cur of currencies) {
      const rows = await feeRows(db, cur);
      for (const r of rows) {
        const t = termsFor(rows, r.network);
        if (t) out.push({ currency_id: cur.id, currency: cur.name, network: r.network, network_name: networkNames[r.network] ?? "", fee: fmt(t.fee, cur.scale), min: fmt(t.min, cur.scale), max: fmt(t.max, cur.scale) });
      }
    }
    return ok(c, out);
  })
  .post("/wallet/get_info", requireUser, jsonBody(currencyBodySchema), answers(withdrawInfoSchema, { summary: "Withdrawal terms of a currency and what the form needs", auth: true }), async (c) => {
    const db = c.env.DB;
    const uid = c.get("user").id;
    const cur = await getCurrency(db, c.req.valid("json").currency);
    const rows = await feeRows(db, cur);
    const general = termsFor(rows, -1);
    if (!general) throw new ApiError("currency_unsupported");
    const erc = termsFor(rows, 0);
    const trc = termsFor(rows, 1);
    const [bal, security] = await Promise.all([
      balanceOf(db, uid, cur.id, "change"),
      db
        .prepare(
          `SELECT u.fund_password_hash IS NOT NULL AS fp, EXISTS (SELECT 1 FROM totp_secrets t WHERE t.user_id = u.id AND t.enabled = 1) AS totp,
                  EXISTS (SELECT 1 FROM bank_cards b WHERE b.user_id = u.id) AS bank FROM users u WHERE u.id = ?`,
        )
        .bind(uid)
        .first<{ fp: number; totp: number; bank: number }>(),
    ]);
    const terms = (network: -1 | 0 | 1) => {
      const t = termsFor(rows, network)!;
      return { type: network, network_name: networkNames[network] ?? "", fee: fmt(t.fee, cur.scale), min: fmt(t.min, cur.scale), max: fmt(t.max, cur.scale) };
    };
    return ok(c, {
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
      has_receiving_info: security?.bank === 1,
    });
  })
  .post("/wallet/out", requireUser, refuseOperatorMoney, jsonBody(withdrawalSchema), answers(withdrawalSubmittedSchema, { summary: "Withdraw (an internal address is an instant, free in-site transfer); 997 without receiving account", auth: true }), async (c) => {
    const db = c.env.DB;
    const user = c.get("user");
    const b = c.req.valid("json");
    await rateLimit(db, `withdraw:${user.id}`, 20, 60 * MINUTE);
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
      if (recipientId === user.id) throw new ApiError("self_transfer");
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
    // A coin withdrawal needs no bank card: the receiving-account gate (997) is for fiat (C2C).
    await checkFundPassword(c.env, user.id, b.password);
    await checkTotpIfEnabled(c.env, user.id, b.totp_code);
    if (recipientId !== null && internal) {
      const id = await inSiteWithdrawal(db, { senderId: user.id, recipientId, currencyId: cur.id, network: -1, address: internal, memo: b.memo, amount });
      return ok(c, {
        id,
        status: 5,
        status_text: withdrawalStatusLabels[c.get("locale")][5],
        in_site: true,
        number: fmt(amount, cur.scale),
        charge: fmt(0n, cur.scale),
        total: fmt(amount, cur.scale),
        note: inSiteTexts[c.get("locale")].note,
      });
    }
    const total = amount + terms.fee;
    const now = Date.now();
    const key = `withdrawal-freeze:${user.id}:${crypto.randomUUID()}`;
    const results = await runGuarded(db, [
      ...movementStatements(db, key, "withdrawal_freeze", [{ userId: user.id, currencyId: cur.id, account: "change", dAvailable: -total, dFrozen: total }], now),
      db
        .prepare("INSERT INTO withdrawals (user_id, currency_id, network, address, memo, amount, fee, freeze_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")
        .bind(user.id, cur.id, network, b.address, b.memo, amount.toString(), terms.fee.toString(), key, now),
    ]);
    const id = (results.at(-1)?.results?.[0] as { id: number } | undefined)?.id ?? 0;
    return ok(c, {
      id,
      status: 0,
      status_text: withdrawalStatusLabels[c.get("locale")][0],
      number: fmt(amount, cur.scale),
      charge: fmt(terms.fee, cur.scale),
      total: fmt(total, cur.scale),
    });
  })
  .get("/new/users/withdrawalLog", requireUser, query(pageQuerySchema), answersNew(withdrawalRecordPageSchema, { summary: "One's withdrawals, newest first", auth: true }), async (c) => {
    const db = c.env.DB;
    const { page, limit } = c.req.valid("query");
    const uid = c.get("user").id;
    const labels = withdrawalStatusLabels[c.get("locale")];
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
    return okNew(c, {
      total: (count!.results?.[0] as { n: number } | undefined)?.n ?? 0,
      lists: ((rows!.results ?? []) as Row[]).map((r) => ({
        id: r.id,
        currency_id: r.currency_id,
        currency_name: r.name,
        network: r.network,
        network_name: networkNames[r.network] ?? "",
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
    });
  });

interface QuoteRow {
  id: string;
  from_currency: number;
  to_currency: number;
  money: string;
  money2: string;
  treasury_out: string;
  fee: string;
  fee_percent: string;
  usdt_value: string;
  price: string;
  rate: string;
  expires_at: number;
}

type PricedConversion = Awaited<ReturnType<typeof priceConversion>>;

async function checkConversionWait(db: D1Database, userId: number, now: number) {
  const s = await conversionSettings(db);
  const waitMinutes = Number(s.shandui_time) || 0;
  if (waitMinutes <= 0) return;
  const last = await db.prepare("SELECT max(created_at) AS t FROM conversions WHERE user_id = ?").bind(userId).first<{ t: number | null }>();
  if (last?.t && now - last.t < waitMinutes * MINUTE) throw new ApiError("conversion_wait", 429, { minutes: waitMinutes });
}

/** Prices a conversion at the coin's last traded price with the published fee and bounds (spec §5). */
async function priceConversion(db: D1Database, userId: number, b: { from_currency: number; to_currency: number; money: string }, now: number) {
  const direction = conversionDirection(b.from_currency, b.to_currency);
  if (!direction) throw new ApiError("conversion_pair");
  const [from, to] = await Promise.all([getCurrency(db, b.from_currency), getCurrency(db, b.to_currency)]);
  const coin = direction === "coin_to_usdt" ? from : to;
  const usdt = direction === "coin_to_usdt" ? to : from;
  const money = amountOrThrow(b.money, from.scale);
  const price = await usdtPrice(db, coin.id);
  if (!price) throw new ApiError("no_price", 409, { currency: coin.name });
  const s = await conversionSettings(db);
  const usdtUnits = (d: string) => {
    const u = parseUnits(d, usdt.scale);
    if (u === null) throw new Error(`bad USDT setting ${d}`);
    return u;
  };
  await checkConversionWait(db, userId, now);
  const q = quote(direction, money, price, coin.scale, usdt.scale, s, usdtUnits);
  if (q.usdtValue < usdtUnits(s.shanduiMin) || q.received <= 0n) throw new ApiError("below_min", 400, { min: `${s.shanduiMin} USDT` });
  if (q.usdtValue > usdtUnits(s.shanduiMax)) throw new ApiError("above_max", 400, { max: `${s.shanduiMax} USDT` });
  return { direction, from, to, coin, usdt, money, price: price.text, rate: formatUnits(q.rate8, 8), q };
}

function conversionOut(p: PricedConversion) {
  return {
    from: p.from.name,
    to: p.to.name,
    money: fmt(p.money, p.from.scale),
    money2: fmt(p.q.received, p.to.scale),
    money2_display: formatUnits(p.q.received, p.to.scale, 5),
    huilv: p.rate,
    price: p.price,
    sxf: fmt(p.q.fee, p.usdt.scale),
    fee_percent: p.q.feePercent,
    usdt_value: fmt(p.q.usdtValue, p.usdt.scale),
  };
}
