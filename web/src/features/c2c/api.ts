/**
 * C2C calls (schemas/c2c.ts is the contract): the advert market, orders and their actions, chat,
 * appeals, the merchant centre and receiving methods. Everything goes through `call` (lib/api.ts),
 * so the envelope, the 997/998/999 reactions and the error toasts are the app's usual ones.
 *
 * The C2C routes are built on another branch; until they are merged the typed client does not
 * know them, so `route` (lib/api.ts sendPath) sends the request by path with the client's headers
 * and the answer is typed by the contract's schemas. When the routes land, each function becomes
 * the matching `client.api...` call without changing its signature.
 */
import type { z } from "zod";
import type {
  advertCreateSchema,
  c2cAdvertPageSchema,
  c2cConfigSchema,
  c2cMessageListSchema,
  c2cMessageSchema,
  c2cOrderCreatedSchema,
  c2cOrderListSchema,
  c2cOrderPageSchema,
  c2cOrderSchema,
  c2cAdvertSchema,
  merchantSchema,
  myAdvertPageSchema,
  payMethodDeletedSchema,
  payMethodListSchema,
  payMethodSchema,
  C2cType,
  IsSure,
  PayKind,
} from "../../../../schemas/c2c.ts";
import type { C2cAdvert, C2cMessage, C2cOrder, Merchant, PayMethod, PaySnapshot, C2cConfig } from "../../../../schemas/c2c.ts";
import { call, client, sendPath as route, type CallOptions } from "../../lib/api.ts";
import { cachedFor, pagesById, sharedKeys, useCallMutation, usePagedQuery, useScreenQuery } from "../../lib/query.ts";
import { $userChannelStatus, useUserEvent } from "../../lib/userChannel.ts";
import { useQueryClient, type QueryKey } from "@tanstack/react-query";

export type { C2cAdvert, C2cConfig, C2cMessage, C2cOrder, C2cType, IsSure, Merchant, PayKind, PayMethod, PaySnapshot };
export type AdvertInput = z.input<typeof advertCreateSchema>;

type Classic<S extends z.ZodType> = { type: "ok"; message: z.output<S> };
type Fresh<S extends z.ZodType> = { status: 1; data: z.output<S> };
const quiet = (signal?: AbortSignal): CallOptions => ({ notify: false, signal });

// ── the market ───────────────────────────────────────────────────────────────────────────────

/** The coins adverts may be in (is_legal), USDT first. */
export const fetchLegalCoins = async (signal?: AbortSignal) => {
  const list = await call((o) => client.api.currency.list.$get({}, o), quiet(signal));
  return [...list.legal].sort((a, b) => (a.name === "USDT" ? -1 : b.name === "USDT" ? 1 : a.id - b.id));
};

export const fetchConfig = (signal?: AbortSignal) => call(route<Classic<typeof c2cConfigSchema>>("GET", "/api/c2c/config"), quiet(signal));

export const fetchAdverts = (type: C2cType, currencyId: number, page: number, signal?: AbortSignal) =>
  call(route<Fresh<typeof c2cAdvertPageSchema>>("GET", "/api/new/legal_deal/index", { query: { type, currency_id: currencyId, page } }), quiet(signal));

/** Takes an advert: `value` is the coin quantity. 998 and 997 open the app's reminder dialogs. */
export const placeOrder = (id: number, value: string) => call(route<Classic<typeof c2cOrderCreatedSchema>>("POST", "/api/do_legal_deal", { json: { id, value } }));

// ── orders ───────────────────────────────────────────────────────────────────────────────────

export interface OrderFilter {
  type?: C2cType;
  currency_id?: number;
  is_sure?: IsSure;
}

/** My orders (either side), as the usual `{ total, lists }` page. */
export const fetchMyOrders = async (filter: OrderFilter, page: number, signal?: AbortSignal) => {
  const r = await call(route<Classic<typeof c2cOrderListSchema>>("GET", "/api/legal_user_deal", { query: { page, ...filter } }), quiet(signal));
  return { total: r.total, lists: r.data };
};
export const fetchMerchantOrders = (filter: OrderFilter, page: number, signal?: AbortSignal) =>
  call(route<Classic<typeof c2cOrderPageSchema>>("GET", "/api/c2c/merchant/orders", { query: { page, ...filter } }), quiet(signal));
export const fetchOrder = (id: number, signal?: AbortSignal) => call(route<Classic<typeof c2cOrderSchema>>("GET", "/api/legal_deal", { query: { id } }), quiet(signal));

type OrderAction = "/api/legal_deal_user_sure" | "/api/user_legal_pay_cancel" | "/api/handle_one";
const orderAction = (path: OrderAction, id: number, opts?: CallOptions) => call(route<Classic<typeof c2cOrderSchema>>("POST", path, { json: { id } }), opts);
/** The seller confirms the fiat arrived: the coins go to the buyer. */
export const confirmReceived = (id: number) => orderAction("/api/legal_deal_user_sure", id);
/** The buyer cancels while unpaid. */
export const cancelOrder = (id: number) => orderAction("/api/user_legal_pay_cancel", id);
/** At countdown zero: the server decides (idempotent), so no toast for a refusal. */
export const handleExpired = (id: number) => orderAction("/api/handle_one", id, { notify: false });
/** The buyer marks the order paid with a proof picture (an upload id). */
export const markPaid = (id: number, proof: string) => call(route<Classic<typeof c2cOrderSchema>>("POST", "/api/user_legal_pay", { json: { id, pay_orders_img: proof } }));

// ── chat and appeals ─────────────────────────────────────────────────────────────────────────

export const fetchMessages = (orderId: number, signal?: AbortSignal) =>
  call(route<Classic<typeof c2cMessageListSchema>>("GET", `/api/c2c/orders/${orderId}/messages`, { query: { after_id: 0, limit: 200 } }), quiet(signal));
export const sendMessage = (orderId: number, body: { text: string } | { image: string }) =>
  call(route<Classic<typeof c2cMessageSchema>>("POST", `/api/c2c/orders/${orderId}/messages`, { json: body }));
export const appeal = (orderId: number, reason: string, evidence: string[]) =>
  call(route<Classic<typeof c2cOrderSchema>>("POST", `/api/c2c/orders/${orderId}/appeal`, { json: { reason, evidence } }));

// ── merchant centre ──────────────────────────────────────────────────────────────────────────

export const fetchMerchant = (signal?: AbortSignal) => call(route<Classic<typeof merchantSchema>>("GET", "/api/c2c/merchant"), quiet(signal));
export const applyMerchant = (name: string) => call(route<Classic<typeof merchantSchema>>("POST", "/api/c2c/merchant/apply", { json: { name } }));
export const leaveMerchant = () => call(route<Classic<typeof merchantSchema>>("POST", "/api/c2c/merchant/leave", { json: {} }));

export const fetchMyAdverts = (page: number, signal?: AbortSignal) =>
  call(route<Classic<typeof myAdvertPageSchema>>("GET", "/api/c2c/adverts/mine", { query: { page } }), quiet(signal));
export const createAdvert = (body: AdvertInput) => call(route<Classic<typeof c2cAdvertSchema>>("POST", "/api/c2c/adverts", { json: body }));
export type AdvertAction = "off" | "on" | "withdraw";
export const advertAction = (id: number, action: AdvertAction) =>
  call(route<Classic<typeof c2cAdvertSchema>>("POST", `/api/c2c/adverts/${id}/${action}`, { json: {} }));

// ── receiving methods ────────────────────────────────────────────────────────────────────────

export interface PayMethodInput {
  kind: "alipay" | "wechat" | "other";
  account: string;
  label?: string;
  qr_code?: string;
}
export const fetchPayMethods = (signal?: AbortSignal) => call(route<Classic<typeof payMethodListSchema>>("GET", "/api/c2c/pay_methods"), quiet(signal));
export const savePayMethod = (body: PayMethodInput, id?: number) =>
  call(route<Classic<typeof payMethodSchema>>("POST", id === undefined ? "/api/c2c/pay_methods" : `/api/c2c/pay_methods/${id}`, { json: body }));
export const deletePayMethod = (id: number) => call(route<Classic<typeof payMethodDeletedSchema>>("POST", `/api/c2c/pay_methods/${id}/delete`, { json: {} }));

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

export const useLegalCoins = () => useScreenQuery({ queryKey: [C2C, "coins"], queryFn: ({ signal }) => fetchLegalCoins(signal), ...cachedFor(60_000) });
export const useC2cConfig = () => useScreenQuery({ queryKey: [C2C, "config"], queryFn: ({ signal }) => fetchConfig(signal) });
export const useAdverts = (type: C2cType, currencyId: number) =>
  usePagedQuery({ queryKey: [C2C, "adverts", type, currencyId], fetchPage: (page, signal) => fetchAdverts(type, currencyId, page, signal), view: pagesById<C2cAdvert> });
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
export const useAdvertAction = () => useCallMutation(advertAction, moved);
export const useSavePayMethod = () => useCallMutation(savePayMethod, [[C2C, "payMethods"]]);
export const useDeletePayMethod = () => useCallMutation(deletePayMethod, [[C2C, "payMethods"]]);
