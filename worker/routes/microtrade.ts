/**
 * Seconds contracts (spec §7 /api/microtrade/*; DESIGN §7). Parses, authorises and calls
 * worker/domain/seconds/. The whole product answers feature_off when PRODUCT_SECONDS is off;
 * submitting needs identity verification (998). The tick log is public: anyone can check the
 * entry and exit prices of any contract (and, with GET /api/currency/index_tick, one tick with
 * its neighbours, open whichever products are switched on).
 */
import { Hono, type Context } from "hono";
import { createMiddleware } from "hono/factory";
import { formatUnits } from "../../schemas/money.ts";
import {
  payableCurrencyListSchema,
  secondsHistoryQuerySchema,
  secondsOptionListSchema,
  secondsOrderListSchema,
  secondsOrderPageSchema,
  secondsOrderQuerySchema,
  secondsOrderSchema,
  secondsSubmitSchema,
  tickPageSchema,
  tickQuerySchema,
  tickWindowQuerySchema,
  tickWindowSchema,
} from "../../schemas/seconds.ts";
import { confirmTrader, requireTrader, requireUser, sessionUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { ApiError } from "../lib/errors.ts";
import { userBalance } from "../domain/wallet/object-reads.ts";
import { pairById, pairStub } from "../domain/spot/pairs.ts";
import { productsOf } from "../lib/products.ts";
import { answers, answersNew, ok, okNew } from "../lib/respond.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { listOptions, listPayable, optionOut, payableOut } from "../domain/seconds/config.ts";
import { contractHistory, contractOf, runningContracts, submitContract } from "../domain/seconds/orders.ts";
import { drainOwnContracts } from "../domain/seconds/objects.ts";
import { cachedPublic, PUBLIC_LISTS } from "../lib/public-cache.ts";

/** Every endpoint of the product refuses when the deployment switched it off. */
const secondsOn = createMiddleware<AppEnv>(async (c, next) => {
  if (!productsOf(c.env).seconds) throw new ApiError("feature_off", 403);
  await next();
});

export const microtradeRoutes = new Hono<AppEnv>()
  .use("/microtrade/*", secondsOn)
  .use("/new/microtrade/*", secondsOn)
  .get("/microtrade/seconds", answers(secondsOptionListSchema, { summary: "Offered durations with their profit ratio" }), async (c) => ok(c, await cachedPublic(PUBLIC_LISTS.seconds, async () => (await listOptions(c.env.DB, true)).map(optionOut))))
  .get("/microtrade/payable_currencies", answers(payableCurrencyListSchema, { summary: "Currencies a contract may be paid in, with one's micro balance when logged in" }), async (c) => {
    const db = c.env.DB;
    const user = await sessionUser(db, c.req.raw);
    const list = await listPayable(db, true);
    const out = [];
    for (const p of list) {
      const wallet = user ? { micro_balance: formatUnits((await userBalance(c.env, user.id, p.currencyId, "micro")).available, p.scale), currency_name: p.name } : null;
      out.push(payableOut(p, wallet));
    }
    return ok(c, out);
  })
  // requireTrader: requireUser, refuseOperatorMoney and requireVerified in one; with a session hint the
  // contract's freeze batch carries the session check (worker/lib/auth.ts "Session hints").
  .post("/microtrade/submit", requireTrader, jsonBody(secondsSubmitSchema), answers(secondsOrderSchema, { summary: "Open a contract (type 1 up, 2 down); 998 until verified", auth: true }), async (c) =>
    ok(
      c,
      await submitContract(c.env, c.get("user").id, c.req.valid("json"), Date.now(), {
        guard: c.get("sessionGuard"),
        confirm: () => confirmTrader(c as unknown as Context<AppEnv>),
      }),
    ),
  )
  // Objects mode: the pairs holding one's open contracts drain first, so D1 has every contract the user opened (drainOwnContracts).
  .get("/microtrade/lists", requireUser, answers(secondsOrderListSchema, { summary: "One's running contracts and those settled in the last minute", auth: true }), async (c) => {
    await drainOwnContracts(c.env, c.get("user").id);
    return ok(c, await runningContracts(c.env.DB, c.get("user").id));
  })
  .get("/new/microtrade/lists", requireUser, query(secondsHistoryQuerySchema), answersNew(secondsOrderPageSchema, { summary: "One's contracts, newest first", auth: true }), async (c) => {
    await drainOwnContracts(c.env, c.get("user").id);
    return okNew(c, await contractHistory(c.env.DB, c.get("user").id, c.req.valid("query")));
  })
  .get("/microtrade/order", requireUser, query(secondsOrderQuerySchema), answers(secondsOrderSchema, { summary: "One of one's contracts, with the entry and exit tick ids its result is checked against", auth: true }), async (c) => {
    await drainOwnContracts(c.env, c.get("user").id);
    return ok(c, await contractOf(c.env.DB, c.get("user").id, c.req.valid("query").id));
  })
  .get("/microtrade/ticks", query(tickQuerySchema), answers(tickPageSchema, { summary: "A pair's public index ticks between two times (ms), oldest first" }), async (c) => {
    const q = c.req.valid("query");
    const pair = await pairById(c.env.DB, q.match_id);
    if (!pair) throw new ApiError("pair_closed");
    const to = q.to ?? Date.now();
    const from = q.from ?? to - 3_600_000;
    if (from > to) throw new ApiError("invalid_field", 400, { field: "from" });
    return ok(c, await pairStub(c.env, pair.id).ticks(pair.id, from, to, q.page, q.limit));
  })
  // The pair's index, not the product: leveraged positions open and close at these ticks too, so
  // this stays readable whichever products are switched on (issue #20 §3).
  .get("/currency/index_tick", query(tickWindowQuerySchema), answers(tickWindowSchema, { summary: "One public index tick of a pair with up to n ticks either side, oldest first" }), async (c) => {
    const q = c.req.valid("query");
    const pair = await pairById(c.env.DB, q.match_id);
    if (!pair) throw new ApiError("pair_closed");
    const w = await pairStub(c.env, pair.id).tickWindow(pair.id, q.id, q.n);
    if (!w) throw new ApiError("not_found", 404);
    return ok(c, w);
  });
