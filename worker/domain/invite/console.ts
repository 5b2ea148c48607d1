/**
 * The console's "settle a day now" action: audited, then the same settlement as the cron. A past
 * Beijing day is settled whole; today is closed early, up to now (the rest of today is counted in
 * tomorrow's run, which starts where this one stopped).
 */
import type { InviteRun, InviteRunRequest } from "../../../schemas/invite.ts";
import { ApiError } from "../../lib/errors.ts";
import { auditStatement } from "../../lib/guarded.ts";
import { beijingDay } from "./days.ts";
import { runView, settleDay, type SettleEnv } from "./settle.ts";

export async function runDayNow(env: SettleEnv, operatorId: number, req: InviteRunRequest, now = Date.now()): Promise<InviteRun> {
  const today = beijingDay(now);
  if (req.day > today || req.day < "2000-01-01") throw new ApiError("invite_day_not_past");
  await auditStatement(env.DB, { operatorId, action: "invite.run", targetType: "invite_run", targetId: req.day, reason: req.reason }, now).run();
  const run = await settleDay(env, req.day, now, 400, req.day === today);
  const usdt = await env.DB.prepare("SELECT scale FROM currencies WHERE name = 'USDT'").first<{ scale: number }>();
  return runView(run, usdt?.scale ?? 8);
}
