/**
 * The notification centre (issue #16 §1): every event that changes a user's money or standing
 * leaves one item in that user's inbox, written in the event's own D1 batch and keyed by it.
 *
 *   GET  /api/notifications?page=&limit=   notificationQuerySchema → notificationPageSchema
 *   POST /api/notifications/read           notificationReadSchema ({ids} or {all: true}) → notificationReadResultSchema
 *
 * The user's channel (/ws/user) carries `{type: "notification"}` when a new item lands; the app
 * then reads the first page again (the texts are rendered in the request's language).
 */
import { z } from "zod";
import { idInput, limitInput, pageInput } from "./strict.ts";

/** Every kind of notification. A new kind needs its texts in worker/domain/notifications/texts.ts. */
export const notificationKinds = [
  "deposit_credited",
  "deposit_rejected",
  "withdrawal_sent",
  "withdrawal_rejected",
  "kyc_approved",
  "kyc_rejected",
  "c2c_new_order",
  "c2c_paid",
  "c2c_released",
  "c2c_cancelled",
  "c2c_expired",
  "c2c_appeal_opened",
  "c2c_appeal_decided",
  "seconds_settled",
  "lever_closed",
  "login_new_device",
  "support_reply",
  "invite_rebate",
  "vote_held",
  "vote_released",
  "insurance_bought",
  "insurance_paid",
  "insurance_queued",
  "insurance_ended",
  "insurance_expired",
  "launch_committed",
  "launch_allocated",
  "launch_refunded",
  "launch_claimed",
  "earn_subscribed",
  "earn_interest",
  "earn_redeemed",
  "earn_redeemed_early",
  "earn_matured",
  "mining_bought",
  "mining_paid",
  "spot_filled",
  "spot_partial",
  "c2c_message",
  "security_passkey_added",
  "security_passkey_removed",
  "security_anti_phishing",
  "security_whitelist_on",
  "security_whitelist_off",
  "security_locked",
  "security_address_added",
  "security_address_removed",
  "price_alert_above",
  "price_alert_below",
  "price_alert_move",
  "apikey_created",
  "spot_triggered",
] as const;
export const notificationKindSchema = z.enum(notificationKinds);
export type NotificationKind = z.infer<typeof notificationKindSchema>;

export const notificationQuerySchema = z.object({
  page: pageInput(),
  limit: limitInput(50, 20),
});

export const notificationSchema = z.object({
  id: z.number().int(),
  kind: notificationKindSchema,
  /** in the request's language */
  title: z.string(),
  body: z.string(),
  /** a route of the app (hash path, e.g. "/legal/show?id=12"), or "" */
  link: z.string(),
  /** "YYYY-MM-DD HH:mm:ss", Beijing time like every time the API shows */
  created_at: z.string(),
  read: z.boolean(),
});
export type Notification = z.infer<typeof notificationSchema>;

export const notificationPageSchema = z.object({
  total: z.number().int(),
  unread: z.number().int(),
  data: z.array(notificationSchema),
});
export type NotificationPage = z.infer<typeof notificationPageSchema>;

/** Mark some (at most 100 ids of one's own) or all of one's notifications read. */
export const notificationReadSchema = z.union([
  z.object({ ids: z.array(idInput({ message: "invalid_param" })).min(1).max(100) }).strict(),
  z.object({ all: z.literal(true) }).strict(),
]);
export type NotificationRead = z.infer<typeof notificationReadSchema>;

export const notificationReadResultSchema = z.object({ unread: z.number().int() });
