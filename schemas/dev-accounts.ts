/**
 * The move of D1's balances into the account objects (issue #28): the operators' routes under
 * /api/admin/accounts (a deployed exchange; each body also carries the operator's `reason`, audited)
 * and the same steps local only (under `npm start`: DEV_OUTBOX and DEV_CLOCK on): POST /api/dev/accounts/migrate opens the next users' objects from
 * the cursor, POST /api/dev/accounts/verify compares a range of users' totals. Driven by
 * scripts/migrate-accounts.mjs. POST /api/dev/accounts/system opens the system accounts' shard objects.
 * POST /api/dev/accounts/cut-over records, once every total matched, that the objects hold the money
 * (worker/lib/maintenance.ts: until then a Worker with ACCOUNTS=objects refuses money routes).
 */
import { z } from "zod";
import { maintenanceStateSchema, operatorReasonInput } from "./maintenance.ts";
import { intInput, limitInput } from "./strict.ts";

const userId = () => intInput({ message: "invalid_param", min: 1 });

/** Users per step; `first`/`last`: one range of user ids (each range keeps its own cursor, so drivers run side by side). */
export const devAccountsMigrateSchema = z.strictObject({ limit: limitInput(500, 100), first: userId().optional(), last: userId().optional() }, { error: "invalid_param" });

export const devAccountsMigratedSchema = z.object({
  imported: z.number().int(),
  seen: z.number().int(),
  /** users whose object, opened before, no longer equals D1 */
  mismatched: z.array(z.number().int()),
  /** users whose object refused or failed: the cursor stays before the first of them */
  failed: z.array(z.object({ user_id: z.number().int(), error: z.string() })),
  cursor: z.number().int(),
  done: z.boolean(),
});

/** The users after `after` (a user id; 0 = from the first), `limit` of them, up to `last`. */
export const devAccountsVerifySchema = z.strictObject(
  { after: intInput({ message: "invalid_param", min: 0 }).default(0), limit: limitInput(500, 100), last: userId().optional() },
  { error: "invalid_param" },
);

export const devAccountsVerifiedSchema = z.object({
  checked: z.number().int(),
  mismatched: z.array(z.object({ user_id: z.number().int(), where: z.enum(["object", "read_model"]) })),
  next: z.number().int(),
  done: z.boolean(),
});

/** The system accounts' shards opened from D1 (no input: every system balance, split over the shards). */
export const devAccountsSystemSchema = z.strictObject({}, { error: "invalid_param" });

export const devAccountsSystemOpenedSchema = z.object({
  /** shards opened now, or found opened before */
  imported: z.number().int(),
  seen: z.number().int(),
  /** D1 system rows not moved (below zero by design: the deposits account mirrors the outside world) */
  skipped: z.array(z.object({ user_id: z.number().int(), account: z.string(), currency_id: z.number().int(), available: z.string(), frozen: z.string() })),
  /** system accounts whose shards, summed, differ from D1 */
  mismatched: z.array(z.object({ user_id: z.number().int(), where: z.enum(["object", "read_model"]) })),
});

/** The cut-over's last step (no input). */
export const devAccountsCutOverSchema = z.strictObject({}, { error: "invalid_param" });

export const devAccountsCutOverDoneSchema = z.object({
  /** what D1's `settings` row says: how and when the cut-over was first recorded ("cut-over 2026-…", "fresh 2026-…") */
  cut_over: z.string(),
});

/** The operators' steps (POST /api/admin/accounts/…): the same bodies with the operator's reason. */
const withReason = { reason: operatorReasonInput() };
export const adminAccountsMigrateSchema = devAccountsMigrateSchema.extend(withReason);
export const adminAccountsVerifySchema = devAccountsVerifySchema.extend(withReason);
export const adminAccountsStepSchema = z.strictObject(withReason, { error: "invalid_param" });

/** Where the cut-over stands (GET /api/admin/accounts, GET /api/dev/accounts). */
export const accountsCutOverStateSchema = z.object({
  /** what this Worker runs with: "objects" (balances in the account objects) or "d1" */
  accounts: z.enum(["objects", "d1"]),
  /** the cut-over's record in D1 ("cut-over 2026-…", "fresh 2026-…"), null before it */
  cut_over: z.string().nullable(),
  /** the opening's cursor over every user: the last user id opened */
  opened_to: z.number().int(),
  /** user ids compared equal in this window (after it settled), as intervals */
  verified: z.array(z.object({ first: z.number().int(), last: z.number().int() })),
  /** null when the cut-over may be recorded now (or was); else what it waits for, an error key */
  waiting_for: z.string().nullable(),
  window: maintenanceStateSchema,
});
