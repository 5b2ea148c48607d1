/**
 * The payment proof a buyer has chosen for an unpaid order, kept per order id in this tab
 * (sessionStorage) until the order is marked paid: the picture is already uploaded to the server,
 * so opening the chat (or any other screen) and coming back to the pay page shows it again
 * instead of asking for it a second time.
 */
import type { UploadInfo } from "../../lib/upload.ts";

const KEY = "c2c_proofs";
type Proofs = Record<string, UploadInfo>;

function load(): Proofs {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(KEY) ?? "{}");
    return parsed && typeof parsed === "object" ? (parsed as Proofs) : {};
  } catch {
    return {};
  }
}

let proofs: Proofs | null = null;

function save(next: Proofs) {
  proofs = next;
  try {
    sessionStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // private mode: kept for this page's life only
  }
}

/** The proof chosen for an order, if any. */
export function proofOf(orderId: number): UploadInfo | null {
  proofs ??= load();
  return proofs[orderId] ?? null;
}

/** Remembers (or, with null, forgets) the proof chosen for an order. */
export function keepProof(orderId: number, info: UploadInfo | null) {
  proofs ??= load();
  const next = { ...proofs };
  if (info) next[orderId] = info;
  else delete next[orderId];
  save(next);
}
