/**
 * The maintenance switch (worker/lib/maintenance.ts): the read-only window of a migration.
 * GET /api/admin/maintenance reads it; POST /api/admin/maintenance turns it on or off (audited,
 * a reason required). The same two under /api/dev/accounts/maintenance locally, for
 * scripts/migrate-accounts.mjs.
 */
import { z } from "zod";
import { flagInput, multiLineText, TEXT_CHARS } from "./strict.ts";

/** An operator's reason for a step of the migration (the window, the cut-over's steps): required, audited. */
export const operatorReasonInput = () => z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500);

export const maintenanceSetSchema = z.strictObject(
  {
    on: flagInput(),
    reason: operatorReasonInput(),
  },
  { error: "invalid_param" },
);
export type MaintenanceSet = z.infer<typeof maintenanceSetSchema>;

export const maintenanceStateSchema = z.object({
  on: z.boolean(),
  /** when the window started (ms), null when off */
  since: z.number().int().nullable(),
  /** every Worker isolate sees a change within this many ms: money requests already past the switch end within `settle_ms` more */
  refresh_ms: z.number().int(),
  settle_ms: z.number().int(),
});
export type MaintenanceStateOut = z.infer<typeof maintenanceStateSchema>;
