/**
 * Operator console calls (/api/admin/*; the server allows role "operator" only and writes an
 * audit row for every action). Operators decide on deposits, withdrawals, identity submissions
 * and balance adjustments (a second, different operator approves those); they never edit a
 * balance directly.
 */
import type { AdminDeposit, AdminKyc, AdminUserRow, Adjustment, AuditRow, LedgerRow, ReconcileResult } from "../../../../schemas/operator.ts";
import type { z } from "zod";
import type { adminPayableCurrencySchema, adminSecondsOptionListSchema, payableCurrencyEditSchema, secondsOptionEditSchema } from "../../../../schemas/seconds-admin.ts";
import { call, client } from "../../lib/api.ts";
import type { AdminWithdrawal } from "../../../../schemas/operator.ts";
import { pagesById, useCallMutation, usePagedQuery, useScreenQuery } from "../../lib/query.ts";
import { patchSession } from "../../lib/session.ts";
import type { AccountName } from "../../lib/products.ts";
import type { adminAdvertSchema, adminAppealSchema, adminMerchantSchema } from "../../../../schemas/c2c.ts";

export type { AdminDeposit, AdminKyc, AdminUserRow, Adjustment, AuditRow, LedgerRow, ReconcileResult };
export type { AdminUserDetail, AdminWithdrawal } from "../../../../schemas/operator.ts";

export const fetchRole = (signal?: AbortSignal) => call((o) => client.api.user.info.$get({}, o), { notify: false, signal });

const admin = client.api.admin;
/** Query values travel as strings; an absent filter is left out. */
const q = (values: Record<string, number | string | undefined>) =>
  Object.fromEntries(Object.entries(values).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]))) as Record<string, string>;

// ── deposits ─────────────────────────────────────────────────────────────────────────────────
export const fetchDeposits = (page: number, status: number | undefined, signal?: AbortSignal) =>
  call((o) => admin.deposits.$get({ query: q({ page, status }) }, o), { notify: false, signal });
export const decideDeposit = (id: number, action: "approve" | "reject", reason: string) =>
  call((o) => admin.deposits[":id"][action].$post({ param: { id: String(id) }, json: { reason } }, o));

// ── withdrawals ──────────────────────────────────────────────────────────────────────────────
export type WithdrawalAction = "approve" | "reject" | "chain-success" | "chain-failure";
export const fetchWithdrawals = (page: number, status: number | undefined, signal?: AbortSignal) =>
  call((o) => admin.withdrawals.$get({ query: q({ page, status }) }, o), { notify: false, signal });
export const decideWithdrawal = (id: number, action: WithdrawalAction, reason: string, txid = "") =>
  call((o) => admin.withdrawals[":id"][":action{approve|reject|chain-success|chain-failure}"].$post({ param: { id: String(id), action }, json: { reason, ...(txid ? { txid } : {}) } }, o));

// ── identity reviews ─────────────────────────────────────────────────────────────────────────
export const fetchKyc = (page: number, status: number | undefined, signal?: AbortSignal) =>
  call((o) => admin.kyc.$get({ query: q({ page, status }) }, o), { notify: false, signal });
export const decideKyc = (id: number, action: "approve" | "reject", reason: string) =>
  call((o) => admin.kyc[":id"][action].$post({ param: { id: String(id) }, json: { reason } }, o));

// ── users ────────────────────────────────────────────────────────────────────────────────────
export const searchUsers = (page: number, search: string, signal?: AbortSignal) =>
  call((o) => admin.users.$get({ query: q({ page, q: search }) }, o), { notify: false, signal });
export const fetchUser = (id: number, signal?: AbortSignal) => call((o) => admin.users[":id"].$get({ param: { id: String(id) } }, o), { notify: false, signal });
export const fetchLedger = (id: number, page: number, signal?: AbortSignal) =>
  call((o) => admin.users[":id"].ledger.$get({ param: { id: String(id) }, query: q({ page }) }, o), { notify: false, signal });

// ── adjustments ──────────────────────────────────────────────────────────────────────────────
export const fetchAdjustments = (page: number, status: number | undefined, signal?: AbortSignal) =>
  call((o) => admin.adjustments.$get({ query: q({ page, status }) }, o), { notify: false, signal });
export const requestAdjustment = (body: { user_id: number; currency_id: number; account: AccountName; amount: string; reason: string }) =>
  call((o) => admin.adjustments.$post({ json: body }, o));
export const decideAdjustment = (id: number, action: "approve" | "reject", reason: string) =>
  call((o) => admin.adjustments[":id"][action].$post({ param: { id: String(id) }, json: { reason } }, o));

export const fetchCurrencies = (signal?: AbortSignal) => call((o) => client.api.user.user_wallet.$get({}, o), { notify: false, signal });

// ── audit and reconciliation ─────────────────────────────────────────────────────────────────
export const fetchAudit = (page: number, signal?: AbortSignal) => call((o) => admin.audit.$get({ query: q({ page }) }, o), { notify: false, signal });

export const runReconcile = () => call((o) => admin.reconcile.$get({}, o), { notify: false, timeoutMs: 30_000 });

/** The count of a queue (first page of one row). */
export async function queueCount(
  path: "/api/admin/deposits" | "/api/admin/withdrawals" | "/api/admin/kyc" | "/api/admin/adjustments" | "/api/admin/c2c/appeals" | "/api/admin/c2c/merchants",
  status: number,
  signal?: AbortSignal,
) {
  const query = q({ status, limit: 1 });
  const opts = { notify: false, signal };
  switch (path) {
    case "/api/admin/deposits":
      return (await call((o) => admin.deposits.$get({ query }, o), opts)).total;
    case "/api/admin/withdrawals":
      return (await call((o) => admin.withdrawals.$get({ query }, o), opts)).total;
    case "/api/admin/kyc":
      return (await call((o) => admin.kyc.$get({ query }, o), opts)).total;
    case "/api/admin/adjustments":
      return (await call((o) => admin.adjustments.$get({ query }, o), opts)).total;
    case "/api/admin/c2c/appeals":
      return (await call((o) => admin.c2c.appeals.$get({ query }, o), opts)).total;
    case "/api/admin/c2c/merchants":
      return (await call((o) => admin.c2c.merchants.$get({ query }, o), opts)).total;
  }
}

// ── queries and mutations ────────────────────────────────────────────────────────────────────

/** Everything the console shows lives under this root; a decision invalidates the lot. */
const OP = "operator";

/** Who is signed in; the role is remembered in the session so the console link shows at once next time. */
export const useRole = () =>
  useScreenQuery({
    queryKey: [OP, "role"],
    queryFn: async ({ signal }) => {
      const info = await fetchRole(signal);
      patchSession({ role: info.role });
      return info;
    },
  });

/** The waiting count of each queue, refreshed every 15 s while the overview is open. */
/**
 * What waits in each queue, for the overview. With C2C switched on, also the open C2C appeals
 * (status 0) and the merchant applications to review (status 0), the default views of their queues.
 */
export const useQueueCounts = (c2cOn: boolean) =>
  useScreenQuery({
    queryKey: [OP, "counts", c2cOn],
    queryFn: async ({ signal }) => {
      const [deposits, withdrawals, chain, kyc, adjustments, appeals, merchants] = await Promise.all([
        queueCount("/api/admin/deposits", 0, signal),
        queueCount("/api/admin/withdrawals", 0, signal),
        queueCount("/api/admin/withdrawals", 1, signal),
        queueCount("/api/admin/kyc", 1, signal),
        queueCount("/api/admin/adjustments", 0, signal),
        c2cOn ? queueCount("/api/admin/c2c/appeals", 0, signal) : null,
        c2cOn ? queueCount("/api/admin/c2c/merchants", 0, signal) : null,
      ]);
      return { deposits, withdrawals, chain, kyc, adjustments, appeals, merchants };
    },
    refetchInterval: 15_000,
  });
export const useDepositQueue = (status: number | undefined) =>
  usePagedQuery({ queryKey: [OP, "deposits", status ?? "all"], fetchPage: (page, signal) => fetchDeposits(page, status, signal), view: pagesById<AdminDeposit> });
export const useWithdrawalQueue = (status: number | undefined) =>
  usePagedQuery({ queryKey: [OP, "withdrawals", status ?? "all"], fetchPage: (page, signal) => fetchWithdrawals(page, status, signal), view: pagesById<AdminWithdrawal> });
export const useKycQueue = (status: number | undefined) =>
  usePagedQuery({ queryKey: [OP, "kyc", status ?? "all"], fetchPage: (page, signal) => fetchKyc(page, status, signal), view: pagesById<AdminKyc> });
export const useAdjustments = (status: number | undefined) =>
  usePagedQuery({ queryKey: [OP, "adjustments", status ?? "all"], fetchPage: (page, signal) => fetchAdjustments(page, status, signal), view: pagesById<Adjustment> });
export const useAudit = () => usePagedQuery({ queryKey: [OP, "audit"], fetchPage: fetchAudit, view: pagesById<AuditRow> });
export const useUserSearch = (search: string) =>
  usePagedQuery({ queryKey: [OP, "users", search], fetchPage: (page, signal) => searchUsers(page, search, signal), view: pagesById<AdminUserRow> });
export const useUserDetail = (id: number, enabled: boolean) =>
  useScreenQuery({ queryKey: [OP, "user", id], queryFn: ({ signal }) => fetchUser(id, signal), enabled });
export const useLedger = (id: number) =>
  usePagedQuery({ queryKey: [OP, "ledger", id], fetchPage: (page, signal) => fetchLedger(id, page, signal), view: pagesById<LedgerRow> });
/** A decision changes what the console shows (queues, counts, the user's balances and ledger). */
const decided = [[OP]] as const;
export const useDecideDeposit = () => useCallMutation(decideDeposit, decided);
export const useDecideWithdrawal = () => useCallMutation(decideWithdrawal, decided);
export const useDecideKyc = () => useCallMutation(decideKyc, decided);
export const useDecideAdjustment = () => useCallMutation(decideAdjustment, decided);
export const useRequestAdjustment = () => useCallMutation(requestAdjustment, decided);

export const useCurrencies = () => useScreenQuery({ queryKey: [OP, "currencies"], queryFn: ({ signal }) => fetchCurrencies(signal), staleTime: 60_000 });

// ── seconds contracts: duration options and payable currencies ───────────────────────────────
// /api/admin/seconds/* (worker/routes/operator-seconds.ts); shapes from schemas/seconds-admin.ts.

export type AdminSecondsOption = z.infer<typeof adminSecondsOptionListSchema>[number];
export type AdminPayableCurrency = z.infer<typeof adminPayableCurrencySchema>;
export type SecondsOptionEdit = z.input<typeof secondsOptionEditSchema>;
export type PayableCurrencyEdit = z.input<typeof payableCurrencyEditSchema>;
const secondsAdmin = admin.seconds;

export const fetchSecondsOptions = (signal?: AbortSignal) => call((o) => secondsAdmin.options.$get({}, o), { notify: false, signal });
export const fetchSecondsCurrencies = (signal?: AbortSignal) => call((o) => secondsAdmin.currencies.$get({}, o), { notify: false, signal });
export const saveSecondsOption = (body: SecondsOptionEdit) => call((o) => secondsAdmin.options.$post({ json: body }, o));
export const saveSecondsCurrency = (body: PayableCurrencyEdit) => call((o) => secondsAdmin.currencies.$post({ json: body }, o));

export const useSecondsOptions = () => useScreenQuery({ queryKey: [OP, "seconds", "options"], queryFn: ({ signal }) => fetchSecondsOptions(signal) });
export const useSecondsCurrencies = () => useScreenQuery({ queryKey: [OP, "seconds", "currencies"], queryFn: ({ signal }) => fetchSecondsCurrencies(signal) });
export const useSaveSecondsOption = () => useCallMutation(saveSecondsOption, decided);
export const useSaveSecondsCurrency = () => useCallMutation(saveSecondsCurrency, decided);
// ── C2C: merchant applications, adverts, appeals (schemas/c2c.ts) ───────────────────────────

export type AdminMerchant = z.output<typeof adminMerchantSchema>;
export type AdminAdvert = z.output<typeof adminAdvertSchema>;
export type AdminAppeal = z.output<typeof adminAppealSchema>;

const c2c = admin.c2c;
export const fetchC2cMerchants = (page: number, status: number | undefined, signal?: AbortSignal) =>
  call((o) => c2c.merchants.$get({ query: q({ page, status }) }, o), { notify: false, signal });
export const fetchC2cAdverts = (page: number, status: number | undefined, signal?: AbortSignal) =>
  call((o) => c2c.adverts.$get({ query: q({ page, status }) }, o), { notify: false, signal });
export const fetchC2cAppeals = (page: number, status: number | undefined, signal?: AbortSignal) =>
  call((o) => c2c.appeals.$get({ query: q({ page, status }) }, o), { notify: false, signal });
export const fetchC2cAppeal = (id: number, signal?: AbortSignal) => call((o) => c2c.appeals[":id"].$get({ param: { id: String(id) } }, o), { notify: false, signal });
/** approve / reject a merchant application, mark an advert abnormal, release / return an appeal's coins. */
export type C2cDecision = "merchants/approve" | "merchants/reject" | "adverts/abnormal" | "appeals/release" | "appeals/return";
export const decideC2c = (id: number, decision: C2cDecision, reason: string) => {
  const args = { param: { id: String(id) }, json: { reason } };
  switch (decision) {
    case "merchants/approve":
      return call((o) => c2c.merchants[":id"].approve.$post(args, o));
    case "merchants/reject":
      return call((o) => c2c.merchants[":id"].reject.$post(args, o));
    case "adverts/abnormal":
      return call((o) => c2c.adverts[":id"].abnormal.$post(args, o));
    case "appeals/release":
      return call((o) => c2c.appeals[":id"].release.$post(args, o));
    case "appeals/return":
      return call((o) => c2c.appeals[":id"].return.$post(args, o));
  }
};

export const useC2cMerchants = (status: number | undefined) =>
  usePagedQuery({ queryKey: [OP, "c2cMerchants", status ?? "all"], fetchPage: (page, signal) => fetchC2cMerchants(page, status, signal), view: pagesById<AdminMerchant> });
export const useC2cAdverts = (status: number | undefined) =>
  usePagedQuery({ queryKey: [OP, "c2cAdverts", status ?? "all"], fetchPage: (page, signal) => fetchC2cAdverts(page, status, signal), view: pagesById<AdminAdvert> });
export const useC2cAppeals = (status: number | undefined) =>
  usePagedQuery({ queryKey: [OP, "c2cAppeals", status ?? "all"], fetchPage: (page, signal) => fetchC2cAppeals(page, status, signal), view: pagesById<AdminAppeal> });
export const useC2cAppeal = (id: number) => useScreenQuery({ queryKey: [OP, "c2cAppeal", id], queryFn: ({ signal }) => fetchC2cAppeal(id, signal) });
export const useDecideC2c = () => useCallMutation(decideC2c, decided);
/** The operator's message to both parties of an appealed order (operatorMessageSchema). */
export const sendC2cAppealMessage = (id: number, text: string) => call((o) => c2c.appeals[":id"].messages.$post({ param: { id: String(id) }, json: { text } }, o));
export const useSendC2cAppealMessage = () => useCallMutation(sendC2cAppealMessage, decided);
