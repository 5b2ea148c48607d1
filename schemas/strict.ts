/**
 * Strict request input: the one place that says what a number, an id, a flag and a text may look
 * like on the wire. Every request schema (body, query, path) builds its fields from these helpers;
 * nothing on the request path uses `z.coerce`, `Number(...)`, `parseInt` or `parseFloat`.
 *
 * - A **decimal** (amounts, prices, rates) is a JSON number that prints as a plain decimal, or a
 *   plain decimal string: digits, optionally one "." and more digits. No sign (unless the field is
 *   signed: a leading "-"), no exponent ("1e2"), no hex ("0x10"), no spaces (" 1"), not "".
 *   It becomes the plain decimal string; scales are checked later, per currency.
 * - An **integer** (ids, counts, days, enum codes such as `type: 1 | 2`) is a JSON integer or a
 *   plain digit string (query and path values are strings; the spec's form-era clients also send
 *   digits as strings). It becomes a JS number within a stated range.
 * - An **id** is an integer ≥ 1.
 * - A **flag** is a JSON boolean only (`true`/`false`); 0/1 are refused. The spec's clients send
 *   no 0/1 flags: fields valued 0/1 there are enum codes (`status: 0 | 1`) and are integers.
 * - A **text** refuses control characters (C0, DEL, C1), bidi embeddings/overrides/isolates
 *   (U+202A–U+202E, U+2066–U+2069), non-characters (U+FDD0–U+FDEF, U+FFFE/U+FFFF and the last two
 *   code points of every plane) and lone surrogates. Multi-line fields (chat, ticket bodies,
 *   reasons) also allow line feed, carriage return and tab; single-line ones allow none of them.
 *
 * JSON `null`, `true`, `[]` and objects are never numbers. Everything refused is a 4xx naming the
 * field (worker/lib/validate.ts).
 */
import { z } from "zod";
import type { ErrorKey } from "./errors.ts";

/** A plain unsigned decimal: digits, optionally a point and more digits. */
export const PLAIN_DECIMAL_RE = /^\d+(?:\.\d+)?$/;
/** The same with an optional leading minus (operator adjustments). */
export const PLAIN_SIGNED_DECIMAL_RE = /^-?\d+(?:\.\d+)?$/;
/** A plain digit string: at most 16 digits (every safe integer; range checks follow). */
export const PLAIN_INT_RE = /^\d{1,16}$/;
const PLAIN_SIGNED_INT_RE = /^-?\d{1,16}$/;

/** The longest decimal string accepted (longer ones cannot be a real amount at any scale). */
const MAX_DECIMAL_CHARS = 100;

/** A JSON number as its plain decimal text, or null when it only prints with an exponent or is not finite. */
export function plainNumberText(n: number): string | null {
  if (!Number.isFinite(n)) return null;
  const s = String(n);
  return /e/i.test(s) ? null : s;
}

/**
 * A decimal field: a JSON number or a plain decimal string, as the plain decimal string.
 * `signed` lets a leading "-" through (the field's own rules then decide what a negative means).
 */
export function decimalInput(opts: { message?: ErrorKey; signed?: boolean } = {}) {
  const message = opts.message ?? "invalid_amount";
  const re = opts.signed ? PLAIN_SIGNED_DECIMAL_RE : PLAIN_DECIMAL_RE;
  // The message goes on each branch too: a union whose one branch fits the type reports that branch's issue.
  return z
    .union([z.number({ message }), z.string({ message }).max(MAX_DECIMAL_CHARS, { message }).regex(re, { message })], { message })
    .transform((v, ctx) => {
      const s = typeof v === "number" ? plainNumberText(v) : v;
      if (s === null || !re.test(s)) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return s;
    });
}

/**
 * An integer field: a JSON integer or a plain digit string, as a number in [min, max]
 * (defaults: 0 … Number.MAX_SAFE_INTEGER). Negative values only when `min` is below 0.
 * `notWhole` is the message for a JSON number with a fraction (1.5 lots), when it has its own.
 */
export function intInput(opts: { message?: ErrorKey; min?: number; max?: number; notWhole?: ErrorKey } = {}) {
  const m = opts.message ? { message: opts.message } : undefined;
  const min = opts.min ?? 0;
  const max = opts.max ?? Number.MAX_SAFE_INTEGER;
  return z
    .union([z.number(m), z.string(m).regex(min < 0 ? PLAIN_SIGNED_INT_RE : PLAIN_INT_RE, m)], m)
    .transform((v) => (typeof v === "number" ? v : Number(v)))
    .pipe(z.number().int(opts.notWhole ? { message: opts.notWhole } : m).min(min, m).max(max, m));
}

/** An id: a positive integer (JSON integer or digit string), at most `max`. */
export function idInput(opts: { message?: ErrorKey; max?: number } = {}) {
  return intInput({ message: opts.message, min: 1, max: opts.max });
}

/** A flag: a JSON boolean, nothing else. */
export function flagInput(opts: { message?: ErrorKey } = {}) {
  return z.boolean(opts.message ? { message: opts.message } : undefined);
}

/** `page` and `limit` of a list query: integers with a default. */
export function pageInput(max = 100_000) {
  return intInput({ message: "invalid_param", min: 1, max }).default(1);
}
export function limitInput(max: number, fallback: number) {
  return intInput({ message: "invalid_param", min: 1, max }).default(fallback);
}

// ── Texts ──────────────────────────────────────────────────────────────────────────────────────

const planeEnds = Array.from({ length: 16 }, (_, i) => `\\u{${(i + 1).toString(16)}fffe}\\u{${(i + 1).toString(16)}ffff}`).join("");
/** What no text may hold, line breaks and tabs aside. */
const FORBIDDEN_RE = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069\\ufdd0-\\ufdef\\ufffe\\uffff${planeEnds}]`, "u");
const BREAKS_RE = /[\t\n\r]/;

/** Whether `s` is acceptable text: no forbidden characters, well-formed UTF-16, breaks only when multi-line. */
export function isCleanText(s: string, multiline = false): boolean {
  if (FORBIDDEN_RE.test(s)) return false;
  if (!multiline && BREAKS_RE.test(s)) return false;
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

/**
 * A free-text field built on `schema` (its own trims, lengths and messages stay): refuses control
 * characters, bidi overrides and non-characters with `text_chars`. Single-line unless `multiline`.
 */
export function textInput<S extends z.ZodString>(schema: S, opts: { multiline?: boolean } = {}): S {
  return schema.refine((s) => isCleanText(s, opts.multiline), { message: "text_chars" }) as S;
}

/** A single-line text of at most `max` characters (trimmed; `min` 1 unless stated). */
export function lineText(max: number, opts: { min?: number; message?: ErrorKey } = {}) {
  const m = opts.message ? { message: opts.message } : undefined;
  return textInput(z.string(m).trim().min(opts.min ?? 1, m).max(max, m));
}

/** A multi-line text of at most `max` characters (trimmed; `min` 1 unless stated). */
export function longText(max: number, opts: { min?: number; message?: ErrorKey } = {}) {
  const m = opts.message ? { message: opts.message } : undefined;
  return textInput(z.string(m).trim().min(opts.min ?? 1, m).max(max, m), { multiline: true });
}

/**
 * A secret compared with a stored hash (login password, current fund password): any text is
 * compared as given, so an old password that predates these rules still signs in; a wrong one is
 * refused as wrong. Marked `format: "password"` in the OpenAPI document.
 */
export function secretInput<S extends z.ZodString>(schema: S): S {
  return schema.meta({ format: "password" }) as S;
}

/** Checks for a string chain: `z.string().trim().refine(singleLineText, TEXT_CHARS).max(…)`. */
export const singleLineText = (s: string): boolean => isCleanText(s, false);
export const multiLineText = (s: string): boolean => isCleanText(s, true);
export const TEXT_CHARS = { message: "text_chars" } as const;
