/** Identity verification and the receiving bank card (spec §7 /api/user/center, real_name, bank_name, cash_save). */
import { api } from "../../lib/api.ts";

export interface Center {
  id: number;
  account: string;
  /** 0 none, 1 under review, 2 approved, 3 rejected (spec §4). */
  review_status: number;
  /** Highest approved level (0-3). */
  level: number;
  /** The level of the submission waiting for review, if any. */
  pending_level: number | null;
  name: string | null;
  /** 1 ID card, 2 driver licence, 3 passport. */
  type: number | null;
  /** Masked. */
  card_id: string | null;
  rejection_reason: string | null;
  bank: { real_name: string; bank_account: string; bank_name: string; bank_branch: string } | null;
}

export const fetchCenter = (signal?: AbortSignal) => api.get<Center>("/api/user/center", { notify: false, signal });

export interface IdentitySubmission {
  level: 1 | 2 | 3;
  name?: string;
  type?: number;
  card_id?: string;
  front_pic?: string;
  reverse_pic?: string;
  hand_pic?: string;
  asset_pic?: string;
}
export const submitIdentity = (body: IdentitySubmission) =>
  api.post<{ level: number; review_status: number; submitted: boolean }>("/api/user/real_name", body);

export const lookupBank = (card: string, signal?: AbortSignal) =>
  api.get<{ bank_name: string | null; valid: boolean }>("/api/user/bank_name", { query: { card }, notify: false, signal });

export const saveBankCard = (body: { real_name: string; bank_account: string; bank_name: string; bank_branch: string }) =>
  api.post<{ real_name: string; bank_account: string; bank_name: string; bank_branch: string }>("/api/user/cash_save", body);
