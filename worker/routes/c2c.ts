/**
 * C2C (issue #10; spec §7 `/api/legal_*` and `/api/new/legal_deal/index`, plus merchant, receiving
 * methods, adverts, chat and appeals under /api/c2c/). Routes parse, authorise and call
 * worker/domain/c2c/, which owns the SQL. Every query is scoped to the session's user: another
 * user's order or advert id answers like a missing one. With PRODUCT_C2C off every route here
 * answers feature_off.
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { idInput } from "../../schemas/strict.ts";
import {
  advertCreateSchema,
  advertEditSchema,
  advertMarketQuerySchema,
  appealCreateSchema,
  c2cAdvertPageSchema,
  c2cAdvertSchema,
  c2cConfigSchema,
  c2cIdBodySchema,
  legalDealSureSchema,
  c2cIdParamSchema,
  c2cIdQuerySchema,
  c2cMessageListSchema,
  c2cMessageSchema,
  c2cOrderCreatedSchema,
  c2cOrderListSchema,
  c2cOrderPageSchema,
  c2cOrderSchema,
  C2C_FIAT,
  C2C_MAX_CANCELS_PER_DAY,
  C2C_MAX_UNFINISHED,
  chatQuerySchema,
  chatSendSchema,
  doLegalDealSchema,
  legalUserDealQuerySchema,
  merchantApplySchema,
  merchantSchema,
  myAdvertPageSchema,
  payMethodDeletedSchema,
  payMethodInputSchema,
  payMethodListSchema,
  payMethodSchema,
  userLegalPaySchema,
} from "../../schemas/c2c.ts";
import { pageQuerySchema } from "../../schemas/envelope.ts";
import { errorText } from "../../schemas/errors.ts";
import { refuseOperatorMoney, requireUser, requireVerified, sessionUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { getCurrency } from "../domain/wallet/currency.ts";
import { ApiError } from "../lib/errors.ts";
import { productsOf } from "../lib/products.ts";
import { rateLimit } from "../lib/ratelimit.ts";
import { answers, answersFile, answersNew, ok, okNew } from "../lib/respond.ts";
import { ownUpload } from "../domain/uploads/uploads.ts";
import { jsonBody, params, query } from "../lib/validate.ts";
import { advertInput, createAdvert, editAdvert, marketAdverts, merchantAdvertAction, myAdverts } from "../domain/c2c/adverts.ts";
import { createAppeal } from "../domain/c2c/appeals.ts";
import { listMessages, orderFile, sendMessage } from "../domain/c2c/chat.ts";
import { applyMerchant, leaveMerchant, merchantView } from "../domain/c2c/merchants.ts";
import { cancelsOn, createOrder, handleOne, listOrders, orderRow, orderView, partyOrder, releaseOrder, transitionOrder, type OrderRow } from "../domain/c2c/orders.ts";
import { addPayMethod, deletePayMethod, listPayMethods, updatePayMethod } from "../domain/c2c/pay-methods.ts";
import { beijingDay, c2cSettings } from "../domain/c2c/shared.ts";

const MINUTE = 60_000;

/** PRODUCT_C2C off → feature_off on every C2C route (the UI hides it too). */
export const c2cOn = createMiddleware<AppEnv>(async (c, next) => {
  if (!productsOf(c.env).c2c) throw new ApiError("feature_off", 403);
  await next();
});

const fileParamSchema = z.object({
  id: idInput({ message: "invalid_param" }),
  upload: z.string().regex(/^[A-Za-z0-9_-]{22}$/, { message: "not_found" }),
});

const advertActionParamSchema = c2cIdParamSchema.extend({ action: z.enum(["off", "on", "withdraw"], { message: "invalid_param" }) });

/** The order as its party sees it now. */
async function viewFor(env: Env, id: number, userId: number) {
  const r = await orderRow(env.DB, id);
  return orderView(r!, userId, c2cSettings(env));
}

const sideOf = (r: OrderRow, userId: number) => (r.buyer_id === userId ? "buyer" : "seller") as "buyer" | "seller";

export const c2cRoutes = new Hono<AppEnv>()
  // ── Spec §7 ─────────────────────────────────────────────────────────────────────────────────
  .get("/new/legal_deal/index", c2cOn, query(advertMarketQuerySchema), answersNew(c2cAdvertPageSchema, { summary: "C2C adverts on the shelf by type and coin (type=sell: merchants selling), best price first" }), async (c) => {
    const { page, limit, type, currency_id } = c.req.valid("query");
    const viewer = await sessionUser(c.env.DB, c.req.raw);
    return okNew(c, await marketAdverts(c.env, viewer?.id ?? null, type, currency_id, page, limit));
  })
  .post("/do_legal_deal", c2cOn, requireUser, requireVerified, refuseOperatorMoney, jsonBody(doLegalDealSchema), answers(c2cOrderCreatedSchema, { summary: "Take a C2C advert: value coins (998 unverified, 997 no receiving method)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `c2c-order:${uid}`, 30, 10 * MINUTE);
    const { id, value, price } = c.req.valid("json");
    const created = await createOrder(c.env, uid, id, value, Date.now(), price);
    return ok(c, { msg: errorText(c.get("locale"), "c2c_order_created"), data: created });
  })
  .get("/legal_user_deal", c2cOn, requireUser, query(legalUserDealQuerySchema), answers(c2cOrderListSchema, { summary: "One's C2C orders (either side), newest first", auth: true }), async (c) => {
    const { page, limit, ...filters } = c.req.valid("query");
    const r = await listOrders(c.env, c.get("user").id, filters, page, limit);
    return ok(c, { total: r.total, pages: r.pages, data: r.lists });
  })
  .get("/legal_deal", c2cOn, requireUser, query(c2cIdQuerySchema), answers(c2cOrderSchema, { summary: "One of one's C2C orders", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const r = await partyOrder(c.env.DB, c.req.valid("query").id, uid);
    return ok(c, orderView(r, uid, c2cSettings(c.env)));
  })
  .post("/user_legal_pay", c2cOn, requireUser, jsonBody(userLegalPaySchema), answers(c2cOrderSchema, { summary: "The buyer marks an unpaid order paid, with a proof picture, within the window", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const b = c.req.valid("json");
    const r = await partyOrder(c.env.DB, b.id, uid);
    let proof: string;
    try {
      proof = await ownUpload(c.env.DB, uid, b.pay_orders_img, "pay_orders_img");
    } catch {
      throw new ApiError("c2c_proof_required", 400);
    }
    await transitionOrder(c.env, r, "pay", sideOf(r, uid), uid, { proof });
    return ok(c, await viewFor(c.env, r.id, uid));
  })
  .post("/legal_deal_user_sure", c2cOn, requireUser, jsonBody(legalDealSureSchema), answers(c2cOrderSchema, { summary: "The seller confirms the fiat arrived: coins to the buyer (with the fund password, and the authenticator code when on)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const body = c.req.valid("json");
    const r = await partyOrder(c.env.DB, body.id, uid);
    await releaseOrder(c.env, r, sideOf(r, uid), uid, body);
    return ok(c, await viewFor(c.env, r.id, uid));
  })
  .post("/legal_deal_cancel_order", c2cOn, requireUser, jsonBody(c2cIdBodySchema), answers(c2cOrderSchema, { summary: "The buyer cancels an unpaid order (escrow returned)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const r = await partyOrder(c.env.DB, c.req.valid("json").id, uid);
    await transitionOrder(c.env, r, "cancel", sideOf(r, uid), uid);
    return ok(c, await viewFor(c.env, r.id, uid));
  })
  .post("/user_legal_pay_cancel", c2cOn, requireUser, jsonBody(c2cIdBodySchema), answers(c2cOrderSchema, { summary: "The buyer cancels an unpaid order from the pay page (escrow returned)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const r = await partyOrder(c.env.DB, c.req.valid("json").id, uid);
    await transitionOrder(c.env, r, "cancel", sideOf(r, uid), uid);
    return ok(c, await viewFor(c.env, r.id, uid));
  })
  .post("/handle_one", c2cOn, requireUser, jsonBody(c2cIdBodySchema), answers(c2cOrderSchema, { summary: "Countdown zero: the server cancels an unpaid order past its window (idempotent)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const r = await partyOrder(c.env.DB, c.req.valid("json").id, uid);
    await handleOne(c.env, r, uid);
    return ok(c, await viewFor(c.env, r.id, uid));
  })

  // ── Settings and merchants ──────────────────────────────────────────────────────────────────
  .get("/c2c/config", c2cOn, answers(c2cConfigSchema, { summary: "C2C settings of this deployment, and the caller's cancellations today" }), async (c) => {
    const s = c2cSettings(c.env);
    const cur = await getCurrency(c.env.DB, s.depositCurrencyId);
    const viewer = await sessionUser(c.env.DB, c.req.raw);
    const cancels = viewer ? await cancelsOn(c.env.DB, viewer.id, beijingDay(Date.now())) : 0;
    return ok(c, {
      pay_window_seconds: s.payWindowMs / 1000,
      appeal_after_seconds: s.appealAfterMs / 1000,
      merchant_deposit: s.merchantDeposit,
      deposit_currency: cur.name,
      deposit_currency_id: cur.id,
      max_pay_methods: s.maxPayMethods,
      max_unfinished: C2C_MAX_UNFINISHED,
      max_cancels_per_day: C2C_MAX_CANCELS_PER_DAY,
      fiat: C2C_FIAT,
      cancels_today: cancels,
      restricted_until_tomorrow: cancels >= C2C_MAX_CANCELS_PER_DAY,
    });
  })
  .get("/c2c/merchant", c2cOn, requireUser, answers(merchantSchema, { summary: "The caller's merchant state", auth: true }), async (c) => ok(c, await merchantView(c.env.DB, c.get("user").id)))
  .post("/c2c/merchant/apply", c2cOn, requireUser, requireVerified, refuseOperatorMoney, jsonBody(merchantApplySchema), answers(merchantSchema, { summary: "Apply to become a merchant: the USDT deposit is frozen in the legal account", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `c2c-apply:${uid}`, 10, 60 * MINUTE);
    return ok(c, await applyMerchant(c.env, uid, c.req.valid("json").name));
  })
  .post("/c2c/merchant/leave", c2cOn, requireUser, answers(merchantSchema, { summary: "Stop being a merchant (adverts withdrawn first): the deposit is released", auth: true }), async (c) =>
    ok(c, await leaveMerchant(c.env, c.get("user").id)),
  )

  // ── Receiving methods ───────────────────────────────────────────────────────────────────────
  .get("/c2c/pay_methods", c2cOn, requireUser, answers(payMethodListSchema, { summary: "One's receiving methods (id 0: the bank card)", auth: true }), async (c) =>
    ok(c, { lists: await listPayMethods(c.env.DB, c.get("user").id), max: c2cSettings(c.env).maxPayMethods }),
  )
  .post("/c2c/pay_methods", c2cOn, requireUser, requireVerified, jsonBody(payMethodInputSchema), answers(payMethodSchema, { summary: "Add an Alipay, WeChat or other receiving method (holder: the verified real name)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `c2c-method:${uid}`, 30, 60 * MINUTE);
    return ok(c, await addPayMethod(c.env, uid, c.req.valid("json")));
  })
  .post("/c2c/pay_methods/:id", c2cOn, requireUser, requireVerified, params(c2cIdParamSchema), jsonBody(payMethodInputSchema), answers(payMethodSchema, { summary: "Replace one of one's receiving methods", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `c2c-method:${uid}`, 30, 60 * MINUTE);
    return ok(c, await updatePayMethod(c.env.DB, uid, c.req.valid("param").id, c.req.valid("json")));
  })
  .post("/c2c/pay_methods/:id/delete", c2cOn, requireUser, params(c2cIdParamSchema), answers(payMethodDeletedSchema, { summary: "Delete one of one's receiving methods (orders keep what they recorded)", auth: true }), async (c) => {
    const id = c.req.valid("param").id;
    await deletePayMethod(c.env.DB, c.get("user").id, id);
    return ok(c, { id, deleted: true as const });
  })

  // ── Adverts (merchants) ─────────────────────────────────────────────────────────────────────
  .get("/c2c/adverts/mine", c2cOn, requireUser, query(pageQuerySchema), answers(myAdvertPageSchema, { summary: "One's adverts in every state, newest first", auth: true }), async (c) => {
    const { page, limit } = c.req.valid("query");
    return ok(c, await myAdverts(c.env, c.get("user").id, page, limit));
  })
  .post("/c2c/adverts", c2cOn, requireUser, requireVerified, refuseOperatorMoney, jsonBody(advertCreateSchema), answers(c2cAdvertSchema, { summary: "Post an advert on the shelf (merchants; a sell advert escrows its total)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `c2c-advert:${uid}`, 30, 60 * MINUTE);
    const input = await advertInput(c.env.DB, c.req.valid("json"));
    return ok(c, await createAdvert(c.env, uid, input));
  })
  .post("/c2c/adverts/:id/edit", c2cOn, requireUser, params(c2cIdParamSchema), jsonBody(advertEditSchema), answers(c2cAdvertSchema, { summary: "Change an advert that is off the shelf: price, limits, methods, terms (moves no coins)", auth: true }), async (c) =>
    ok(c, await editAdvert(c.env, c.get("user").id, c.req.valid("param").id, c.req.valid("json"))),
  )
  .post("/c2c/adverts/:id/:action{off|on|withdraw}", c2cOn, requireUser, params(advertActionParamSchema), answers(c2cAdvertSchema, { summary: "Take an advert off the shelf, put it back, or withdraw it (off and idle; escrow returned)", auth: true }), async (c) => {
    const { id, action } = c.req.valid("param");
    return ok(c, await merchantAdvertAction(c.env, c.get("user").id, id, action));
  })
  .get("/c2c/merchant/orders", c2cOn, requireUser, query(legalUserDealQuerySchema), answers(c2cOrderPageSchema, { summary: "Orders on one's adverts, newest first", auth: true }), async (c) => {
    const { page, limit, ...filters } = c.req.valid("query");
    const r = await listOrders(c.env, c.get("user").id, filters, page, limit, true);
    return ok(c, { total: r.total, lists: r.lists });
  })

  // ── Chat, appeal and the order's pictures ───────────────────────────────────────────────────
  .get("/c2c/orders/:id/messages", c2cOn, requireUser, params(c2cIdParamSchema), query(chatQuerySchema), answers(c2cMessageListSchema, { summary: "An order's chat after after_id, oldest first (its two parties)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const r = await partyOrder(c.env.DB, c.req.valid("param").id, uid);
    const { after_id, limit } = c.req.valid("query");
    return ok(c, { lists: await listMessages(c.env.DB, r, uid, after_id, limit) });
  })
  .post("/c2c/orders/:id/messages", c2cOn, requireUser, params(c2cIdParamSchema), jsonBody(chatSendSchema), answers(c2cMessageSchema, { summary: "Write in an order's chat: text or a picture (upload id)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `c2c-chat:${uid}`, 60, MINUTE);
    const r = await partyOrder(c.env.DB, c.req.valid("param").id, uid);
    return ok(c, await sendMessage(c.env, r, uid, c.req.valid("json")));
  })
  .post("/c2c/orders/:id/appeal", c2cOn, requireUser, params(c2cIdParamSchema), jsonBody(appealCreateSchema), answers(c2cOrderSchema, { summary: "Appeal a paid order the seller has not confirmed in time (either party)", auth: true }), async (c) => {
    const uid = c.get("user").id;
    const r = await partyOrder(c.env.DB, c.req.valid("param").id, uid);
    const b = c.req.valid("json");
    await createAppeal(c.env, r, uid, b.reason, b.evidence);
    return ok(c, await viewFor(c.env, r.id, uid));
  })
  .get("/c2c/orders/:id/files/:upload", c2cOn, requireUser, params(fileParamSchema), answersFile({ summary: "A picture of an order (proof, chat, evidence, payment code): its parties and operators", auth: true }), async (c) => {
    const { id, upload } = c.req.valid("param");
    return orderFile(c.env, c.get("user"), id, upload);
  });
