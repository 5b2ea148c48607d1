/**
 * C2C calls (schemas/c2c.ts is the contract): the advert market, orders and their actions, chat,
 * appeals, the merchant centre and receiving methods. Everything goes through `call` (lib/api.ts),
 * so the envelope, the 997/998/999 reactions and the error toasts are the app's usual ones.
 * Every call is the typed client's (`hc<AppType>`), so a changed route or field fails the typecheck.
 */
import type { z } from "zod";
import type { advertCreateSchema, C2cAdvert, C2cConfig, C2cMessage, C2cOrder, C2cType, IsSure, Merchant, PayKind, PayMethod, PaySnapshot } from "../../../../schemas/c2c.ts";
import { call, client, type CallOptions } from "../../lib/api.ts";
import { cachedFor, pagesById, sharedKeys, useCallMutation, usePagedQuery, useScreenQuery } from "../../lib/query.ts";
import { $userChannelStatus, useUserEvent } from "../../lib/userChannel.ts";
import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { marketRefresh } from "./refresh.ts";

export type { C2cAdvert, C2cConfig, C2cMessage, C2cOrder, C2cType, IsSure, Merchant, PayKind, PayMethod, PaySnapshot };
export type AdvertInput = z.input<typeof advertCreateSchema>;

const quiet = (signal?: AbortSignal): CallOptions => ({ notify: false, signal });

// ── the market ───────────────────────────────────────────────────────────────────────────────

/** Query values travel as strings; an absent filter is left out. */
const q = (values: Record<string, number | string | undefined>) =>
  Object.fromEntries(Object.entries(values).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]))) as Record<string, string>;
const api = client.api;

/** The coins adverts may be in (is_legal), USDT first. */
export const fetchLegalCoins = async (signal?: AbortSignal) => {
  const list = await call((o) => api.currency.list.$get({}, o), quiet(signal));
  return [...list.legal].sort((a, b) => (a.name === "USDT" ? -1 : b.name === "USDT" ? 1 : a.id - b.id));
};

export const fetchConfig = (signal?: AbortSignal) => call((o) => api.c2c.config.$get({}, o), quiet(signal));

export const fetchAdverts = (type: C2cType, currencyId: number, page: number, signal?: AbortSignal) =>
  call((o) => api.new.legal_deal.index.$get({ query: { type, currency_id: String(currencyId), page: String(page) } }, o), quiet(signal));

/**
 * Takes an advert: `value` is the coin quantity, `price` the price the user was shown (the server
 * refuses the order if the advert's price is another one). 998 and 997 open the app's reminder dialogs.
 */
export const placeOrder = (id: number, value: string, price: string) => call((o) => api.do_legal_deal.$post({ json: { id, value, price } }, o));

// ── orders ───────────────────────────────────────────────────────────────────────────────────

export interface OrderFilter {
  type?: C2cType;
  currency_id?: number;
  is_sure?: IsSure;
}

/** My orders (either side), as the usual `{ total, lists }` page. */
export const fetchMyOrders = async (filter: OrderFilter, page: number, signal?: AbortSignal) => {
  const r = await call((o) => api.legal_user_deal.$get({ query: q({ page, ...filter }) }, o), quiet(signal));
  return { total: r.total, lists: r.data };
};
export const fetchMerchantOrders = (filter: OrderFilter, page: number, signal?: AbortSignal) =>
  call((o) => api.c2c.merchant.orders.$get({ query: q({ page, ...filter }) }, o), quiet(signal));
export const fetchOrder = (id: number, signal?: AbortSignal) => call((o) => api.legal_deal.$get({ query: { id: String(id) } }, o), quiet(signal));

/**
 * The seller confirms the fiat arrived: the coins go to the buyer. It needs the seller's fund
 * password (and the authenticator code when one is on); refusals are the dialog's to show.
 */
export const confirmReceived = (body: { id: number; password: string; totp_code?: string }) => call((o) => api.legal_deal_user_sure.$post({ json: body }, o), { notify: false });
/** The buyer cancels while unpaid. */
export const cancelOrder = (id: number) => call((o) => api.user_legal_pay_cancel.$post({ json: { id } }, o));
/** At countdown zero: the server decides (idempotent), so no toast for a refusal. */
export const handleExpired = (id: number) => call((o) => api.handle_one.$post({ json: { id } }, o), { notify: false });
/** The buyer marks the order paid with a proof picture (an upload id). */
export const markPaid = (id: number, proof: string) => call((o) => api.user_legal_pay.$post({ json: { id, pay_orders_img: proof } }, o));

// ── chat and appeals ─────────────────────────────────────────────────────────────────────────

const order = (id: number) => ({ id: String(id) });
export const fetchMessages = (orderId: number, signal?: AbortSignal) =>
  call((o) => api.c2c.orders[":id"].messages.$get({ param: order(orderId), query: { after_id: "0", limit: "200" } }, o), quiet(signal));
export const sendMessage = (orderId: number, body: { text: string } | { image: string }) =>
  call((o) => api.c2c.orders[":id"].messages.$post({ param: order(orderId), json: body }, o));
export const appeal = (orderId: number, reason: string, evidence: string[]) =>
  call((o) => api.c2c.orders[":id"].appeal.$post({ param: order(orderId), json: { reason, evidence } }, o));

// ── merchant centre ──────────────────────────────────────────────────────────────────────────

export const fetchMerchant = (signal?: AbortSignal) => call((o) => api.c2c.merchant.$get({}, o), quiet(signal));
export const applyMerchant = (name: string) => call((o) => api.c2c.merchant.apply.$post({ json: { name } }, o));
export const leaveMerchant = () => call((o) => api.c2c.merchant.leave.$post({}, o));

export const fetchMyAdverts = (page: number, signal?: AbortSignal) => call((o) => api.c2c.adverts.mine.$get({ query: { page: String(page) } }, o), quiet(signal));
export const createAdvert = (body: AdvertInput) => call((o) => api.c2c.adverts.$post({ json: body }, o));
/** Changes an advert that is off the shelf (price, limits, methods, terms; advertEditSchema). */
export const editAdvert = (id: number, body: Omit<AdvertInput, "type" | "currency_id" | "total_number">) =>
  call((o) => api.c2c.adverts[":id"].edit.$post({ param: { id: String(id) }, json: body }, o));
export type AdvertAction = "off" | "on" | "withdraw";
export const advertAction = (id: number, action: AdvertAction) =>
  call((o) => api.c2c.adverts[":id"][":action{off|on|withdraw}"].$post({ param: { id: String(id), action } }, o));

// ── receiving methods ────────────────────────────────────────────────────────────────────────

export interface PayMethodInput {
  kind: "alipay" | "wechat" | "other";
  account: string;
  label?: string;
  qr_code?: string;
}
export const fetchPayMethods = (signal?: AbortSignal) => call((o) => api.c2c.pay_methods.$get({}, o), quiet(signal));
export const savePayMethod = (body: PayMethodInput, id?: number) =>
  id === undefined ? call((o) => api.c2c.pay_methods.$post({ json: body }, o)) : call((o) => api.c2c.pay_methods[":id"].$post({ param: { id: String(id) }, json: body }, o));
export const deletePayMethod = (id: number) => call((o) => api.c2c.pay_methods[":id"].delete.$post({ param: { id: String(id) } }, o));

// ── queries and mutations ────────────────────────────────────────────────────────────────────

/** Everything C2C shows lives under this root; an action invalidates it with the balances. */
const C2C = "c2c";
const moved = [[C2C], sharedKeys.balances] as const;

/**
 * Order changes and chat messages arrive on the user's private channel (lib/userChannel.ts, events
 * `c2c_order` and `c2c_message`) and refetch what they change. An order waiting for someone and
 * an open chat are also asked again now and then: often while the channel is down, rarely while
 * it is up (an event lost in a reconnect is fetched again on reopen anyway).
 */
const whileWaiting = () => ($userChannelStatus.get() === "open" ? 30_000 : 5_000);

/** Keeps every C2C screen current: refetches on the private channel's C2C events and after it reconnects. */
export function useC2cLive(): void {
  const client = useQueryClient();
  const refetch = (...keys: QueryKey[]) => {
    for (const queryKey of keys) void client.invalidateQueries({ queryKey });
  };
  useUserEvent("c2c_order", () => refetch([C2C], sharedKeys.balances), () => refetch([C2C]));
  useUserEvent("c2c_message", (e) => refetch([C2C, "messages", e.order_id], [C2C, "order", e.order_id], [C2C, "orders"], [C2C, "merchantOrders"]));
}

/** Asks the advert market again now (e.g. after an order was refused because an advert changed). */
export function useRefreshAdverts(): () => void {
  const client = useQueryClient();
  return () => void client.invalidateQueries({ queryKey: [C2C, "adverts"] });
}

export const useLegalCoins = () => useScreenQuery({ queryKey: [C2C, "coins"], queryFn: ({ signal }) => fetchLegalCoins(signal), ...cachedFor(60_000) });
export const useC2cConfig = () => useScreenQuery({ queryKey: [C2C, "config"], queryFn: ({ signal }) => fetchConfig(signal) });
export const useAdverts = (type: C2cType, currencyId: number) =>
  usePagedQuery({ queryKey: [C2C, "adverts", type, currencyId], fetchPage: (page, signal) => fetchAdverts(type, currencyId, page, signal), view: pagesById<C2cAdvert>, refresh: marketRefresh });
export const useMyOrders = (filter: OrderFilter) =>
  usePagedQuery({ queryKey: [C2C, "orders", filter], fetchPage: (page, signal) => fetchMyOrders(filter, page, signal), view: pagesById<C2cOrder> });
export const useMerchantOrders = (filter: OrderFilter) =>
  usePagedQuery({ queryKey: [C2C, "merchantOrders", filter], fetchPage: (page, signal) => fetchMerchantOrders(filter, page, signal), view: pagesById<C2cOrder> });
/** One order; while it waits for someone it is also asked again now and then (whileWaiting). */
export const useOrder = (id: number) =>
  useScreenQuery({
    queryKey: [C2C, "order", id],
    queryFn: ({ signal }) => fetchOrder(id, signal),
    enabled: id > 0,
    refetchInterval: (q) => {
      const o = q.state.data;
      return o && (o.is_sure === 0 || o.is_sure === 3) ? whileWaiting() : false;
    },
  });
export const useMessages = (orderId: number) =>
  useScreenQuery({ queryKey: [C2C, "messages", orderId], queryFn: ({ signal }) => fetchMessages(orderId, signal), enabled: orderId > 0, refetchInterval: whileWaiting });
export const useMerchant = () => useScreenQuery({ queryKey: [C2C, "merchant"], queryFn: ({ signal }) => fetchMerchant(signal) });
export const useMyAdverts = () => usePagedQuery({ queryKey: [C2C, "myAdverts"], fetchPage: fetchMyAdverts, view: pagesById<C2cAdvert> });
export const usePayMethods = () => useScreenQuery({ queryKey: [C2C, "payMethods"], queryFn: ({ signal }) => fetchPayMethods(signal) });
/** The user centre (verification level, fund password, authenticator): what ordering and releasing need. */
export const fetchCenter = (signal?: AbortSignal) => call((o) => api.user.center.$get({}, o), quiet(signal));
export const useCenter = () => useScreenQuery({ queryKey: sharedKeys.center, queryFn: ({ signal }) => fetchCenter(signal) });

export const usePlaceOrder = () => useCallMutation(placeOrder, moved);
export const useConfirmReceived = () => useCallMutation(confirmReceived, moved);
export const useCancelOrder = () => useCallMutation(cancelOrder, moved);
export const useHandleExpired = () => useCallMutation(handleExpired, moved);
export const useMarkPaid = () => useCallMutation(markPaid, moved);
export const useSendMessage = () => useCallMutation(sendMessage, [[C2C, "messages"]]);
export const useAppeal = () => useCallMutation(appeal, [[C2C]]);
export const useApplyMerchant = () => useCallMutation(applyMerchant, moved);
export const useLeaveMerchant = () => useCallMutation(leaveMerchant, moved);
export const useCreateAdvert = () => useCallMutation(createAdvert, moved);
export const useEditAdvert = () => useCallMutation(editAdvert, moved);
export const useAdvertAction = () => useCallMutation(advertAction, moved);
export const useSavePayMethod = () => useCallMutation(savePayMethod, [[C2C, "payMethods"]]);
export const useDeletePayMethod = () => useCallMutation(deletePayMethod, [[C2C, "payMethods"]]);
