/**
 * Launch subscriptions and locked positions (issue #19 §2). Operators publish a project (a token,
 * one price per accepted currency, the supply for sale reserved in the treasury, a per-user cap,
 * a commit window, a vesting schedule); users commit funds in one accepted currency, escrowed in
 * their own spot account; when the window ends every committer gets
 * allocation = min(cap, demand, floor(demand × supply / total demand)) tokens (demand: the tokens
 * a commitment buys at its price), pays its cost (rounded up to the unit) and gets the rest back to
 * the unit; the tokens are locked in the user's spot account and unlock on the schedule; `claim`
 * moves what has vested to the available balance.
 *
 * Amounts are decimal strings; times are epoch milliseconds.
 *
 *   GET  /api/launch/projects              (public; one's own commitment with a session) → launchProjectListSchema
 *   POST /api/launch/commit                (verified user) launchCommitSchema → launchSubscriptionSchema
 *   GET  /api/launch/my                    (session) → launchSubscriptionListSchema
 *   POST /api/launch/claim                 (session) launchClaimSchema → launchSubscriptionSchema
 *   GET  /api/admin/launch/projects        (operator) → launchProjectListSchema (drafts too)
 *   POST /api/admin/launch/projects        (operator, audited) launchProjectCreateSchema → launchProjectSchema
 *   POST /api/admin/launch/publish         (operator, audited) launchActionSchema → launchProjectSchema
 *   POST /api/admin/launch/cancel          (operator, audited) launchActionSchema → launchProjectSchema
 */
import { z } from "zod";
import { idInput, intInput, multiLineText, singleLineText, TEXT_CHARS } from "./strict.ts";
import { decimalStringSchema } from "./money.ts";
import { amountInputSchema, currencyIdSchema } from "./wallet.ts";

/** The currencies a launch may be paid in (spec §9): BTC 1, ETH 2, USDT 3. */
export const LAUNCH_CURRENCIES = [3, 1, 2] as const;

export const launchStatuses = ["draft", "open", "allocating", "done", "cancelling", "cancelled"] as const;
export type LaunchStatus = (typeof launchStatuses)[number];
export const subscriptionStatuses = ["committed", "allocated", "refunded"] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

const DAY_MS = 86_400_000;

export interface Vesting {
  /** epoch ms when vesting starts (the window's end) */
  start: number;
  cliffDays: number;
  vestDays: number;
  /** 0: linear by the second; n: n equal steps */
  steps: number;
}

/**
 * Tokens of `alloc` unlocked at `now`: nothing before start + cliff; then linear over vestDays (or
 * in `steps` equal steps, the first one vestDays/steps after the cliff), all of it at the end.
 * Rounded down to the unit; pure bigint maths shared by the server and the screens.
 */
export function vestedUnits(alloc: bigint, v: Vesting, now: number): bigint {
  const cliffEnd = v.start + v.cliffDays * DAY_MS;
  if (now < cliffEnd) return 0n;
  const span = BigInt(v.vestDays) * BigInt(DAY_MS);
  if (span === 0n) return alloc;
  const elapsed = BigInt(now - cliffEnd);
  if (elapsed >= span) return alloc;
  if (v.steps > 0) {
    const steps = BigInt(v.steps);
    return (alloc * ((elapsed * steps) / span)) / steps;
  }
  return (alloc * elapsed) / span;
}

/** When the next unlock happens after `now` (null when everything is unlocked, or it unlocks continuously). */
export function nextUnlockAt(v: Vesting, now: number): number | null {
  const cliffEnd = v.start + v.cliffDays * DAY_MS;
  if (now < cliffEnd) return cliffEnd + (v.steps > 0 && v.vestDays > 0 ? Math.ceil((v.vestDays * DAY_MS) / v.steps) : 0);
  const end = cliffEnd + v.vestDays * DAY_MS;
  if (now >= end) return null;
  if (v.steps === 0) return null;
  const stepMs = (v.vestDays * DAY_MS) / v.steps;
  const k = Math.floor((now - cliffEnd) / stepMs) + 1;
  return Math.min(end, Math.ceil(cliffEnd + k * stepMs));
}

/**
 * The pro-rata rule: each committer's allocation in token units, from their demand (the tokens
 * their commitment buys at its price). Undersubscribed: everyone gets their demand; oversubscribed:
 * floor(demand × supply / total demand). Never above the cap. The rounding remainder stays with the treasury.
 */
export function allocationOf(demand: bigint, totalDemand: bigint, supply: bigint, cap: bigint): bigint {
  if (totalDemand <= 0n || demand <= 0n) return 0n;
  const prorata = totalDemand <= supply ? demand : (demand * supply) / totalDemand;
  return prorata < cap ? prorata : cap;
}

/** Tokens a payment of `amount` buys at `price` (payment units per whole token), rounded down. */
export function demandOf(amount: bigint, price: bigint, tokenScale: number): bigint {
  return (amount * 10n ** BigInt(tokenScale)) / price;
}

/** What `alloc` tokens cost at `price`, rounded up to the unit of the payment currency (never above what was committed). */
export function costOf(alloc: bigint, price: bigint, tokenScale: number): bigint {
  const d = 10n ** BigInt(tokenScale);
  return (alloc * price + d - 1n) / d;
}

// ---- requests ----

export const launchProjectIdSchema = idInput({ message: "invalid_param" });

/** POST /api/launch/commit */
export const launchCommitSchema = z.object({
  project_id: launchProjectIdSchema,
  currency_id: currencyIdSchema,
  amount: amountInputSchema,
});
export type LaunchCommitInput = z.infer<typeof launchCommitSchema>;

/** POST /api/launch/claim: the subscription's id (GET /api/launch/my `id`). */
export const launchClaimSchema = z.object({ id: launchProjectIdSchema });

const reason = z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500, { message: "reason_required" });
const days = intInput({ message: "invalid_param", max: 3650 });
const epochMs = intInput({ message: "invalid_param", max: 8_640_000_000_000_000 });

/**
 * POST /api/admin/launch/projects: a draft (nothing is reserved until it is published). The token is
 * an existing currency (`token_id`) or a new one (`token_name` + `token_scale`), created unlisted
 * (no trading pair, not shown in the currency lists).
 */
export const launchProjectCreateSchema = z
  .object({
    title: z.string({ message: "invalid_param" }).trim().refine(singleLineText, TEXT_CHARS).min(1, { message: "missing_field" }).max(80, { message: "too_long" }),
    token_id: currencyIdSchema.optional(),
    token_name: z
      .string({ message: "invalid_param" })
      .trim()
      .refine(singleLineText, TEXT_CHARS)
      .regex(/^[A-Z0-9]{2,12}$/, { message: "launch_token_name" })
      .optional(),
    token_scale: intInput({ message: "invalid_param", max: 8 }).optional(),
    /** one price per accepted currency: units of that currency per whole token */
    prices: z
      .array(z.object({ currency_id: currencyIdSchema, price: decimalStringSchema }), { message: "invalid_param" })
      .min(1, { message: "launch_prices" })
      .max(3, { message: "launch_prices" }),
    supply: decimalStringSchema,
    cap: decimalStringSchema,
    start_at: epochMs,
    end_at: epochMs,
    cliff_days: days,
    vest_days: days,
    vest_steps: intInput({ message: "invalid_param", max: 120 }).default(0),
    listing_note: z.string({ message: "invalid_param" }).trim().refine(multiLineText, TEXT_CHARS).max(500, { message: "too_long" }).default(""),
    reason,
  })
  .refine((b) => (b.token_id === undefined) !== (b.token_name === undefined), { message: "launch_token", path: ["token_id"] })
  .refine((b) => b.end_at > b.start_at, { message: "launch_window", path: ["end_at"] })
  .refine((b) => new Set(b.prices.map((p) => p.currency_id)).size === b.prices.length, { message: "launch_prices", path: ["prices"] });
export type LaunchProjectCreate = z.infer<typeof launchProjectCreateSchema>;

/** POST /api/admin/launch/publish and /cancel */
export const launchActionSchema = z.object({ id: launchProjectIdSchema, reason });

// ---- answers ----

export const launchPriceSchema = z.object({
  currency_id: z.number().int(),
  currency: z.string(),
  /** units of this currency per whole token */
  price: z.string(),
  /** the most one user may commit in this currency (the cap's cost) */
  max_amount: z.string(),
  /** committed in this currency so far */
  committed: z.string(),
});

export const launchProjectSchema = z.object({
  id: z.number().int(),
  title: z.string(),
  token_id: z.number().int(),
  token: z.string(),
  token_scale: z.number().int(),
  status: z.enum(launchStatuses),
  prices: z.array(launchPriceSchema),
  /** tokens for sale, reserved in the treasury since publication */
  supply: z.string(),
  /** the most tokens one user may be allocated */
  cap: z.string(),
  /** tokens the commitments so far would buy at their prices */
  total_demand: z.string(),
  committers: z.number().int(),
  start_at: z.number().int(),
  end_at: z.number().int(),
  cliff_days: z.number().int(),
  vest_days: z.number().int(),
  vest_steps: z.number().int(),
  listing_note: z.string(),
  /** one's own commitment (null: none, or no session) */
  mine: z.object({ id: z.number().int(), currency_id: z.number().int(), currency: z.string(), amount: z.string() }).nullable(),
  created_at: z.number().int(),
});
export type LaunchProject = z.infer<typeof launchProjectSchema>;
export const launchProjectListSchema = z.array(launchProjectSchema);

export const launchSubscriptionSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  title: z.string(),
  token: z.string(),
  currency_id: z.number().int(),
  currency: z.string(),
  project_status: z.enum(launchStatuses),
  status: z.enum(subscriptionStatuses),
  /** committed (escrowed in one's spot account until the window ends) */
  amount: z.string(),
  /** tokens allocated, what they cost and what came back */
  alloc: z.string(),
  cost: z.string(),
  refund: z.string(),
  /** tokens still locked, unlocked and not yet claimed, and claimed */
  locked: z.string(),
  claimable: z.string(),
  claimed: z.string(),
  /** when the next step unlocks (null: continuous or finished) */
  next_unlock_at: z.number().int().nullable(),
  /** vesting: starts at the window's end */
  vest_start: z.number().int(),
  cliff_days: z.number().int(),
  vest_days: z.number().int(),
  vest_steps: z.number().int(),
  created_at: z.number().int(),
});
export type LaunchSubscription = z.infer<typeof launchSubscriptionSchema>;
export const launchSubscriptionListSchema = z.array(launchSubscriptionSchema);
