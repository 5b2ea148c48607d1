/**
 * Operator console for C2C (/api/admin/c2c/*; operators only, like the rest of /api/admin):
 * merchant applications (approve / reject), adverts (mark abnormal), appeals (list, detail with
 * the order, proof, chat and events; a message to both parties; release to the buyer or return
 * to the seller). Every decision
 * carries a reason and is audited in the batch that makes it; an operator never decides anything
 * of their own (refused and audited). Appeal decisions are the only operator action that moves
 * an order's escrow.
 */
import { Hono } from "hono";
import {
  adminAdvertPageSchema,
  adminAppealDetailSchema,
  adminAppealPageSchema,
  adminC2cListQuerySchema,
  adminMerchantPageSchema,
  c2cDecisionResultSchema,
  c2cDecisionSchema,
  c2cIdParamSchema,
  c2cMessageSchema,
  operatorMessageSchema,
} from "../../schemas/c2c.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, params, query } from "../lib/validate.ts";
import { adminAdverts, markAdvertAbnormal } from "../domain/c2c/adverts.ts";
import { adminAppealDetail, adminAppeals, decideAppeal } from "../domain/c2c/appeals.ts";
import { sendOperatorMessage } from "../domain/c2c/chat.ts";
import { adminMerchants, decideMerchantApplication } from "../domain/c2c/merchants.ts";
import { c2cOn } from "./c2c.ts";

export const operatorC2cRoutes = new Hono<AppEnv>()
  .use("/admin/c2c/*", requireUser, requireOperator, c2cOn)
  .get("/admin/c2c/merchants", query(adminC2cListQuerySchema), answers(adminMerchantPageSchema, { summary: "Merchant applications (filter by status, user)", auth: true }), async (c) => {
    const { page, limit, status, user_id } = c.req.valid("query");
    return ok(c, await adminMerchants(c.env.DB, c.get("user").id, status, user_id, page, limit));
  })
  .post("/admin/c2c/merchants/:id/approve", params(c2cIdParamSchema), jsonBody(c2cDecisionSchema), answers(c2cDecisionResultSchema, { summary: "Approve a merchant application (reason required; audited)", auth: true }), async (c) =>
    ok(c, await decideMerchantApplication(c.env, c.get("user").id, c.req.valid("param").id, true, c.req.valid("json").reason)),
  )
  .post("/admin/c2c/merchants/:id/reject", params(c2cIdParamSchema), jsonBody(c2cDecisionSchema), answers(c2cDecisionResultSchema, { summary: "Reject a merchant application: the deposit is returned (reason required; audited)", auth: true }), async (c) =>
    ok(c, await decideMerchantApplication(c.env, c.get("user").id, c.req.valid("param").id, false, c.req.valid("json").reason)),
  )
  .get("/admin/c2c/adverts", query(adminC2cListQuerySchema), answers(adminAdvertPageSchema, { summary: "C2C adverts in every state (filter by status, merchant)", auth: true }), async (c) => {
    const { page, limit, status, user_id } = c.req.valid("query");
    return ok(c, await adminAdverts(c.env.DB, status, user_id, page, limit));
  })
  .post("/admin/c2c/adverts/:id/abnormal", params(c2cIdParamSchema), jsonBody(c2cDecisionSchema), answers(c2cDecisionResultSchema, { summary: "Mark an idle advert abnormal (no new orders; moves no money; audited)", auth: true }), async (c) =>
    ok(c, await markAdvertAbnormal(c.env, c.get("user").id, c.req.valid("param").id, c.req.valid("json").reason)),
  )
  .get("/admin/c2c/appeals", query(adminC2cListQuerySchema), answers(adminAppealPageSchema, { summary: "C2C appeals, open first (filter by status, party)", auth: true }), async (c) => {
    const { page, limit, status, user_id } = c.req.valid("query");
    return ok(c, await adminAppeals(c.env, c.get("user").id, status, user_id, page, limit));
  })
  .get("/admin/c2c/appeals/:id", params(c2cIdParamSchema), answers(adminAppealDetailSchema, { summary: "An appeal with the order, proof, whole chat and state changes", auth: true }), async (c) =>
    ok(c, await adminAppealDetail(c.env, c.get("user").id, c.req.valid("param").id)),
  )
  .post("/admin/c2c/appeals/:id/messages", params(c2cIdParamSchema), jsonBody(operatorMessageSchema), answers(c2cMessageSchema, { summary: "Write to both parties in an appealed order's chat (audited; never one's own order)", auth: true }), async (c) =>
    ok(c, await sendOperatorMessage(c.env, c.get("user").id, c.req.valid("param").id, c.req.valid("json").text)),
  )
  .post("/admin/c2c/appeals/:id/release", params(c2cIdParamSchema), jsonBody(c2cDecisionSchema), answers(c2cDecisionResultSchema, { summary: "Decide an appeal: coins to the buyer (reason required; audited; never one's own order)", auth: true }), async (c) =>
    ok(c, await decideAppeal(c.env, c.get("user").id, c.req.valid("param").id, true, c.req.valid("json").reason)),
  )
  .post("/admin/c2c/appeals/:id/return", params(c2cIdParamSchema), jsonBody(c2cDecisionSchema), answers(c2cDecisionResultSchema, { summary: "Decide an appeal: coins back to the seller (reason required; audited; never one's own order)", auth: true }), async (c) =>
    ok(c, await decideAppeal(c.env, c.get("user").id, c.req.valid("param").id, false, c.req.valid("json").reason)),
  );
