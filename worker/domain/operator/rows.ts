/** Shared shapes of the operator's paged lists. */
import type { z } from "zod";
import type { adminListQuerySchema } from "../../../schemas/operator.ts";
import { formatUnits } from "../../../schemas/money.ts";
import { big } from "../wallet/currency.ts";
import { uploadUrl } from "../uploads/uploads.ts";

export const fmt = (units: number | string | bigint, scale: number) => formatUnits(big(units), scale);
export const pic = (id: string | null) => (id ? uploadUrl(id) : null);
export const count = (r: D1Result | undefined) => (r?.results?.[0] as { n: number } | undefined)?.n ?? 0;

export function page<T>(r: D1Result | undefined) {
  return (r?.results ?? []) as T[];
}

/** A page request of the console's lists: page, size and the optional filters. */
export type ListQuery = z.output<typeof adminListQuerySchema>;
