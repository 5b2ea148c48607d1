/**
 * The console's cover plans (/api/admin/insurance/*, worker/routes/operator-insurance.ts): every
 * plan with its totals, publish one, close one. Each action carries a reason and is audited.
 */
import type { z } from "zod";
import type { insurancePlanCreateSchema } from "../../../../schemas/insurance.ts";
import { call, client } from "../../lib/api.ts";
import { useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { InsurancePlan } from "../../../../schemas/insurance.ts";
export type InsurancePlanCreate = z.input<typeof insurancePlanCreateSchema>;

const ins = client.api.admin.insurance;
const KEY = ["operator", "insurance"] as const;

export const fetchInsurancePlans = (signal?: AbortSignal) => call((o) => ins.plans.$get({}, o), { notify: false, signal });
export const createInsurancePlan = (body: InsurancePlanCreate) => call((o) => ins.plans.$post({ json: body }, o));
export const closeInsurancePlan = (id: number, reason: string) => call((o) => ins.close.$post({ json: { id, reason } }, o));

export const useInsurancePlans = () => useScreenQuery({ queryKey: KEY, queryFn: ({ signal }) => fetchInsurancePlans(signal) });
export const useCreateInsurancePlan = () => useCallMutation(createInsurancePlan, [KEY]);
export const useCloseInsurancePlan = () => useCallMutation(closeInsurancePlan, [KEY]);
