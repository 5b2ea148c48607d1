/** Short messages at the top of the screen (spec §8: errors stay 3 s). */
import { atom } from "nanostores";

export type ToastKind = "success" | "error" | "info" | "warning";
export interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

export const $toasts = atom<Toast[]>([]);
let nextId = 1;

export function showToast(text: string, kind: ToastKind = "info", durationMs = 3000) {
  const id = nextId++;
  // Identical text already on screen: do not stack duplicates (e.g. two failing loads at once).
  const current = $toasts.get().filter((t) => t.text !== text);
  $toasts.set([...current, { id, kind, text }].slice(-3));
  setTimeout(() => dismissToast(id), durationMs);
}

export function dismissToast(id: number) {
  $toasts.set($toasts.get().filter((t) => t.id !== id));
}

export const toast = {
  success: (text: string) => showToast(text, "success"),
  error: (text: string) => showToast(text, "error"),
  info: (text: string) => showToast(text, "info"),
  warning: (text: string) => showToast(text, "warning"),
};
