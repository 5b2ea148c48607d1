/** The console's "settle this past day now" action: audited, then the same settlement as the cron. */
import type { InviteRun, InviteRunRequest } from "../../../schemas/invite.ts";
import { ApiError } from "../../lib/errors.ts";
import { auditStatement } from "../../lib/guarded.ts";
import { beijingDay } from "./days.ts";
import { runView, settleDay, type SettleEnv } from "./settle.ts";

export async function runDayNow(env: SettleEnv, operatorId: number, req: InviteRunRequest, now = Date.now()): Promise<InviteRun> {
  if (!(req.day < beijingDay(now)) || req.day < "2000-01-01") throw new ApiError("invite_day_not_past");
  await auditStatement(env.DB, { operatorId, action: "invite.run", targetType: "invite_run", targetId: req.day, reason: req.reason }, now).run();
  const run = await settleDay(env, req.day, now, 400);
  const usdt = await env.DB.prepare("SELECT scale FROM currencies WHERE name = 'USDT'").first<{ scale: number }>();
  return runView(run, usdt?.scale ?? 8);
}
