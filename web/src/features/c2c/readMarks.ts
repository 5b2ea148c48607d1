/**
 * Which chat messages the user has seen, per order, kept in this browser (localStorage): an order
 * whose `last_message_id` is above the last one read shows the new-message badge.
 */
import { atom } from "nanostores";
import { useStore } from "@nanostores/react";

const KEY = "c2c_read";
type Marks = Record<string, number>;

function load(): Marks {
  try {
    const raw = localStorage.getItem(KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    return parsed && typeof parsed === "object" ? (parsed as Marks) : {};
  } catch {
    return {};
  }
}

const $marks = atom<Marks>(load());

/** Remembers that every message up to `messageId` of an order has been seen. */
export function markRead(orderId: number, messageId: number) {
  const marks = $marks.get();
  if ((marks[orderId] ?? 0) >= messageId) return;
  const next = { ...marks, [orderId]: messageId };
  $marks.set(next);
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // private mode: the badge only lasts this visit
  }
}

/** Whether an order has messages the user has not seen. */
export function hasUnread(marks: Marks, orderId: number, lastMessageId: number): boolean {
  return lastMessageId > (marks[orderId] ?? 0);
}

export function useReadMarks(): Marks {
  return useStore($marks);
}
