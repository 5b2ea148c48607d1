/**
 * The two response envelopes of the API (spec §7, DESIGN §4), kept exactly:
 * - classic endpoints: `{ type: "ok", message }` or `{ type: "error", message }`;
 * - "new" endpoints (paths under /api/new/): `{ status: 1, data }` or `{ status: 0, message }`.
 * Three special types work on both: "997" (receiving account missing → /bank),
 * "998" (identity verification needed → /verifyed), "999" (not logged in → /login).
 * Errors also carry `code` (an ErrorKey) so clients and tests need not parse translated text.
 */
import { z } from "zod";
import { idInput } from "./strict.ts";

export const specialTypes = { bankRequired: "997", verifyRequired: "998", loginRequired: "999" } as const;
export type SpecialType = (typeof specialTypes)[keyof typeof specialTypes];

export const classicOkSchema = <T extends z.ZodType>(message: T) => z.object({ type: z.literal("ok"), message });
export const newOkSchema = <T extends z.ZodType>(data: T) => z.object({ status: z.literal(1), data });
/** The few answers that keep a shape of their own (candles: `{ code: 1, data }`) are their schema. */
export const bareOkSchema = <T extends z.ZodType>(body: T) => body;

export const errorEnvelopeSchema = z.object({
  type: z.enum(["error", "997", "998", "999"]),
  status: z.literal(0).optional(),
  message: z.string(),
  code: z.string(),
  /** the input field a refusal is about, as a path ("amount", "orders.0.price"), when it is about one */
  field: z.string().optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** A list page of the "new" endpoints. */
export const pageSchema = <T extends z.ZodType>(item: T) => z.object({ total: z.number().int(), lists: z.array(item) });

export const pageQuerySchema = z.object({
  page: idInput({ max: 100_000 }).default(1),
  limit: idInput({ max: 100 }).default(20),
});
