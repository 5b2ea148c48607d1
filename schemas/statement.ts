/**
 * The user's statement and holds (issue #26): every movement of their money, and what their frozen
 * funds are held for.
 *
 *   GET /api/wallet/statement?currency_id=&account=&from=&to=&cursor=&limit=   statementQuerySchema → statementPageSchema
 *   GET /api/wallet/holds                                                      → holdsSchema
 *
 * Balance, as the statement means it: what the user owns in one account of one coin, available +
 * frozen (a hold moves money from available to frozen, it stays the user's). So a line's `amount`
 * is the change of that balance (0 for a pure hold or release), `held` the change of its frozen part,
 * and `balance_after` / `held_after` the two after the movement. Summing `amount` over every line of
 * a currency and account gives its balance.
 */
import { z } from "zod";
import { ACCOUNT_NAMES } from "./products.ts";
import { idInput, intInput } from "./strict.ts";

/** "2026-11-29" (that UTC day: from its start, or to its end) or a full ISO instant. */
const instant = z
  .string()
  .max(40)
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/, { message: "invalid_field" })
  .refine((s) => Number.isFinite(Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s)), { message: "invalid_field" });

export const statementQuerySchema = z.object({
  currency_id: idInput({ message: "invalid_field", max: 1_000_000 }).optional(),
  account: z.enum(ACCOUNT_NAMES, { message: "invalid_field" }).optional(),
  /** inclusive */
  from: instant.optional(),
  /** inclusive (a day means up to its end) */
  to: instant.optional(),
  /** the `next` of the previous page */
  cursor: z.string().regex(/^[1-9]\d{0,15}$/, { message: "invalid_field" }).optional(),
  limit: intInput({ message: "invalid_field", min: 1, max: 100 }).default(30),
});
export type StatementQuery = z.infer<typeof statementQuerySchema>;

/**
 * What a line's record is: the web maps it to the screen that shows it. `id` is the record's id
 * (an order, a contract, a position, a withdrawal, a C2C order, a round, a project...) when the
 * movement names one, else null (a transfer is recorded by its statement line only).
 */
export const statementRefTypes = [
  "deposit",
  "withdrawal",
  "transfer",
  "conversion",
  "spot_order",
  "spot_pair",
  "seconds",
  "lever",
  "c2c_order",
  "c2c_advert",
  "c2c_merchant",
  "vote",
  "launch",
  "earn",
  "insurance",
  "mining",
  "invite",
  "adjustment",
  "other",
] as const;
export const statementRefSchema = z.object({ type: z.enum(statementRefTypes), id: z.number().int().nullable() });
export type StatementRef = z.infer<typeof statementRefSchema>;

export const statementLineSchema = z.object({
  /** unique per line: the movement key, the currency and the account */
  id: z.string(),
  /** the movement's kind code (spot, transfer, vote_hold, micro_settle, lever_close ...): the web words it */
  kind: z.string(),
  currency_id: z.number().int(),
  currency: z.string(),
  account: z.enum(ACCOUNT_NAMES),
  /** signed decimal string: the change of the balance (available + frozen) */
  amount: z.string(),
  /** signed decimal string: the change of its frozen part (a hold +, a release −) */
  held: z.string(),
  /** the balance (available + frozen) right after this movement */
  balance_after: z.string(),
  /** the frozen part right after this movement */
  held_after: z.string(),
  /** UTC, ISO 8601 */
  time: z.string(),
  ref: statementRefSchema,
});
export type StatementLine = z.infer<typeof statementLineSchema>;

export const statementPageSchema = z.object({
  lines: z.array(statementLineSchema),
  /** the cursor of the next (older) page; null at the end */
  next: z.string().nullable(),
});
export type StatementPage = z.infer<typeof statementPageSchema>;

/** Why money is frozen: each purpose is one kind of open record. */
export const holdPurposes = [
  "spot_order",
  "withdrawal",
  "vote",
  "launch",
  "launch_locked",
  "savings",
  "c2c_order",
  "c2c_advert",
  "c2c_deposit",
  "seconds",
  "lever_margin",
  /** frozen money no open record explains (the reconciler reports it too); never expected */
  "unexplained",
] as const;
export const holdPurposeSchema = z.enum(holdPurposes);
export type HoldPurpose = z.infer<typeof holdPurposeSchema>;

export const holdItemSchema = z.object({
  purpose: holdPurposeSchema,
  /** decimal string at the currency's scale */
  amount: z.string(),
  ref: statementRefSchema,
  /** a short name of the record where it has one (a pair, a round's title, a project's title) */
  label: z.string(),
  /** a savings position's term in days (0 = flexible): the screens name its product by it, in the reader's language */
  term_days: z.number().int().min(0).optional(),
});
export type HoldItem = z.infer<typeof holdItemSchema>;

/** One account of one coin with frozen funds: the frozen balance and every hold that makes it up (they sum to it). */
export const holdGroupSchema = z.object({
  currency_id: z.number().int(),
  currency: z.string(),
  account: z.enum(ACCOUNT_NAMES),
  frozen: z.string(),
  holds: z.array(holdItemSchema),
});
export type HoldGroup = z.infer<typeof holdGroupSchema>;

export const holdsSchema = z.object({ groups: z.array(holdGroupSchema) });
export type Holds = z.infer<typeof holdsSchema>;
