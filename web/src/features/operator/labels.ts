/**
 * Words of the operator console that are not tied to one screen, and the audit log as a person
 * reads it: an action label in the operator's language instead of `deposit.approve_first`, the
 * user's account instead of an id, the amount as a decimal with its currency (the server sends
 * it so, never in minimal units), the reason codes spelled out, and the rest of the recorded
 * detail as labelled facts. Unknown actions and keys are shown as recorded, never dropped.
 */
import type { AuditRow } from "../../../../schemas/operator.ts";
import { m } from "../../i18n/index.ts";
import { formatExact } from "../../lib/format.ts";
import { accountLabel } from "../../lib/products.ts";
import { isAccountName } from "../../../../schemas/products.ts";

/** An account name (change / micro / legal / lever …) as the asset centre calls it; anything else as recorded. */
export function accountText(a: string): string {
  return isAccountName(a) ? accountLabel(a) : a;
}

export function userLabel(account: string | null | undefined, id: number): string {
  return `${account ?? "—"} (ID ${id})`;
}

const ACTIONS: Record<string, () => string> = {
  "user.view": m.op_act_user_view,
  "deposit.approve": m.op_act_deposit_approve,
  "deposit.approve_first": m.op_act_deposit_approve_first,
  "deposit.reject": m.op_act_deposit_reject,
  "withdrawal.approve": m.op_act_withdrawal_approve,
  "withdrawal.reject": m.op_act_withdrawal_reject,
  "withdrawal.chain_success": m.op_act_withdrawal_chain_success,
  "withdrawal.chain_failure": m.op_act_withdrawal_chain_failure,
  "kyc.approve": m.op_act_kyc_approve,
  "kyc.reject": m.op_act_kyc_reject,
  "adjustment.request": m.op_act_adjustment_request,
  "adjustment.approve": m.op_act_adjustment_approve,
  "adjustment.reject": m.op_act_adjustment_reject,
  "reconcile.run": m.op_act_reconcile_run,
  "operator.money": m.op_act_operator_money,
  "seconds.option": m.op_act_seconds_option,
  "seconds.currency": m.op_act_seconds_currency,
  "lever.pair": m.op_act_lever_pair,
  "earn.product.create": m.op_act_earn_product_create,
  "earn.product.close": m.op_act_earn_product_close,
  "insurance.plan.create": m.op_act_insurance_plan_create,
  "insurance.plan.close": m.op_act_insurance_plan_close,
  "vote.round.create": m.op_act_vote_round_create,
  "vote.round.close": m.op_act_vote_round_close,
  "vote.round.cancel": m.op_act_vote_round_cancel,
  "mining.plan.create": m.op_act_mining_plan_create,
  "mining.plan.close": m.op_act_mining_plan_close,
  "mining.payout.record": m.op_act_mining_payout_record,
  "mining.payout.approve": m.op_act_mining_payout_approve,
  "mining.payout.reject": m.op_act_mining_payout_reject,
  "liabilities.snapshot": m.op_act_liabilities_snapshot,
  "support.reply": m.op_act_support_reply,
  "support.note": m.op_act_support_note,
  "support.status": m.op_act_support_status,
  "c2c.appeal.message": m.op_act_c2c_appeal_message,
  "c2c.appeal.release": m.op_act_c2c_appeal_release,
  "c2c.appeal.return": m.op_act_c2c_appeal_return,
  "c2c.merchant.approve": m.op_act_c2c_merchant_approve,
  "c2c.merchant.reject": m.op_act_c2c_merchant_reject,
  "c2c.advert.abnormal": m.op_act_c2c_advert_abnormal,
  "invite.settings": m.op_act_invite_settings,
  "invite.run": m.op_act_invite_run,
  "launch.create": m.op_act_launch_create,
  "launch.publish": m.op_act_launch_publish,
  "launch.cancel": m.op_act_launch_cancel,
  "maintenance.on": m.op_act_maintenance_on,
  "maintenance.off": m.op_act_maintenance_off,
  "accounts.migrate": m.op_act_accounts_migrate,
  "accounts.verify": m.op_act_accounts_verify,
  "accounts.system": m.op_act_accounts_system,
  "accounts.cut_over": m.op_act_accounts_cut_over,
};

/** The action in words; a refused attempt says so ("Refused: Credited a deposit"). */
export function actionLabel(action: string): string {
  const refused = action.endsWith(".refused");
  const base = refused ? action.slice(0, -".refused".length) : action;
  const label = ACTIONS[base]?.() ?? base;
  return refused ? m.op_act_refused({ action: label }) : label;
}

const REASONS: Record<string, () => string> = {
  own_record: m.op_reason_own_record,
  self_review: m.op_reason_self_review,
  operator_money_off: m.op_reason_operator_money_off,
};

/** A reason as typed by the operator, or a refusal's code in words. */
export function reasonText(reason: string): string {
  return REASONS[reason]?.() ?? reason;
}

/** A withdrawal's state number (schemas/wallet.ts) in words. */
function withdrawalState(n: unknown): string {
  switch (n) {
    case 0:
      return m.op_wd_state_0();
    case 1:
      return m.op_status_awaiting_chain();
    case 2:
      return m.op_status_sent();
    case 3:
      return m.op_status_chain_failed();
    case 4:
      return m.op_status_rejected();
    case 5:
      return m.op_wd_state_5();
    default:
      return String(n);
  }
}

const TARGETS: Record<string, () => string> = {
  deposit: m.op_nav_deposits,
  withdrawal: m.op_nav_withdrawals,
  adjustment: m.op_nav_adjustments,
  kyc: m.op_nav_kyc,
  user: m.op_nav_users,
  reconciliation: m.op_nav_reconcile,
  seconds_option: m.op_target_seconds_option,
  micro_currency: m.op_target_micro_currency,
  lever_pair: m.op_target_lever_pair,
  settings: m.op_target_settings,
  account_migration: m.op_target_account_migration,
  earn_product: m.op_target_earn_product,
  insurance_plan: m.op_target_insurance_plan,
  vote_round: m.op_target_vote_round,
  mining_plan: m.op_target_mining_plan,
  mining_payout: m.op_target_mining_payout,
  liab_snapshot: m.op_target_liab_snapshot,
  support_ticket: m.op_target_support_ticket,
  c2c_order: m.op_target_c2c_order,
  c2c_merchant: m.op_target_c2c_merchant,
  c2c_advert: m.op_target_c2c_advert,
  invite_settings: m.op_target_invite_settings,
  invite_run: m.op_target_invite_run,
  launch_project: m.op_target_launch_project,
  route: m.op_target_route,
};

/** The kind of record an action was about, as the console's sections name it. */
function targetText(type: string): string {
  return TARGETS[type]?.() ?? type;
}

export interface AuditFact {
  label: string;
  value: string;
  key: string;
}

/** Detail keys shown through other facts (the user, the amount, the account) or below. */
const SHOWN = new Set(["user_id", "currency_id", "amount", "account", "requested_by", "first_approved_by", "level", "from", "to", "txid", "ok", "differences"]);

/** The facts of one audit row, in the order an operator reads them. */
export function auditFacts(a: AuditRow): AuditFact[] {
  const facts: AuditFact[] = [];
  const d = (a.detail && typeof a.detail === "object" ? a.detail : {}) as Record<string, unknown>;
  const person = (id: unknown) => (typeof id === "number" ? userLabel(a.accounts[String(id)], id) : String(id));

  if (a.subject) facts.push({ key: "user", label: m.op_audit_user(), value: userLabel(a.subject.account, a.subject.id) });
  else if (typeof d.user_id === "number") facts.push({ key: "user", label: m.op_audit_user(), value: person(d.user_id) });
  if (a.amount) facts.push({ key: "amount", label: m.op_audit_amount(), value: `${formatExact(a.amount.value)} ${a.amount.currency}` });
  if (a.wallet_account) facts.push({ key: "account", label: m.op_account(), value: accountText(a.wallet_account) });
  if (d.level !== undefined) facts.push({ key: "level", label: m.op_audit_level(), value: String(d.level) });
  if (d.requested_by !== undefined) facts.push({ key: "requested_by", label: m.op_requested_by(), value: person(d.requested_by) });
  if (d.first_approved_by !== undefined) facts.push({ key: "first_approved_by", label: m.op_audit_first_approver(), value: person(d.first_approved_by) });
  if (d.from !== undefined && d.to !== undefined) facts.push({ key: "state", label: m.op_audit_state(), value: `${withdrawalState(d.from)} → ${withdrawalState(d.to)}` });
  if (typeof d.txid === "string" && d.txid) facts.push({ key: "txid", label: m.op_txid(), value: d.txid });
  if (typeof d.ok === "boolean") {
    const count = typeof d.differences === "number" ? d.differences : 0;
    facts.push({ key: "result", label: m.op_audit_result(), value: d.ok ? m.op_reconcile_ok() : m.op_reconcile_bad({ count }) });
  }
  if (a.target_type !== "user" || !a.subject) facts.push({ key: "target", label: m.op_audit_target(), value: `${targetText(a.target_type)} #${a.target_id}` });
  if (a.reason) facts.push({ key: "reason", label: m.op_reason(), value: reasonText(a.reason) });
  const rest = Object.entries(d).filter(([k, v]) => !SHOWN.has(k) && v !== undefined && v !== null);
  if (rest.length > 0) facts.push({ key: "other", label: m.op_audit_details(), value: rest.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ") });
  return facts;
}
