/**
 * The console's mining plans and pool payouts (/api/admin/mining/*, worker/routes/operator-mining.ts):
 * list, list a plan, close one; record an hour's payout, approve or reject another operator's record.
 * Each action carries a reason and is audited.
 */
import type { z } from "zod";
import type { miningPlanCreateSchema } from "../../../../schemas/mining.ts";
import { call, client } from "../../lib/api.ts";
import { useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { MiningAdminPayout, MiningPlan } from "../../../../schemas/mining.ts";
export type MiningPlanCreate = z.input<typeof miningPlanCreateSchema>;

const api = client.api.admin.mining;
const KEY = ["operator", "mining"] as const;

export const fetchMiningPlans = (signal?: AbortSignal) => call((o) => api.plans.$get({}, o), { notify: false, signal });
export const fetchMiningPayouts = (signal?: AbortSignal) => call((o) => api.payouts.$get({ query: { status: "all" } }, o), { notify: false, signal });
export const createMiningPlan = (body: MiningPlanCreate) => call((o) => api.plans.$post({ json: body }, o));
export const closeMiningPlan = (id: number, reason: string) => call((o) => api.close.$post({ json: { id, reason } }, o));
export const recordMiningPayout = (body: { plan_id: number; hour: string; amount: string; evidence: string; reason: string }) => call((o) => api.payouts.$post({ json: body }, o));
export const approveMiningPayout = (id: number, reason: string) => call((o) => api.payouts.approve.$post({ json: { id, reason } }, o));
export const rejectMiningPayout = (id: number, reason: string) => call((o) => api.payouts.reject.$post({ json: { id, reason } }, o));

export const useMiningPlans = () => useScreenQuery({ queryKey: [...KEY, "plans"], queryFn: ({ signal }) => fetchMiningPlans(signal) });
export const useMiningPayouts = () => useScreenQuery({ queryKey: [...KEY, "payouts"], queryFn: ({ signal }) => fetchMiningPayouts(signal) });
export const useCreateMiningPlan = () => useCallMutation(createMiningPlan, [KEY]);
export const useCloseMiningPlan = () => useCallMutation(closeMiningPlan, [KEY]);
export const useRecordMiningPayout = () => useCallMutation(recordMiningPayout, [KEY]);
export const useApproveMiningPayout = () => useCallMutation(approveMiningPayout, [KEY]);
export const useRejectMiningPayout = () => useCallMutation(rejectMiningPayout, [KEY]);
