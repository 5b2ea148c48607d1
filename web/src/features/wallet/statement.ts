/**
 * The statement (issue #26; GET /api/wallet/statement): the query, and the pure rules the screen
 * reads it with: the words of a movement's kind, and the screen that shows a line's record (the
 * holds' own rules are shared: lib/holds.ts).
 */
import { useInfiniteQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { StatementLine, StatementPage, StatementRef } from "../../../../schemas/statement.ts";
import { m } from "../../i18n/index.ts";
import { call, client } from "../../lib/api.ts";
import type { AccountName } from "../../lib/products.ts";
import { sharedKeys } from "../../lib/query.ts";

export type { StatementLine, StatementRef };

export interface StatementFilter {
  currencyId: number | null;
  account: AccountName | null;
}

const PAGE = 30;

export const fetchStatement = (f: StatementFilter, cursor: string | null, signal?: AbortSignal): Promise<StatementPage> =>
  call(
    (o) =>
      client.api.wallet.statement.$get(
        {
          query: {
            limit: String(PAGE),
            ...(f.currencyId !== null ? { currency_id: String(f.currencyId) } : {}),
            ...(f.account !== null ? { account: f.account } : {}),
            ...(cursor !== null ? { cursor } : {}),
          },
        },
        o,
      ),
    { notify: false, signal },
  );


/** Under the balances root: a money notification or any money move reads it again. */
export const statementKeys = {
  lines: (f: StatementFilter) => [...sharedKeys.balances, "statement", f.currencyId, f.account] as const,
};

/** The statement in pages, newest first, by cursor (a page that ends the list says `next: null`). */
export function useStatement(f: StatementFilter) {
  const q = useInfiniteQuery({
    queryKey: statementKeys.lines(f),
    queryFn: ({ pageParam, signal }) => fetchStatement(f, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next ?? undefined,
    gcTime: 0,
  });
  const lines = useMemo(() => linesOf(q.data?.pages ?? []), [q.data]);
  return {
    lines,
    loading: q.isLoading,
    error: q.data === undefined ? q.error : null,
    hasMore: q.hasNextPage,
    loadingMore: q.isFetchingNextPage,
    moreError: q.isFetchNextPageError,
    loadMore: () => {
      if (q.hasNextPage && !q.isFetchingNextPage) void q.fetchNextPage({ cancelRefetch: false });
    },
    reload: () => void q.refetch(),
  };
}

/** The pages' lines as one list, each once (a refetch of a first page may repeat a line). */
export function linesOf(pages: readonly StatementPage[]): StatementLine[] {
  const seen = new Set<string>();
  const out: StatementLine[] = [];
  for (const p of pages) {
    for (const l of p.lines) {
      if (seen.has(l.id)) continue;
      seen.add(l.id);
      out.push(l);
    }
  }
  return out;
}

const KIND_WORDS: Record<string, () => string> = {
  deposit: m.stmt_kind_deposit,
  withdrawal_freeze: m.stmt_kind_withdrawal,
  withdrawal_sent: m.stmt_kind_withdrawal_sent,
  chain_success: m.stmt_kind_withdrawal_sent,
  withdrawal_in_site: m.stmt_kind_in_site,
  withdrawal_reject: m.stmt_kind_withdrawal_back,
  withdrawal_chain_failure: m.stmt_kind_withdrawal_back,
  transfer: m.stmt_kind_transfer,
  conversion: m.stmt_kind_conversion,
  spot_freeze: m.stmt_kind_spot_order,
  spot: m.stmt_kind_spot,
  spot_release: m.stmt_kind_spot_release,
  micro_open: m.stmt_kind_seconds_open,
  micro_settle: m.stmt_kind_seconds_settle,
  micro_refund: m.stmt_kind_refund,
  lever_open: m.stmt_kind_lever_open,
  lever_overnight: m.stmt_kind_lever_night,
  lever_revoke: m.stmt_kind_refund,
  lever_refund: m.stmt_kind_refund,
  c2c_escrow: m.stmt_kind_c2c_escrow,
  c2c_release: m.stmt_kind_c2c_release,
  c2c_return: m.stmt_kind_c2c_return,
  c2c_escrow_return: m.stmt_kind_c2c_return,
  c2c_deposit: m.stmt_kind_c2c_deposit,
  c2c_deposit_release: m.stmt_kind_c2c_return,
  vote_hold: m.stmt_kind_vote_hold,
  vote_release: m.stmt_kind_vote_release,
  vote_released: m.stmt_kind_vote_release,
  invite_rebate: m.stmt_kind_rebate,
  adjustment: m.stmt_kind_adjustment,
};

/** Kinds named by their product (several steps read alike: a position closed by any rule, a launch's steps...). */
const PREFIX_WORDS: [string, () => string][] = [
  ["lever_", m.stmt_kind_lever_close],
  ["launch_", m.stmt_kind_launch],
  ["earn_", m.stmt_kind_earn],
  ["insurance_", m.stmt_kind_insurance],
  ["mining_", m.stmt_kind_mining],
];

/** A movement's kind in words (the code itself, after "Other", for a kind this app does not know yet). */
export function kindLabel(kind: string): string {
  const exact = KIND_WORDS[kind];
  if (exact) return exact();
  const prefix = PREFIX_WORDS.find(([p]) => kind.startsWith(p));
  return prefix ? prefix[1]() : m.stmt_kind_other({ kind });
}

/** The app screen that shows a line's or a hold's record, or null when it has none of its own. */
export function refRoute(ref: StatementRef): string | null {
  const id = ref.id;
  switch (ref.type) {
    case "deposit":
      return "/recharge/log";
    case "withdrawal":
      return "/withdrawal/log";
    case "conversion":
      return "/excharge/log";
    case "spot_order":
    case "spot_pair":
      return "/exchange/lists";
    case "seconds":
      return id !== null ? `/trade/verify?id=${id}` : "/trade/lists";
    case "lever":
      return id !== null ? `/lever/verify?id=${id}` : "/lever";
    case "c2c_order":
      return id !== null ? `/legal/show?id=${id}` : "/legal/order";
    case "c2c_advert":
    case "c2c_merchant":
      return "/legal/merchant";
    case "vote":
      return "/vote";
    case "launch":
      return id !== null ? `/launch/project?id=${id}` : "/launch/my";
    case "earn":
      return "/earn/positions";
    case "insurance":
      return "/insurance/my";
    case "mining":
      return "/mining/my";
    case "invite":
      return "/invite/rebates";
    default:
      return null;
  }
}
