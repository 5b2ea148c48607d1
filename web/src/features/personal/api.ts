/** Calls of the personal centre (spec §7): the profile with identity and security flags, and wallet totals. */
import { api } from "../../lib/api.ts";

export interface Center {
  id: number;
  account: string;
  extension_code: string;
  /** 0 none, 1 under review, 2 approved, 3 rejected. */
  review_status: number;
  level: number;
  pending_level: number | null;
  /** Only once verified (review_status 2). */
  name: string | null;
  bank: { real_name: string; bank_account: string; bank_name: string; bank_branch: string } | null;
  has_fund_password: boolean;
  totp_enabled: boolean;
  created_at: string;
}

export interface WalletTotals {
  change_wallet: { usdt_totle: string };
  micro_wallet: { usdt_totle: string };
  legal_wallet: { usdt_totle: string };
  total_usdt: string;
}

export const fetchCenter = (signal?: AbortSignal) => api.get<Center>("/api/user/center", { notify: false, signal });
export const fetchTotals = (signal?: AbortSignal) => api.post<WalletTotals>("/api/wallet/list", undefined, { notify: false, signal });

/** Spec §9 greeting: hours 6-12 morning, 12-18 afternoon, otherwise evening. */
export function greetingPart(hour: number): "morning" | "afternoon" | "evening" {
  if (hour >= 6 && hour < 12) return "morning";
  if (hour >= 12 && hour < 18) return "afternoon";
  return "evening";
}
