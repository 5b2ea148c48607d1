/** The customer-service link from configuration (spec §7 GET /api/cfg/kefu), and support tickets (schemas/support.ts). */
import { useQueryClient } from "@tanstack/react-query";
import { call, client } from "../../lib/api.ts";
import { useUserEvent } from "../../lib/userChannel.ts";
import type { SupportCategory, SupportRelatedKind, SupportTicketPage, TicketSummary } from "../../../../schemas/support.ts";
import { cachedFor, pagesById, useCallMutation, usePagedQuery, useScreenQuery } from "../../lib/query.ts";

export const fetchKefu = (signal: AbortSignal) => call((o) => client.api.cfg.kefu.$get({}, o), { notify: false, signal });

export type ServiceLink = { kind: "frame"; url: string } | { kind: "internal"; path: string } | { kind: "mail"; url: string; address: string } | { kind: "other"; url: string } | { kind: "none" };

/**
 * Web pages are framed; mailto: and tel: links get a button; an in-app route ("#/help/center")
 * gets a button to that screen; anything else (javascript:, data:, ...) is not shown.
 */
export function classifyLink(raw: string | null | undefined): ServiceLink {
  const url = (raw ?? "").trim();
  if (url === "") return { kind: "none" };
  const lower = url.toLowerCase();
  if (lower.startsWith("mailto:")) return { kind: "mail", url, address: decodeURIComponent(url.slice(7).split("?")[0] ?? "") };
  if (lower.startsWith("https://") || lower.startsWith("http://")) return { kind: "frame", url };
  if (lower.startsWith("tel:")) return { kind: "other", url };
  if (url.startsWith("#/")) return { kind: "internal", path: url.slice(1) };
  if (url.startsWith("/") && !url.startsWith("//")) return { kind: "internal", path: url };
  return { kind: "none" };
}

/** The configured link rarely changes: reused for 5 minutes. */
export const useKefu = () => useScreenQuery({ queryKey: ["kefu"], queryFn: ({ signal }) => fetchKefu(signal), ...cachedFor(5 * 60_000) });

// ── tickets (schemas/support.ts) ─────────────────────────────────────────────────────────────

export type { SupportOrder, SupportRelatedKind, SupportStatus, SupportTicketDetail, TicketEvent, TicketSummary } from "../../../../schemas/support.ts";

const tickets = client.api.support.tickets;
/** Everything about tickets lives under this root; writing on one refreshes the lot. */
const TICKETS = "supportTickets";

export const fetchTickets = (page: number, signal?: AbortSignal): Promise<SupportTicketPage> =>
  call((o) => tickets.$get({ query: { page: String(page) } }, o), { notify: false, signal });
export const fetchTicket = (id: number, signal?: AbortSignal) => call((o) => tickets[":id"].$get({ param: { id: String(id) } }, o), { notify: false, signal });
export const fetchRecentOrders = (kind: SupportRelatedKind, signal?: AbortSignal) => call((o) => client.api.support.orders.$get({ query: { kind } }, o), { notify: false, signal });

export interface NewTicket {
  category: SupportCategory;
  subject: string;
  body: string;
  related_kind?: SupportRelatedKind;
  related_id?: number;
  images: string[];
}
export const createTicket = (body: NewTicket) => call((o) => tickets.$post({ json: body }, o));
export const sendTicketMessage = (id: number, body: string, images: string[]) => call((o) => tickets[":id"].messages.$post({ param: { id: String(id) }, json: { body, images } }, o));
export const closeTicket = (id: number) => call((o) => tickets[":id"].close.$post({ param: { id: String(id) } }, o));

export const useMyTickets = (enabled = true) =>
  usePagedQuery({ queryKey: [TICKETS, "list", enabled], fetchPage: (page, signal) => (enabled ? fetchTickets(page, signal) : Promise.resolve({ total: 0, lists: [] })), view: pagesById<TicketSummary> });
export const useTicket = (id: number) => useScreenQuery({ queryKey: [TICKETS, "one", id], queryFn: ({ signal }) => fetchTicket(id, signal), enabled: id > 0 });
export const useRecentOrders = (kind: SupportRelatedKind | "") =>
  useScreenQuery({ queryKey: [TICKETS, "orders", kind], queryFn: ({ signal }) => fetchRecentOrders(kind as SupportRelatedKind, signal), enabled: kind !== "" });
/**
 * Keeps the ticket screens current while they are open: an operator's reply arrives as a
 * `support_reply` item in the notification centre, announced by the user channel's `notification`
 * event, so any such event (and the channel's reopen, which may have missed one) reads the
 * tickets again. Without it the user on the ticket screen got the toast but not the reply.
 */
export function useTicketsLive(): void {
  const qc = useQueryClient();
  const refetch = () => void qc.invalidateQueries({ queryKey: [TICKETS] });
  useUserEvent("notification", refetch, refetch);
}

export const useCreateTicket = () => useCallMutation(createTicket, [[TICKETS]]);
export const useSendTicketMessage = () => useCallMutation(sendTicketMessage, [[TICKETS]]);
export const useCloseTicket = () => useCallMutation(closeTicket, [[TICKETS]]);
