/**
 * Support tickets in the console (/api/admin/support/*; worker/routes/operator-support.ts): the
 * queue, a ticket with its whole history, reply or internal note, change of state. Kept apart from
 * api.ts so the console's other sections and this one grow without touching each other.
 */
import type { AdminTicket, SupportCategory, SupportStatus } from "../../../../schemas/support.ts";
import { call, client } from "../../lib/api.ts";
import { pagesById, useCallMutation, usePagedQuery, useScreenQuery } from "../../lib/query.ts";

export type { AdminTicket, AdminTicketDetail, SupportCategory, SupportRelatedKind, SupportStatus } from "../../../../schemas/support.ts";

const support = client.api.admin.support.tickets;
/** Under the console's root ("operator", api.ts): a decision anywhere refreshes the queue too. */
const KEY = ["operator", "support"] as const;

export const fetchSupportTickets = (page: number, status: SupportStatus | undefined, category: SupportCategory | undefined, signal?: AbortSignal) =>
  call((o) => support.$get({ query: { page: String(page), ...(status ? { status } : {}), ...(category ? { category } : {}) } }, o), { notify: false, signal });
export const fetchSupportTicket = (id: number, signal?: AbortSignal) => call((o) => support[":id"].$get({ param: { id: String(id) } }, o), { notify: false, signal });
export const replySupportTicket = (id: number, body: string, internal: boolean) => call((o) => support[":id"].reply.$post({ param: { id: String(id) }, json: { body, internal } }, o));
export const setSupportStatus = (id: number, status: SupportStatus) => call((o) => support[":id"].status.$post({ param: { id: String(id) }, json: { status } }, o));

export const useSupportQueue = (status: SupportStatus | undefined, category: SupportCategory | undefined) =>
  usePagedQuery({
    queryKey: [...KEY, "queue", status ?? "all", category ?? "all"],
    fetchPage: (page, signal) => fetchSupportTickets(page, status, category, signal),
    view: pagesById<AdminTicket>,
  });
export const useSupportTicket = (id: number) => useScreenQuery({ queryKey: [...KEY, "one", id], queryFn: ({ signal }) => fetchSupportTicket(id, signal) });
export const useReplySupportTicket = () => useCallMutation(replySupportTicket, [KEY]);
export const useSetSupportStatus = () => useCallMutation(setSupportStatus, [KEY]);
