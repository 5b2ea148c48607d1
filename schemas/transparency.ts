/**
 * Transparency (issue #20 §2, §3): proof of liabilities and the public summary. The tree and the
 * verifier are in ./liabilities.ts (no zod); these are the endpoints' contracts. Amounts are
 * decimal strings, times epoch milliseconds, hashes 64-character lowercase hex.
 *
 *   GET  /api/transparency                           (public, cached) → transparencySchema
 *   GET  /api/transparency/liabilities               (public)   → liabilitiesSchema
 *   GET  /api/transparency/liabilities/proof         (session)  → liabilityProofSchema
 *   GET  /api/admin/transparency/liabilities/runs    (operator) liabilityRunQuerySchema → liabilityRunPageSchema
 *   POST /api/admin/transparency/liabilities/run     (operator, audited) liabilityRunRequestSchema → liabilityRunSchema
 */
import { z } from "zod";
import { limitInput, multiLineText, pageInput, TEXT_CHARS } from "./strict.ts";

const hashSchema = z.string().regex(/^[0-9a-f]{64}$/);

/** The latest published snapshot: its root and the per-currency totals of every user's balances. */
export const liabilitiesSchema = z.object({
  id: z.number().int(),
  /** when the balances were taken */
  taken_at: z.number().int(),
  root_hash: hashSchema,
  totals: z.array(z.object({ currency: z.string(), total: z.string() })),
  user_count: z.number().int(),
  /** when the daily job takes the next snapshot (00:00 UTC, epoch ms) */
  next_at: z.number().int(),
});
export type Liabilities = z.infer<typeof liabilitiesSchema>;

/** One user's proof of inclusion (the shape of ./liabilities.ts's LiabilityProof). */
export const liabilityProofSchema = z.object({
  version: z.number().int(),
  snapshot_id: z.number().int(),
  taken_at: z.number().int(),
  currencies: z.array(z.object({ name: z.string(), scale: z.number().int() })),
  nonce: hashSchema,
  leaves: z.array(
    z.object({
      part: z.union([z.literal(0), z.literal(1)]),
      binding: hashSchema,
      balances: z.array(z.string()),
      path: z.array(z.object({ side: z.enum(["left", "right"]), hash: hashSchema, sums: z.array(z.string()) })),
    }),
  ),
  root: z.object({ hash: hashSchema, sums: z.array(z.string()) }),
  user_count: z.number().int(),
  leaf_count: z.number().int(),
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
  page: pageInput(),
  limit: limitInput(50, 20),
});
export const liabilityRunPageSchema = z.object({ total: z.number().int(), data: z.array(liabilityRunSchema) });
export type LiabilityRunPage = z.infer<typeof liabilityRunPageSchema>;

/** POST /api/admin/transparency/liabilities/run: take a snapshot now (audited). */
export const liabilityRunRequestSchema = z.object({
  reason: z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500),
});
export type LiabilityRunRequest = z.infer<typeof liabilityRunRequestSchema>;

// ——— the public summary (issue #20 §3): GET /api/transparency (public, cached) → transparencySchema ———

/** What the treasury holds frozen for one product's open commitments, in one currency. */
const reserveSchema = z.object({
  currency: z.string(),
  /** open contracts (seconds) or open positions (leveraged) the reserve stands behind */
  open: z.number().int(),
  /** what the treasury has frozen for them: the most they can win from the house */
  reserved: z.string(),
});

/** Mining payouts recorded (issue #20 §1), per currency; filled by the mining product. */
export const miningPayoutTotalSchema = z.object({
  currency: z.string(),
  /** paid into users' accounts */
  paid: z.string(),
  /** the plans' stated fees kept from those payouts */
  fees: z.string(),
  /** pool hours recorded and distributed */
  hours: z.number().int(),
});
export type MiningPayoutTotal = z.infer<typeof miningPayoutTotalSchema>;

export const transparencySchema = z.object({
  /** when these figures were computed (epoch ms); the answer is cached for `cache_seconds` */
  computed_at: z.number().int(),
  cache_seconds: z.number().int(),
  /** the treasury's frozen reserves for open seconds contracts and open leveraged positions */
  reserves: z.object({ seconds: z.array(reserveSchema), lever: z.array(reserveSchema) }),
  /** the contract-asset cover, per currency: premiums collected, claims paid, cover still reserved */
  cover: z.array(
    z.object({
      currency: z.string(),
      premiums: z.string(),
      claims_paid: z.string(),
      /** number of claims paid */
      claims: z.number().int(),
      /** covers sold */
      sold: z.number().int(),
      /** the treasury's frozen reserve for live covers */
      reserved: z.string(),
    }),
  ),
  /** fee revenue: the fee account's rows of every product's fee kinds (fees charged less fees given back) */
  fees: z.array(z.object({ currency: z.string(), total: z.string(), products: z.array(z.object({ product: z.string(), amount: z.string() })) })),
  /** the latest published liabilities snapshot (GET /api/transparency/liabilities), null before the first */
  liabilities: liabilitiesSchema.nullable(),
  /** mining payouts recorded; absent or empty: none yet */
  mining: z.array(miningPayoutTotalSchema).optional(),
});
export type Transparency = z.infer<typeof transparencySchema>;
