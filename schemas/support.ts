/**
 * Support tickets, complaints and feedback (issue #16 §2; spec: customer service, complaints).
 *
 *   POST /api/support/tickets                 ticketCreateSchema → supportTicketDetailSchema
 *   GET  /api/support/tickets?page=&limit=    the user's own, newest activity first → supportTicketPageSchema
 *   GET  /api/support/tickets/{id}            with the conversation (never internal notes) → supportTicketDetailSchema
 *   POST /api/support/tickets/{id}/messages   ticketMessageSchema → supportTicketDetailSchema
 *   POST /api/support/tickets/{id}/close      → supportTicketDetailSchema
 *   GET  /api/support/orders?kind=            the user's recent orders of a kind, to pick one → supportOrderListSchema
 *
 * Console (operators; never a ticket they opened themselves; every action audited):
 *   GET  /api/admin/support/tickets?status=&category=&page=&limit=   oldest waiting first → adminTicketPageSchema
 *   GET  /api/admin/support/tickets/{id}                             with notes → adminTicketDetailSchema
 *   POST /api/admin/support/tickets/{id}/reply   {body, internal?}   → adminTicketDetailSchema
 *   POST /api/admin/support/tickets/{id}/status  {status}            → adminTicketDetailSchema
 *
 * Images are upload ids or urls of the user's own uploads (POST /api/new/upload); they are read at
 * GET /api/new/upload/file/{id} by their owner and by operators.
 */
import { z } from "zod";
import { idInput, multiLineText, singleLineText, TEXT_CHARS } from "./strict.ts";
import { pageQuerySchema, pageSchema } from "./envelope.ts";
import { pictureRefSchema } from "./wallet.ts";

export const supportCategories = ["complaint", "feedback", "question", "order"] as const;
export const supportCategorySchema = z.enum(supportCategories, { message: "support_category" });
export type SupportCategory = z.infer<typeof supportCategorySchema>;

/** The kinds of order a ticket can be about (each a table of the user's own records). */
export const supportRelatedKinds = ["spot", "seconds", "lever", "c2c", "deposit", "withdrawal"] as const;
export const supportRelatedKindSchema = z.enum(supportRelatedKinds, { message: "support_related_kind" });
export type SupportRelatedKind = z.infer<typeof supportRelatedKindSchema>;

export const supportStatuses = ["new", "open", "pending_customer", "resolved", "closed"] as const;
export const supportStatusSchema = z.enum(supportStatuses, { message: "support_status" });
export type SupportStatus = z.infer<typeof supportStatusSchema>;

/** The states an operator may move a ticket to from each state (the database enforces the same steps). */
export const operatorSteps: Record<SupportStatus, readonly SupportStatus[]> = {
  new: ["open", "pending_customer", "resolved", "closed"],
  open: ["pending_customer", "resolved", "closed"],
  pending_customer: ["open", "resolved", "closed"],
  resolved: ["open", "closed"],
  closed: [],
};

export const MAX_SUPPORT_IMAGES = 4;
export const MAX_SUBJECT = 120;
export const MAX_BODY = 4000;
/** A resolved ticket closes itself this long after it was resolved. */
export const AUTO_CLOSE_MS = 7 * 24 * 3600 * 1000;

const orderId = idInput({ message: "support_related_id" });
const body = z.string({ message: "support_body" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "support_body" }).max(MAX_BODY, { message: "too_long" });
const images = z.array(pictureRefSchema, { message: "invalid_param" }).max(MAX_SUPPORT_IMAGES, { message: "support_images_limit" }).optional().default([]);

export const ticketCreateSchema = z
  .object({
    category: supportCategorySchema,
    subject: z.string({ message: "support_subject" }).trim().refine(singleLineText, TEXT_CHARS).min(1, { message: "support_subject" }).max(MAX_SUBJECT, { message: "too_long" }),
    body,
    related_kind: supportRelatedKindSchema.optional(),
    related_id: orderId.optional(),
    images,
  })
  .superRefine((v, ctx) => {
    // An order is named by its kind and id together; a ticket "about an order" must name one.
    if ((v.related_kind === undefined) !== (v.related_id === undefined) || (v.category === "order" && v.related_kind === undefined)) {
      ctx.addIssue({ code: "custom", path: [v.related_kind === undefined ? "related_kind" : "related_id"], message: "support_related_required" });
    }
  });
export type TicketCreate = z.output<typeof ticketCreateSchema>;

export const ticketMessageSchema = z.object({ body, images });
export type TicketMessage = z.output<typeof ticketMessageSchema>;

export const ticketIdParamSchema = z.object({ id: idInput({ message: "invalid_param" }) });

export const ticketListQuerySchema = pageQuerySchema;

export const supportOrdersQuerySchema = z.object({ kind: supportRelatedKindSchema });

/** One of the user's recent orders, to pick as a ticket's subject. */
export const supportOrderSchema = z.object({
  id: z.number().int(),
  /** pair ("BTC/USDT") or currency ("USDT") */
  name: z.string(),
  /** buy | sell | up | down | long | short | "" */
  side: z.string(),
  /** a decimal string, in `unit` (a currency name, or "lots" for leveraged positions) */
  amount: z.string(),
  unit: z.string(),
  created_at: z.string(),
});
export const supportOrderListSchema = z.array(supportOrderSchema);
export type SupportOrder = z.infer<typeof supportOrderSchema>;

export const ticketSummarySchema = z.object({
  id: z.number().int(),
  category: supportCategorySchema,
  subject: z.string(),
  status: supportStatusSchema,
  related_kind: supportRelatedKindSchema.nullable(),
  related_id: z.number().int().nullable(),
  /** who wrote last: the user, or support (a reply waiting to be read) */
  last_reply_by: z.enum(["user", "support"]),
  /** "YYYY-MM-DD HH:mm:ss", Beijing time */
  created_at: z.string(),
  /** last activity the user can see */
  updated_at: z.string(),
});
export type TicketSummary = z.infer<typeof ticketSummarySchema>;

/** An entry of a ticket's history. Users never receive `note`. */
export const ticketEventSchema = z.object({
  id: z.number().int(),
  kind: z.enum(["message", "note", "status"]),
  /** user: the ticket's owner; support: an operator; system: the auto-close job */
  author: z.enum(["user", "support", "system"]),
  body: z.string(),
  /** picture urls (GET with the Authorization header) */
  images: z.array(z.string()),
  from_status: supportStatusSchema.nullable(),
  to_status: supportStatusSchema.nullable(),
  created_at: z.string(),
});
export type TicketEvent = z.infer<typeof ticketEventSchema>;

export const supportTicketDetailSchema = ticketSummarySchema.extend({ events: z.array(ticketEventSchema) });
export type SupportTicketDetail = z.infer<typeof supportTicketDetailSchema>;

export const supportTicketPageSchema = pageSchema(ticketSummarySchema);
export type SupportTicketPage = z.infer<typeof supportTicketPageSchema>;

// ── console ─────────────────────────────────────────────────────────────────────────────────

export const adminTicketQuerySchema = pageQuerySchema.extend({
  status: supportStatusSchema.optional(),
  category: supportCategorySchema.optional(),
});

export const adminTicketSchema = ticketSummarySchema.extend({
  user_id: z.number().int(),
  account: z.string(),
  /** the user's last message */
  last_user_at: z.string(),
  /** seconds since the user's last message while the ticket waits on support (new, open), else null */
  waiting_seconds: z.number().int().nullable(),
  /** seconds from opening to the first public reply, or null before one */
  first_response_seconds: z.number().int().nullable(),
  /** the operator asking opened this ticket: they cannot handle it */
  own: z.boolean(),
});
export type AdminTicket = z.infer<typeof adminTicketSchema>;
export const adminTicketPageSchema = pageSchema(adminTicketSchema);

/** In the console each event also names the operator who wrote it. */
export const adminTicketEventSchema = ticketEventSchema.extend({ operator_id: z.number().int().nullable(), operator_account: z.string().nullable() });
export const adminTicketDetailSchema = adminTicketSchema.extend({ events: z.array(adminTicketEventSchema) });
export type AdminTicketDetail = z.infer<typeof adminTicketDetailSchema>;

export const adminReplySchema = z.object({
  body,
  /** an internal note: only operators see it, and the user is not notified */
  internal: z.boolean({ message: "invalid_param" }).optional().default(false),
});
export const adminStatusSchema = z.object({ status: supportStatusSchema });
