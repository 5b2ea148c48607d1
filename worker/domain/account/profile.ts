/** The personal centre (spec §2 Personal): profile, identity state, bank card and security flags. */
import { timeFormat } from "../wallet/currency.ts";
import { notFound } from "../../lib/errors.ts";
import { kycState, maskCard, maskId } from "../kyc/state.ts";
import type { Locale } from "../../../schemas/locale.ts";
import { bankNameFor } from "./banks.ts";

/** The user's own profile as the personal centre shows it; documents and cards masked; the card's bank named in `locale`. */
export async function userCenter(db: D1Database, uid: number, locale: Locale) {
  const [u, bank, totp, state] = await Promise.all([
    db
      .prepare("SELECT id, account, extension_code, is_seller, review_status, real_name, fund_password_hash IS NOT NULL AS fp, created_at FROM users WHERE id = ?")
      .bind(uid)
      .first<{ id: number; account: string; extension_code: string; is_seller: number; review_status: number; real_name: string | null; fp: number; created_at: number }>(),
    db.prepare("SELECT real_name, bank_account, bank_name, bank_branch FROM bank_cards WHERE user_id = ?").bind(uid).first<{ real_name: string; bank_account: string; bank_name: string; bank_branch: string }>(),
    db.prepare("SELECT enabled FROM totp_secrets WHERE user_id = ?").bind(uid).first<{ enabled: number }>(),
    kycState(db, uid),
  ]);
  if (!u) throw notFound();
  const shown = state.identity ?? (state.pending?.name ? { name: state.pending.name, type: state.pending.type ?? 0, card_id: state.pending.card_id ?? "" } : null);
  return {
    id: u.id,
    account: u.account,
    extension_code: u.extension_code,
    is_seller: u.is_seller,
    review_status: u.review_status,
    level: state.approvedLevel,
    pending_level: state.pending?.level ?? null,
    // The real name is shown only once verified (spec §4).
    name: u.review_status === 2 ? u.real_name : null,
    type: shown?.type ?? null,
    card_id: shown?.card_id ? maskId(shown.card_id) : null,
    rejection_reason: state.latest?.status === 3 ? state.latest.reason : null,
    bank: bank ? { real_name: bank.real_name, bank_account: maskCard(bank.bank_account), bank_name: bankNameFor(bank.bank_account, locale) ?? bank.bank_name, bank_branch: bank.bank_branch } : null,
    has_fund_password: u.fp === 1,
    totp_enabled: totp?.enabled === 1,
    created_at: timeFormat(u.created_at),
  };
}
