/**
 * Operator console calls (/api/admin/*; the server allows role "operator" only and writes an
 * audit row for every action). Operators decide on deposits, withdrawals, identity submissions
 * and balance adjustments (a second, different operator approves those); they never edit a
 * balance directly.
 */
import { api } from "../../lib/api.ts";
import type { Page } from "../../lib/usePaged.ts";

export const fetchRole = (signal?: AbortSignal) => api.get<{ id: number; role: string }>("/api/user/info", { notify: false, signal });

const list = <T,>(path: string, query: Record<string, string | number | undefined>, signal?: AbortSignal) =>
  api.get<Page<T>>(path, { query, notify: false, signal });

// ── deposits ─────────────────────────────────────────────────────────────────────────────────
export interface AdminDeposit {
  id: number;
  user_id: number;
  account: string;
  currency_id: number;
  currency_name: string;
  amount: string;
  address: string;
  network: string;
  hash: string;
  pic: string | null;
  status: 0 | 1 | 2;
  status_text: string;
  reason: string;
  reviewed_by: number | null;
  reviewed_at: string | null;
  needs_second: boolean;
  first_approved_by: number | null;
  awaiting_second_approval: boolean;
  own: boolean;
  time_format: string;
}
export const fetchDeposits = (page: number, status: number | undefined, signal?: AbortSignal) => list<AdminDeposit>("/api/admin/deposits", { page, status }, signal);
export const decideDeposit = (id: number, action: "approve" | "reject", reason: string) => api.post<{ id: number; status: number; awaiting_second_approval?: boolean }>(`/api/admin/deposits/${id}/${action}`, { reason });

// ── withdrawals ──────────────────────────────────────────────────────────────────────────────
export interface AdminWithdrawal {
  id: number;
  user_id: number;
  account: string;
  currency_id: number;
  currency_name: string;
  network: number;
  network_name: string;
  address: string;
  memo: string;
  number: string;
  charge: string;
  total: string;
  status: 0 | 1 | 2 | 3 | 4 | 5;
  status_text: string;
  reason: string;
  txid: string;
  reviewed_by: number | null;
  settled_by: number | null;
  own: boolean;
  time_format: string;
}
export type WithdrawalAction = "approve" | "reject" | "chain-success" | "chain-failure";
export const fetchWithdrawals = (page: number, status: number | undefined, signal?: AbortSignal) => list<AdminWithdrawal>("/api/admin/withdrawals", { page, status }, signal);
export const decideWithdrawal = (id: number, action: WithdrawalAction, reason: string, txid = "") =>
  api.post<{ id: number; status: number }>(`/api/admin/withdrawals/${id}/${action}`, { reason, ...(txid ? { txid } : {}) });

// ── identity reviews ─────────────────────────────────────────────────────────────────────────
export interface AdminKyc {
  id: number;
  user_id: number;
  account: string;
  level: number;
  name: string | null;
  type: number | null;
  card_id: string | null;
  front_pic: string | null;
  reverse_pic: string | null;
  hand_pic: string | null;
  asset_pic: string | null;
  asset_btc: string | null;
  status: number;
  reason: string;
  reviewed_by: number | null;
  own: boolean;
  time_format: string;
}
export const fetchKyc = (page: number, status: number | undefined, signal?: AbortSignal) => list<AdminKyc>("/api/admin/kyc", { page, status }, signal);
export const decideKyc = (id: number, action: "approve" | "reject", reason: string) => api.post<{ id: number; status: number }>(`/api/admin/kyc/${id}/${action}`, { reason });

// ── users ────────────────────────────────────────────────────────────────────────────────────
export interface AdminUserRow {
  id: number;
  account: string;
  role: string;
  review_status: number;
  real_name: string | null;
  locked: number;
  created_at: string;
}
export const searchUsers = (page: number, q: string, signal?: AbortSignal) => list<AdminUserRow>("/api/admin/users", { page, q }, signal);

export interface AdminUserDetail {
  user: AdminUserRow & { has_fund_password: boolean; kyc_level: number };
  bank: { real_name: string; bank_account: string; bank_name: string; bank_branch: string } | null;
  balances: { currency_id: number; currency_name: string; account: string; available: string; frozen: string }[];
}
export const fetchUser = (id: number, signal?: AbortSignal) => api.get<AdminUserDetail>(`/api/admin/users/${id}`, { notify: false, signal });

export interface LedgerRow {
  id: number;
  movement_key: string;
  kind: string;
  currency_id: number;
  currency_name: string;
  account: string;
  d_available: string;
  d_frozen: string;
  memo: string;
  time_format: string;
}
export const fetchLedger = (id: number, page: number, signal?: AbortSignal) => list<LedgerRow>(`/api/admin/users/${id}/ledger`, { page }, signal);

// ── adjustments ──────────────────────────────────────────────────────────────────────────────
export interface Adjustment {
  id: number;
  user_id: number;
  user_account: string | null;
  currency_id: number;
  currency_name: string;
  account: string;
  amount: string;
  reason: string;
  /** 0 waiting for a second operator, 1 applied, 2 rejected. */
  status: number;
  requested_by: number;
  decided_by: number | null;
  decision_reason: string;
  time_format: string;
  decided_at: string | null;
}
export const fetchAdjustments = (page: number, status: number | undefined, signal?: AbortSignal) => list<Adjustment>("/api/admin/adjustments", { page, status }, signal);
export const requestAdjustment = (body: { user_id: number; currency_id: number; account: string; amount: string; reason: string }) =>
  api.post<{ id: number; status: number; amount: string }>("/api/admin/adjustments", body);
export const decideAdjustment = (id: number, action: "approve" | "reject", reason: string) => api.post<{ id: number; status: number }>(`/api/admin/adjustments/${id}/${action}`, { reason });

export const fetchCurrencies = (signal?: AbortSignal) =>
  api.get<{ currency: number; currency_name: string; decimals: number }[]>("/api/user/user_wallet", { notify: false, signal });

// ── audit and reconciliation ─────────────────────────────────────────────────────────────────
export interface AuditRow {
  id: number;
  operator_id: number;
  operator_account: string | null;
  action: string;
  target_type: string;
  target_id: string;
  reason: string;
  detail: unknown;
  time_format: string;
}
export const fetchAudit = (page: number, signal?: AbortSignal) => list<AuditRow>("/api/admin/audit", { page }, signal);

export interface ReconcileResult {
  ok: boolean;
  checked_at: number;
  report_id: number;
  differences: ({ check: string } & Record<string, string | number>)[];
  stats: { ledger_rows: number; movements: number; balance_rows: number; open_holds: number; hold_sources: string[] };
}
export const runReconcile = () => api.get<ReconcileResult>("/api/admin/reconcile", { notify: false, timeoutMs: 30_000 });

/** The count of a queue (first page of one row). */
export const queueCount = async (path: string, status: number, signal?: AbortSignal) =>
  (await api.get<Page<unknown>>(path, { query: { status, limit: 1 }, notify: false, signal })).total;
