/**
 * Transparency (issue #20 §2): proof of liabilities. The tree and the verifier are in
 * ./liabilities.ts (no zod); these are the endpoints' contracts. Amounts are decimal strings,
 * times epoch milliseconds, hashes 64-character lowercase hex.
 *
 *   GET  /api/transparency/liabilities               (public)   → liabilitiesSchema
 *   GET  /api/transparency/liabilities/proof         (session)  → liabilityProofSchema
 *   GET  /api/admin/transparency/liabilities/runs    (operator) liabilityRunQuerySchema → liabilityRunPageSchema
 *   POST /api/admin/transparency/liabilities/run     (operator, audited) liabilityRunRequestSchema → liabilityRunSchema
 */
import { z } from "zod";

const hashSchema = z.string().regex(/^[0-9a-f]{64}$/);

/** The latest published snapshot: its root and the per-currency totals of every user's balances. */
export const liabilitiesSchema = z.object({
  id: z.number().int(),
  /** when the balances were taken */
  taken_at: z.number().int(),
  root_hash: hashSchema,
  totals: z.array(z.object({ currency: z.string(), total: z.string() })),
  user_count: z.number().int(),
});
export type Liabilities = z.infer<typeof liabilitiesSchema>;

/** One user's proof of inclusion (the shape of ./liabilities.ts's LiabilityProof). */
export const liabilityProofSchema = z.object({
  version: z.number().int(),
  snapshot_id: z.number().int(),
  taken_at: z.number().int(),
  currencies: z.array(z.object({ name: z.string(), scale: z.number().int() })),
  leaf: z.object({ nonce: hashSchema, balances: z.array(z.string()) }),
  path: z.array(z.object({ side: z.enum(["left", "right"]), hash: hashSchema, sums: z.array(z.string()) })),
  root: z.object({ hash: hashSchema, sums: z.array(z.string()) }),
  user_count: z.number().int(),
});
export type LiabilityProofAnswer = z.infer<typeof liabilityProofSchema>;

export const liabilityRunStatusSchema = z.enum(["running", "published", "failed"]);
export type LiabilityRunStatus = z.infer<typeof liabilityRunStatusSchema>;

/** One snapshot run, as the console shows it. */
export const liabilityRunSchema = z.object({
  id: z.number().int(),
  /** "cron" (the daily job) or "operator" (the console's button) */
  trigger: z.enum(["cron", "operator"]),
  status: liabilityRunStatusSchema,
  /** copy → leaves → top → prune → done */
  phase: z.string(),
  user_count: z.number().int(),
  root_hash: z.string().nullable(),
  /** invocations (cron or console) that worked on this snapshot */
  invocations: z.number().int(),
  /** D1 statements they ran */
  statements: z.number().int(),
  started_at: z.number().int(),
  taken_at: z.number().int().nullable(),
  finished_at: z.number().int().nullable(),
  /** why it was not published: negative balances, or totals that differ from the ledger */
  problem: z
    .object({
      negative_users: z.number().int(),
      mismatches: z.array(z.object({ currency: z.string(), balances: z.string(), ledger: z.string(), snapshot: z.string(), tree: z.string().nullable() })),
    })
    .nullable(),
  /** per-currency totals checked (balances table, ledger rows, the snapshot's copy, the tree's root) */
  totals: z.array(z.object({ currency: z.string(), balances: z.string(), ledger: z.string(), snapshot: z.string(), tree: z.string().nullable() })),
});
export type LiabilityRun = z.infer<typeof liabilityRunSchema>;

export const liabilityRunQuerySchema = z.object({
  page: z.coerce.number({ message: "invalid_param" }).int().min(1).max(100_000).default(1),
  limit: z.coerce.number({ message: "invalid_param" }).int().min(1).max(50).default(20),
});
export const liabilityRunPageSchema = z.object({ total: z.number().int(), data: z.array(liabilityRunSchema) });
export type LiabilityRunPage = z.infer<typeof liabilityRunPageSchema>;

/** POST /api/admin/transparency/liabilities/run: take a snapshot now (audited). */
export const liabilityRunRequestSchema = z.object({
  reason: z.string({ message: "reason_required" }).trim().min(1, { message: "reason_required" }).max(500),
});
export type LiabilityRunRequest = z.infer<typeof liabilityRunRequestSchema>;
