/**
 * Cron (every minute): closes support tickets resolved at least 7 days ago, as the system. Each
 * close is a status event that checks the ticket is still resolved as it is written, so a user
 * reply that reopened it first wins, and a job that fires twice closes nothing twice.
 */
import { AUTO_CLOSE_MS } from "../../schemas/support.ts";
import { closeResolvedTickets } from "../domain/support/tickets.ts";
import type { Job } from "./job.ts";

export const supportAutoCloseJob: Job = {
  name: "support-autoclose",
  async run(env, { now }) {
    const closed = await closeResolvedTickets(env.DB, now, AUTO_CLOSE_MS);
    if (closed > 0) console.log(JSON.stringify({ level: "info", event: "support_tickets_closed", closed }));
  },
};
