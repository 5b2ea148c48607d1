/** Price alerts (issue #30; schemas/alert.ts): one's alerts, creating and deleting them, and the pairs to choose from. */
import type { AlertCreateInput } from "../../../../schemas/alert.ts";
import { call, client } from "../../lib/api.ts";
import { cachedFor, useCallMutation, useScreenQuery } from "../../lib/query.ts";

const ALERTS = ["alerts"] as const;

export const useAlerts = () => useScreenQuery({ queryKey: ALERTS, queryFn: ({ signal }) => call((o) => client.api.alerts.$get({}, o), { notify: false, signal }), refetchInterval: 15_000 });

/** The open pairs (the quotation list), for the pair picker and the last price. */
export const usePairs = () =>
  useScreenQuery({
    queryKey: ["quotations"],
    queryFn: ({ signal }) => call((o) => client.api.currency.quotation_new.$get({}, o), { notify: false, signal }),
    ...cachedFor(10_000),
  });

export const useCreateAlert = () => useCallMutation((body: AlertCreateInput) => call((o) => client.api.alerts.$post({ json: body }, o)), [ALERTS]);

export const useDeleteAlert = () => useCallMutation((id: number) => call((o) => client.api.alerts[":id"].delete.$post({ param: { id: String(id) } }, o)), [ALERTS]);
