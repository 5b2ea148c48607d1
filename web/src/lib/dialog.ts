/** One confirm dialog at a time, opened from anywhere (the API client's 997/998 rules). */
import { atom } from "nanostores";

export interface ConfirmRequest {
  title: string;
  message: string;
  confirmText: string;
  cancelText: string;
  onConfirm: () => void;
  onCancel?: () => void;
}

export const $confirm = atom<ConfirmRequest | null>(null);

export function openConfirm(req: ConfirmRequest) {
  $confirm.set(req);
}

export function closeConfirm() {
  $confirm.set(null);
}
