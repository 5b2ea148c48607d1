/**
 * The public index tick log around one tick (GET /api/currency/index_tick): what a seconds
 * contract's entry and exit and a leveraged position's open and close are checked against
 * (issue #20 §3). Shared by the seconds and lever screens; the pure checks live with each feature.
 */
import type { IndexTick, TickWindow } from "../../../schemas/seconds.ts";
import { call, client } from "./api.ts";
import { useScreenQuery } from "./query.ts";

export type { IndexTick, TickWindow };

/** Ticks shown either side of the one a settlement used (about a second apart while the book is two-sided). */
export const TICK_NEIGHBOURS = 5;

export const fetchTickWindow = (matchId: number, id: number, n: number, signal?: AbortSignal) =>
  call((o) => client.api.currency.index_tick.$get({ query: { match_id: String(matchId), id: String(id), n: String(n) } }, o), { notify: false, signal });

/**
 * One tick with its neighbours; idle while the tick is not known yet (null id). A tick never
 * changes, but ticks after it keep arriving for a moment after a settlement, so it is read again
 * after a minute.
 */
export const useTickWindow = (matchId: number | null, id: number | null, n = TICK_NEIGHBOURS) =>
  useScreenQuery({
    queryKey: ["ticks", "window", matchId, id, n],
    queryFn: ({ signal }) => fetchTickWindow(matchId!, id!, n, signal),
    enabled: matchId !== null && id !== null,
    staleTime: 60_000,
  });
