/**
 * Seconds-contract calls (spec §7 /api/microtrade/*, the contract in schemas/seconds.ts), with
 * their queries and mutations. Amounts stay decimal strings.
 *
 * Typed by the Worker's own routes (worker/routes/microtrade.ts) through `hc<AppType>`.
 */
import type { Quotation } from "../../../../schemas/content.ts";
import type { IndexTick, PayableCurrency, SecondsOption, SecondsOrder } from "../../../../schemas/seconds.ts";
import { call, client } from "../../lib/api.ts";
import { pagesById, sharedKeys, useCallMutation, usePagedQuery, useScreenQuery } from "../../lib/query.ts";
import { useLoggedIn } from "../../lib/session.ts";
import { clockOffset } from "./logic.ts";

export type { IndexTick, PayableCurrency, SecondsOption, SecondsOrder };
export type PairRow = Quotation;

/** USDT: the quote currency of every pair (spec §9 legal currency id 3). */
export const LEGAL_ID = 3;
export const PAGE_SIZE = 15;

const micro = client;

export interface SubmitBody {
  match_id: number;
  currency_id: number;
  type: 1 | 2;
  seconds: number;
  number: string;
  client_oid: string;
  /** The index the user confirmed: the server refuses with price_moved beyond its tolerance (0.1 %). */
  index_price?: string;
}

/** Every open USDT pair: the drawer, and the pair id (match_id) of a contract. */
export async function fetchPairs(signal?: AbortSignal): Promise<PairRow[]> {
  const groups = await call((o) => client.api.currency.quotation_new.$get({}, o), { notify: false, signal });
  return groups.flatMap((g) => g.quotation).filter((p) => p.legal_id === LEGAL_ID);
}

export const fetchOptions = (signal?: AbortSignal) => call((o) => micro.api.microtrade.seconds.$get({}, o), { notify: false, signal });
export const fetchPayable = (signal?: AbortSignal) => call((o) => micro.api.microtrade.payable_currencies.$get({}, o), { notify: false, signal });
/** Every shown currency with its scale (decimals): the stake's decimals. */
export const fetchScales = (signal?: AbortSignal) => call((o) => client.api.user.user_wallet.$get({}, o), { notify: false, signal });

/** The running (and just settled) contracts, with the server's clock offset measured on the way. */
export async function fetchRunning(signal?: AbortSignal): Promise<{ rows: SecondsOrder[]; offset: number | null }> {
  const rows = await call((o) => micro.api.microtrade.lists.$get({}, o), { notify: false, signal });
  return { rows, offset: clockOffset(rows, Date.now()) };
}

export const fetchHistory = (page: number, signal?: AbortSignal) =>
  call((o) => micro.api.new.microtrade.lists.$get({ query: { page: String(page), limit: String(PAGE_SIZE) } }, o), { notify: false, signal });

/**
 * Buys a contract. Failures are shown by the screen (spec §8: the "apitip" prefix and the
 * server's translated message); 998 still opens the verification dialog here.
 */
export const submitContract = (body: SubmitBody) => call((o) => micro.api.microtrade.submit.$post({ json: body }, o), { notify: false });

/** One of one's contracts (its verification screen). */
export const fetchContract = (id: number, signal?: AbortSignal) => call((o) => micro.api.microtrade.order.$get({ query: { id: String(id) } }, o), { notify: false, signal });

// ── queries and mutations ────────────────────────────────────────────────────────────────────

export const secondsKeys = {
  pairs: ["seconds", "pairs"] as const,
  options: ["seconds", "options"] as const,
  /** Under the shared balances root: a transfer to the micro account makes it stale. */
  payable: [...sharedKeys.balances, "seconds", "payable"] as const,
  scales: ["seconds", "scales"] as const,
  running: ["seconds", "running"] as const,
  history: ["seconds", "history"] as const,
  contract: (id: number) => ["seconds", "contract", id] as const,
};

export const usePairs = () => useScreenQuery({ queryKey: secondsKeys.pairs, queryFn: ({ signal }) => fetchPairs(signal), refetchInterval: 10_000 });
export const useOptions = () => useScreenQuery({ queryKey: secondsKeys.options, queryFn: ({ signal }) => fetchOptions(signal), staleTime: 30_000 });
export const usePayable = () => useScreenQuery({ queryKey: secondsKeys.payable, queryFn: ({ signal }) => fetchPayable(signal) });
/** The user's wallet scales: a guest has none (the form falls back to 8 places). */
export const useScales = () => {
  const loggedIn = useLoggedIn();
  return useScreenQuery({ queryKey: secondsKeys.scales, queryFn: ({ signal }) => fetchScales(signal), staleTime: 60_000, enabled: loggedIn });
};

/**
 * The running list. While a contract waits for its result it is asked for every second (spec §4
 * says "wait 8 s"; we wait for the state instead: the event or the record, whichever is first);
 * otherwise every 15 s.
 */
export const useRunning = (waiting: boolean) => {
  const loggedIn = useLoggedIn();
  return useScreenQuery({ queryKey: secondsKeys.running, queryFn: ({ signal }) => fetchRunning(signal), refetchInterval: waiting ? 1000 : 15_000, enabled: loggedIn });
};

export const useHistory = () => usePagedQuery({ queryKey: secondsKeys.history, fetchPage: fetchHistory, view: pagesById<SecondsOrder> });

/** One contract; asked again every 2 s until it has settled or was revoked (its check needs the final record); not after a failure. */
export const useContract = (id: number | null) =>
  useScreenQuery({
    queryKey: secondsKeys.contract(id ?? 0),
    queryFn: ({ signal }) => fetchContract(id!, signal),
    enabled: id !== null,
    refetchInterval: (q) => (q.state.error || (q.state.data && q.state.data.status >= 3) ? false : 2000),
  });

/** A contract changes the micro balance, the running list and the history. */
export const useSubmit = () => useCallMutation(submitContract, [sharedKeys.balances, secondsKeys.running, secondsKeys.history]);
