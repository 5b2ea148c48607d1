/**
 * Short messages at the top of the screen (spec §8: errors stay 3 s). A notification of the
 * user's own inbox (features/notifications) is a richer toast: a title, a body of at most a few
 * lines, 6 s on screen, and tapping it opens what it is about.
 */
import { atom } from "nanostores";

export type ToastKind = "success" | "error" | "info" | "warning";
export interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
  /** A second, smaller line (a notification's body). */
  detail?: string;
  /** What tapping the toast does besides dismissing it (open a notification's link). */
  onTap?: () => void;
  /** Toasts with the same key replace each other (a notification's id); without one, the same text does. */
  key?: string;
  /** A link under the text (a money toast's "View in statement"). */
  action?: { label: string; onTap: () => void };
}

export const $toasts = atom<Toast[]>([]);
let nextId = 1;

/** How long a notification toast stays: twice an error's, long enough to read a title and a body. */
export const NOTICE_TOAST_MS = 6000;

function push(toast: Omit<Toast, "id">, durationMs: number) {
  const id = nextId++;
  // The same toast already on screen: do not stack duplicates (e.g. two failing loads at once).
  const same = (t: Toast) => (toast.key !== undefined ? t.key === toast.key : t.key === undefined && t.text === toast.text);
  const current = $toasts.get().filter((t) => !same(t));
  $toasts.set([...current, { ...toast, id }].slice(-3));
  setTimeout(() => dismissToast(id), durationMs);
}

export function showToast(text: string, kind: ToastKind = "info", durationMs = 3000) {
  push({ kind, text }, durationMs);
}

/** A notification toast: title, body (clipped to a few lines), tap to open; stays NOTICE_TOAST_MS. */
export function showNoticeToast(notice: { key: string; title: string; body?: string; onTap?: () => void; action?: Toast["action"] }) {
  push({ kind: "info", text: notice.title, detail: notice.body || undefined, onTap: notice.onTap, key: notice.key, action: notice.action }, NOTICE_TOAST_MS);
}

/** Where a money toast's "View in statement" goes (the statement screen, web/src/features/wallet). */
export const STATEMENT_ROUTE = "/statement";

/**
 * A toast for money that just moved (a transfer, a conversion...): it says so, and its link opens
 * the statement, where the movement stays once the toast is gone. Stays as long as a notification.
 */
export function showMoneyToast(text: string, action: Toast["action"]) {
  push({ kind: "success", text, action }, NOTICE_TOAST_MS);
}

export function dismissToast(id: number) {
  $toasts.set($toasts.get().filter((t) => t.id !== id));
}

/** Removes the toasts whose key passes `match` (a notification's, once the user has opened it elsewhere). */
export function dismissToastsByKey(match: (key: string) => boolean) {
  const left = $toasts.get().filter((t) => t.key === undefined || !match(t.key));
  if (left.length !== $toasts.get().length) $toasts.set(left);
}

export const toast = {
  success: (text: string) => showToast(text, "success"),
  error: (text: string) => showToast(text, "error"),
  info: (text: string) => showToast(text, "info"),
  warning: (text: string) => showToast(text, "warning"),
};
