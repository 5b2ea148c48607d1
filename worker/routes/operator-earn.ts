/**
 * Operator console for savings (/api/admin/earn/*; role operator only): list every product with
 * its budget and what remains, publish a product (its interest budget frozen from the treasury in
 * the same batch) and close one to new subscriptions (open positions run to their end; the
 * unpromised budget goes back to the treasury). Both actions need a reason and are audited.
 * Nothing here touches a position or a user's money.
 */
import { Hono } from "hono";
import { earnAdminProductListSchema, earnProductCloseSchema, earnProductCreateSchema } from "../../schemas/earn.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { adminProducts, closeProduct, createProduct } from "../domain/earn/catalogue.ts";
import { invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

export const operatorEarnRoutes = new Hono<AppEnv>()
  .use("/admin/earn/*", requireUser, requireOperator, invalidates(PUBLIC_LISTS.earn))
  .get("/admin/earn/products", answers(earnAdminProductListSchema, { summary: "Every savings product with its budget, reserved, paid, released and remaining, and its open positions", auth: true }), async (c) =>
    ok(c, await adminProducts(c.env.DB)),
  )
  .post("/admin/earn/products", jsonBody(earnProductCreateSchema), answers(earnAdminProductListSchema, { summary: "Publish a savings product; its interest budget is frozen from the treasury (audited)", auth: true }), async (c) => {
    await createProduct(c.env, c.get("user").id, c.req.valid("json"));
    return ok(c, await adminProducts(c.env.DB));
  })
  .post("/admin/earn/close", jsonBody(earnProductCloseSchema), answers(earnAdminProductListSchema, { summary: "Close a savings product to new subscriptions; open positions run to their end (audited)", auth: true }), async (c) => {
    const b = c.req.valid("json");
    await closeProduct(c.env, c.get("user").id, b.product_id, b.reason);
    return ok(c, await adminProducts(c.env.DB));
  });
