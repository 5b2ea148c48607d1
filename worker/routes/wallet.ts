/**
 * Wallets (spec §2 Assets, Deposit, Withdrawal, Transfer, Conversion; §7): the three accounts
 * per currency valued at real prices, transfers between own accounts, flash exchange against the
 * treasury, uploads, deposit claims and withdrawals with the published fee table.
 * Every balance change is one ledger movement (worker/lib/ledger.ts); amounts are decimal strings.
 * The rules and the SQL are in worker/domain/{wallet,conversion,withdrawals,uploads}/.
 */
import { productsOf } from "../lib/products.ts";
import { Hono } from "hono";
import { pageQuerySchema } from "../../schemas/envelope.ts";
import { conversionSchema, conversionSubSchema, currencyBodySchema, depositRequestSchema, transferSchema, uploadBase64Schema, uploadFormFieldsSchema, withdrawalSchema } from "../../schemas/wallet.ts";
import { refuseOperatorMoney, requireAccountUser, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { ApiError } from "../lib/errors.ts";
import { rateLimit } from "../lib/ratelimit.ts";
import { answers, answersFile, answersNew, ok, okNew } from "../lib/respond.ts";
import { transferDoneSchema, userWalletSchema, walletListSchema } from "../../schemas/assets.ts";
import { conversionDoneSchema, conversionLogSchema, conversionQuoteSchema, conversionSettingsSchema } from "../../schemas/conversion.ts";
import { depositAddressesSchema, depositClaimedSchema, depositRecordPageSchema } from "../../schemas/deposit.ts";
import { uploadSchema } from "../../schemas/upload.ts";
import { feeTableSchema, withdrawalRecordPageSchema, withdrawalSubmittedSchema, withdrawInfoSchema } from "../../schemas/withdrawal.ts";
import { jsonBody, parseOrThrow, query } from "../lib/validate.ts";
import { conversionLog, conversionSettingsView, createQuote, executeConversion } from "../domain/conversion/conversions.ts";
import { decodeBase64Image, MAX_UPLOAD_BYTES, readUpload, storeUpload } from "../domain/uploads/uploads.ts";
import { spotWallet, walletList } from "../domain/wallet/balances.ts";
import { claimDeposit, depositAddresses, depositRecords } from "../domain/wallet/deposits.ts";
import { transferOwn, transferOwnOnObjects } from "../domain/wallet/transfers.ts";
import { accountsOnObjects } from "../lib/accounts.ts";
import { statement, userHolds } from "../domain/wallet/statement.ts";
import { accountReads } from "../domain/wallet/object-reads.ts";
import { holdsSchema, statementPageSchema, statementQuerySchema } from "../../schemas/statement.ts";
import { feeTable, requestWithdrawal, withdrawalRecords, withdrawInfo } from "../domain/withdrawals/requests.ts";
import { relyingParty } from "../domain/account/passkeys.ts";
import { cachedPublic, PUBLIC_LISTS } from "../lib/public-cache.ts";
import { requireProvenContact } from "../domain/auth/contact.ts";

const MINUTE = 60_000;

export const walletRoutes = new Hono<AppEnv>()
  // ── Asset centre ────────────────────────────────────────────────────────────────────────────
  .post("/wallet/list", requireUser, answers(walletListSchema, { summary: "The three accounts per currency, valued in USDT at last traded prices", auth: true }), async (c) => ok(c, await walletList(c.env.DB, c.get("user").id, accountReads(c.env))))

  // ── Statement and holds (issue #26): every movement of one's money, and what its frozen part is held for ──
  .get("/wallet/statement", requireUser, query(statementQuerySchema), answers(statementPageSchema, { summary: "One's statement: every movement with its kind, amount, balance after, time and record; newest first, by cursor", auth: true }), async (c) =>
    ok(c, await statement(c.env.DB, c.get("user").id, c.req.valid("query"), accountReads(c.env))),
  )
  .get("/wallet/holds", requireUser, answers(holdsSchema, { summary: "What one's frozen funds are held for, per coin and account (the holds sum to the frozen balance)", auth: true }), async (c) =>
    ok(c, { groups: await userHolds(c.env.DB, c.get("user").id, undefined, accountReads(c.env)) }),
  )

  // ── Transfers between own accounts ──────────────────────────────────────────────────────────
  // requireAccountUser: requireUser; in objects mode a hinted session is checked by the account object in the transfer's own call.
  .post("/wallet/change", requireAccountUser, jsonBody(transferSchema), answers(transferDoneSchema, { summary: "Transfer between one's own accounts", auth: true }), async (c) =>
    ok(c, accountsOnObjects(c.env) ? await transferOwnOnObjects(c.env, productsOf(c.env), c.get("user").id, c.req.valid("json"), undefined, c.get("sessionGuard")) : await transferOwn(c.env.DB, productsOf(c.env), c.get("user").id, c.req.valid("json"))),
  )

  // ── Flash exchange (coin ↔ USDT against the treasury at the last traded price) ─────────────
  .get("/user/shandui_set", requireUser, answers(conversionSettingsSchema, { summary: "Flash exchange settings and each coin's price", auth: true }), async (c) => ok(c, await conversionSettingsView(c.env.DB)))
  .get("/user/user_wallet", requireUser, answers(userWalletSchema, { summary: "Spot-account balance of every shown currency, with its scale", auth: true }), async (c) => ok(c, await spotWallet(c.env.DB, c.get("user").id, accountReads(c.env))))
  .post("/user/shandui_quote", requireUser, refuseOperatorMoney, jsonBody(conversionSchema), answers(conversionQuoteSchema, { summary: "Price a flash exchange and hold it for 10 s", auth: true }), async (c) =>
    ok(c, await createQuote(c.env, c.get("user").id, c.req.valid("json"))),
  )
  .post("/user/shandui_sub", requireUser, refuseOperatorMoney, jsonBody(conversionSubSchema), answers(conversionDoneSchema, { summary: "Flash exchange coin ↔ USDT against the treasury: a quote exactly, or at the current price", auth: true }), async (c) =>
    ok(c, await executeConversion(c.env, c.get("user").id, c.req.valid("json"))),
  )
  .get("/user/shandui_log", requireUser, query(pageQuerySchema), answers(conversionLogSchema, { summary: "One's flash exchanges, newest first", auth: true }), async (c) => {
    const { page, limit } = c.req.valid("query");
    return ok(c, await conversionLog(c.env.DB, c.get("user").id, page, limit));
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
    // Form fields follow the same text rules as JSON ones (schemas/strict.ts).
    const { scene, name } = parseOrThrow(uploadFormFieldsSchema, { scene: form.scene, name: file.name || undefined });
    const info = await storeUpload(c.env, user.id, new Uint8Array(await file.arrayBuffer()), scene, { name, mime: file.type });
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
  .post("/wallet/get_in_address", requireUser, requireProvenContact, jsonBody(currencyBodySchema), answers(depositAddressesSchema, { summary: "Deposit addresses of a currency, and one's in-site address", auth: true }), async (c) =>
    ok(c, await depositAddresses(c.env, c.get("user").id, c.req.valid("json").currency, c.get("locale"))),
  )
  .post("/wallet/charge_req", requireUser, refuseOperatorMoney, requireProvenContact, jsonBody(depositRequestSchema), answers(depositClaimedSchema, { summary: "Claim a deposit with a proof picture (an operator credits it)", auth: true }), async (c) =>
    ok(c, await claimDeposit(c.env, c.get("user").id, c.req.valid("json"), c.get("locale"))),
  )
  .get("/new/users/rechargeLog", requireUser, query(pageQuerySchema), answersNew(depositRecordPageSchema, { summary: "One's deposit claims and in-site transfers received", auth: true }), async (c) => {
    const { page, limit } = c.req.valid("query");
    return okNew(c, await depositRecords(c.env.DB, c.get("user").id, page, limit, c.get("locale")));
  })

  // ── Withdrawals ─────────────────────────────────────────────────────────────────────────────
  .get("/wallet/fees", answers(feeTableSchema, { summary: "The published withdrawal fee table: fee, min and max per currency and network" }), async (c) => ok(c, await cachedPublic(PUBLIC_LISTS.withdrawalFees, () => feeTable(c.env.DB))))
  .post("/wallet/get_info", requireUser, jsonBody(currencyBodySchema), answers(withdrawInfoSchema, { summary: "Withdrawal terms of a currency and what the form needs", auth: true }), async (c) =>
    ok(c, await withdrawInfo(c.env.DB, c.get("user").id, c.req.valid("json").currency, accountReads(c.env))),
  )
  .post("/wallet/out", requireUser, refuseOperatorMoney, requireProvenContact, jsonBody(withdrawalSchema), answers(withdrawalSubmittedSchema, { summary: "Withdraw (an internal address is an instant, free in-site transfer); 997 without receiving account", auth: true }), async (c) => {
    const user = c.get("user");
    await rateLimit(c.env.DB, `withdraw:${user.id}`, 20, 60 * MINUTE);
    return ok(c, await requestWithdrawal(c.env, user.id, c.req.valid("json"), c.get("locale"), relyingParty(c.req.raw, c.env)));
  })
  .get("/new/users/withdrawalLog", requireUser, query(pageQuerySchema), answersNew(withdrawalRecordPageSchema, { summary: "One's withdrawals, newest first", auth: true }), async (c) => {
    const { page, limit } = c.req.valid("query");
    return okNew(c, await withdrawalRecords(c.env.DB, c.get("user").id, page, limit, c.get("locale")));
  });
