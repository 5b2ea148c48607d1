/**
 * The realtime protocol (DESIGN §5) as zod discriminated unions on `type`, parsed at both ends.
 * A socket at /ws?pair={pairId} talks to that pair's Durable Object. Topics:
 *   market_depth_{c}_{l}   6 levels per side; snapshot first, then updates with a rising `seq`,
 *                          at most one per 100 ms (latest state wins)
 *   market_detail_{c}_{l}  newest deals (snapshot of 20, then each new batch)
 *   kline_{c}_{l}_{period} the open bar of a period (snapshot, then each change)
 *   daymarket_{c}_{l}      24 h open/high/low/close/change/volume from real trades; conflated
 *                          like depth, with its own rising `seq`
 * A pair socket is public: it has no login and carries nobody's private events. Those (own orders,
 * `closed_microorder`, C2C changes) travel on the user's own channel at /ws/user (below).
 */
import { z } from "zod";
import { closedMicroorderEventSchema } from "./seconds.ts";
import { leverPositionEventSchema } from "./lever.ts";

export const klinePeriods = ["1min", "5min", "15min", "30min", "60min", "1day", "1week", "1mon"] as const;
export const klinePeriodSchema = z.enum(klinePeriods);
export type KlinePeriodName = z.infer<typeof klinePeriodSchema>;

export const topicSchema = z
  .string()
  .max(64)
  .regex(/^(market_depth_\d+_\d+|market_detail_\d+_\d+|daymarket_\d+_\d+|kline_\d+_\d+_(1min|5min|15min|30min|60min|1day|1week|1mon))$/);

export const clientMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("sub"), topic: topicSchema }),
  z.object({ type: z.literal("unsub"), topic: topicSchema }),
  z.object({ type: z.literal("ping") }),
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;

const level = z.tuple([z.string(), z.string()]);
export const barSchema = z.object({ time: z.number(), open: z.string(), high: z.string(), low: z.string(), close: z.string(), volume: z.string() });
export type Bar = z.infer<typeof barSchema>;
export const dealSchema = z.object({ time: z.number(), direction: z.enum(["buy", "sell"]), price: z.string(), amount: z.string() });
export type Deal = z.infer<typeof dealSchema>;
export const dayMarketSchema = z.object({
  open: z.string().nullable(),
  high: z.string().nullable(),
  low: z.string().nullable(),
  close: z.string().nullable(),
  volume: z.string(),
  /** 24 h volume in the quote currency (USDT), two decimals */
  quote_volume: z.string(),
  change: z.string(),
});
export type DayMarket = z.infer<typeof dayMarketSchema>;

export const serverMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("market_depth"),
    topic: z.string(),
    snapshot: z.boolean(),
    seq: z.number(),
    currency_id: z.number(),
    legal_id: z.number(),
    bids: z.array(level),
    asks: z.array(level),
  }),
  z.object({ type: z.literal("market_detail"), topic: z.string(), snapshot: z.boolean(), data: z.array(dealSchema) }),
  z.object({ type: z.literal("kline"), topic: z.string(), snapshot: z.boolean(), period: klinePeriodSchema, bar: barSchema.nullable() }),
  z.object({
    type: z.literal("daymarket"),
    topic: z.string(),
    snapshot: z.boolean(),
    /** Rising per message (updates are conflated to at most one per 100 ms). */
    seq: z.number().optional(),
    currency_id: z.number(),
    legal_id: z.number(),
    data: dayMarketSchema,
  }),
  z.object({ type: z.literal("error"), message: z.string() }),
  z.object({ type: z.literal("pong") }),
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;

// ---------------------------------------------------------------- the user's own channel

/**
 * The private channel: one socket per tab at /ws/user, served by the user's own Durable Object
 * (durable/user.ts), authenticated with the session token at the upgrade. The server only pushes;
 * the client sends nothing but `{"type":"ping"}` (answered `{"type":"pong"}`). Everything below
 * reaches only the sockets of the user it concerns, never a broadcast.
 */

/** One of the user's spot orders changed (booked, filled in part or whole, cancelled) on a pair. */
export const orderEventSchema = z.object({
  type: z.literal("order"),
  /** the pair the order is on (the channel carries every pair's orders) */
  pair_id: z.number().int(),
  order_id: z.number().int(),
  status: z.enum(["open", "partial", "filled", "cancelled"]),
  /** partial/filled: this fill's quantity; open/cancelled: what the same command filled before it rested or ended */
  filled: z.string(),
  price: z.string().nullable(),
});
export type OrderEvent = z.infer<typeof orderEventSchema>;

/**
 * One of the user's C2C orders changed state (`is_sure`: 0 awaiting payment, 3 paid, 1 finished,
 * 2 cancelled: the values of `isSureSchema` in c2c.ts, repeated because importing c2c.ts would put
 * the whole C2C contract into every screen's first bundle, this file being on the socket's path).
 */
export const c2cOrderEventSchema = z.object({ type: z.literal("c2c_order"), id: z.number().int(), is_sure: z.union([z.literal(0), z.literal(3), z.literal(1), z.literal(2)]) });
/** A new chat message (or proof) on one of the user's C2C orders: fetch the conversation again. */
export const c2cMessageEventSchema = z.object({ type: z.literal("c2c_message"), order_id: z.number().int() });

/** A new item landed in the user's notification centre: read the first page again (schemas/notification.ts). */
export const notificationEventSchema = z.object({ type: z.literal("notification") });

/** Every private event `notifyUser` (worker/lib/notify.ts) may send. A new kind is added here. */
export const userEventSchema = z.discriminatedUnion("type", [orderEventSchema, closedMicroorderEventSchema, c2cOrderEventSchema, c2cMessageEventSchema, leverPositionEventSchema, notificationEventSchema]);
export type UserEvent = z.infer<typeof userEventSchema>;
export type UserEventType = UserEvent["type"];

/** What the user's channel sends: the private events, and `pong` for a ping. */
export const userServerMessageSchema = z.discriminatedUnion("type", [...userEventSchema.options, z.object({ type: z.literal("pong") })]);
export type UserServerMessage = z.infer<typeof userServerMessageSchema>;

/** The Sec-WebSocket-Protocol the user channel speaks; the session token travels as a second value, `bearer.{token}`. */
export const USER_CHANNEL_PROTOCOL = "exchange-user.v1";
export const USER_CHANNEL_TOKEN_PREFIX = "bearer.";
/**
 * Close codes of the user channel (4000–4999 are the application's). Neither is worth a retry with
 * the same token: the session is unknown, revoked or expired; or a newer socket of the user pushed
 * this one out (reconnecting would push out another in turn).
 */
export const USER_CHANNEL_CLOSE = { sessionEnded: 4001, replaced: 4008 } as const;
