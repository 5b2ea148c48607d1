/**
 * CSV exports (issue #29): every balance change and every spot trade of one's own, dated in UTC,
 * exact amounts, for spreadsheets and tax tools. Readable with a session or a read-scoped API key.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { exportRangeSchema } from "../../schemas/export.ts";
import { apiKeyAccess } from "../lib/api-keys.ts";
import { requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { rateLimit } from "../lib/ratelimit.ts";
import { answersFile } from "../lib/respond.ts";
import { query } from "../lib/validate.ts";
import { dayRange, ledgerCsv, tradesCsv } from "../domain/export/csv.ts";
import { accountReads } from "../domain/wallet/object-reads.ts";

const READ_KEY = apiKeyAccess("read");

function csvFile(c: Context<AppEnv>, name: string, body: ReadableStream<Uint8Array>) {
  return c.body(body, 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}"` });
}

export const exportRoutes = new Hono<AppEnv>()
  .get("/export/ledger.csv", READ_KEY, requireUser, query(exportRangeSchema), answersFile({ summary: "Every balance change (UTC time, account, currency, amount, frozen amount, balances after, kind, reference id) between two UTC days, as CSV", auth: true }, ["text/csv"]), async (c) => {
    const user = c.get("user");
    await rateLimit(c.env.DB, `export:${user.id}`, 30, 10 * 60_000);
    return csvFile(c, "ledger.csv", await ledgerCsv(c.env.DB, user.id, dayRange(c.req.valid("query")), accountReads(c.env)));
  })
  .get("/export/trades.csv", READ_KEY, requireUser, query(exportRangeSchema), answersFile({ summary: "Every spot trade (UTC time, pair, side, maker/taker, price, amount, total, fee) between two UTC days, as CSV", auth: true }, ["text/csv"]), async (c) => {
    const user = c.get("user");
    await rateLimit(c.env.DB, `export:${user.id}`, 30, 10 * 60_000);
    return csvFile(c, "trades.csv", await tradesCsv(c.env.DB, user.id, dayRange(c.req.valid("query"))));
  });
