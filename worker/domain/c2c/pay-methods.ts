/**
 * Receiving methods (issue #10 §1): the bank card (bank_cards, one per user, its own endpoint)
 * plus Alipay, WeChat and other accounts kept here, at most C2C_MAX_PAY_METHODS per user. The
 * holder name is always the verified real name (the database refuses anything else). The bank
 * card is written through /bank with any holder name, so for C2C it counts only while its holder
 * is the verified real name (BANK_MATCHES): otherwise it is listed with name_mismatch and is neither
 * a receiving method for the 997 gate and adverts nor shown to a buyer. Payment codes are the
 * user's own uploads.
 */
import type { PayKind, PayMethod, PaySnapshot } from "../../../schemas/c2c.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { maskCard } from "../kyc/state.ts";
import { ownUpload, uploadUrl } from "../uploads/uploads.ts";
import { c2cSettings, runC2c } from "./shared.ts";

type MethodRow = { id: number; user_id: number; kind: "alipay" | "wechat" | "other"; holder_name: string; account: string; label: string; qr_code: string | null; created_at: number };
type BankRow = { real_name: string; bank_account: string; bank_name: string; bank_branch: string; updated_at: number };

/** A bank card row usable for C2C: the user is verified and the card's holder is their real name. */
const BANK_MATCHES = "EXISTS (SELECT 1 FROM users u WHERE u.id = bank_cards.user_id AND u.review_status = 2 AND u.real_name IS NOT NULL AND TRIM(u.real_name) = TRIM(bank_cards.real_name))";

export interface MethodInput {
  kind: "alipay" | "wechat" | "other";
  account: string;
  label: string;
  qr_code?: string;
}

/** Every receiving method of a user, the bank card first (id 0). */
export async function listPayMethods(db: D1Database, userId: number): Promise<PayMethod[]> {
  const [bank, rows] = await Promise.all([
    db.prepare(`SELECT real_name, bank_account, bank_name, bank_branch, updated_at, ${BANK_MATCHES} AS matches FROM bank_cards WHERE user_id = ?`).bind(userId).first<BankRow & { matches: number }>(),
    db.prepare("SELECT * FROM c2c_pay_methods WHERE user_id = ? ORDER BY id").bind(userId).all<MethodRow>(),
  ]);
  const out: PayMethod[] = [];
  if (bank) out.push({ id: 0, kind: "bank", holder_name: bank.real_name, account: maskCard(bank.bank_account), bank_name: bank.bank_name, label: "", qr_code: null, create_time: bank.updated_at, name_mismatch: bank.matches !== 1 });
  for (const r of rows.results) out.push({ id: r.id, kind: r.kind, holder_name: r.holder_name, account: r.account, bank_name: "", label: r.label, qr_code: r.qr_code ? uploadUrl(r.qr_code) : null, create_time: r.created_at, name_mismatch: false });
  return out;
}

/** The kinds of receiving method a user has (997 gate and advert acceptance). */
export async function payKindsOf(db: D1Database, userId: number): Promise<Set<PayKind>> {
  const { results } = await db
    .prepare(`SELECT 'bank' AS kind FROM bank_cards WHERE user_id = ?1 AND ${BANK_MATCHES} UNION SELECT kind FROM c2c_pay_methods WHERE user_id = ?1`)
    .bind(userId)
    .all<{ kind: PayKind }>();
  return new Set(results.map((r) => r.kind));
}

/**
 * The seller's methods of the accepted kinds, as recorded into a new order (full account numbers:
 * the buyer must be able to pay). Payment codes are referenced by upload id.
 */
export async function paySnapshot(db: D1Database, userId: number, kinds: PayKind[]): Promise<(Omit<PaySnapshot, "qr_code"> & { qr_code: string | null })[]> {
  const out: (Omit<PaySnapshot, "qr_code"> & { qr_code: string | null })[] = [];
  if (kinds.includes("bank")) {
    const bank = await db.prepare(`SELECT real_name, bank_account, bank_name, bank_branch, updated_at FROM bank_cards WHERE user_id = ? AND ${BANK_MATCHES}`).bind(userId).first<BankRow>();
    if (bank) out.push({ kind: "bank", holder_name: bank.real_name, account: bank.bank_account, bank_name: bank.bank_name, bank_branch: bank.bank_branch, label: "", qr_code: null });
  }
  const { results } = await db.prepare("SELECT * FROM c2c_pay_methods WHERE user_id = ? ORDER BY id").bind(userId).all<MethodRow>();
  for (const r of results) {
    if (kinds.includes(r.kind)) out.push({ kind: r.kind, holder_name: r.holder_name, account: r.account, bank_name: "", bank_branch: "", label: r.label, qr_code: r.qr_code });
  }
  return out;
}

async function checkedInput(db: D1Database, userId: number, input: MethodInput) {
  const user = await db.prepare("SELECT real_name, review_status FROM users WHERE id = ?").bind(userId).first<{ real_name: string | null; review_status: number }>();
  if (!user?.real_name || user.review_status !== 2) throw new ApiError("c2c_holder_name", 403);
  if (input.kind === "other" && !input.label) throw new ApiError("missing_field", 400, { field: "label" });
  if (input.kind !== "other" && input.label) throw new ApiError("invalid_field", 400, { field: "label" });
  let qr: string | null = null;
  if (input.qr_code !== undefined) qr = await ownUpload(db, userId, input.qr_code, "qr_code");
  else if (input.kind !== "other") throw new ApiError("picture_required", 400, { field: "qr_code" });
  return { holder: user.real_name, qr };
}

/** Adds a method; refused beyond the configured number (one conditional INSERT, so parallel adds cannot pass it). */
export async function addPayMethod(env: Env, userId: number, input: MethodInput, now = Date.now()): Promise<PayMethod> {
  const db = env.DB;
  const { holder, qr } = await checkedInput(db, userId, input);
  const max = c2cSettings(env).maxPayMethods;
  const [r] = await runC2c(db, [
    db
      .prepare(
        `INSERT INTO c2c_pay_methods (user_id, kind, holder_name, account, label, qr_code, created_at, updated_at)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7 WHERE (SELECT count(*) FROM c2c_pay_methods WHERE user_id = ?1) < ?8 RETURNING id`,
      )
      .bind(userId, input.kind, holder, input.account, input.label, qr, now, max),
  ]);
  const id = (r?.results?.[0] as { id: number } | undefined)?.id;
  if (!id) throw new ApiError("c2c_pay_method_limit", 409, { max });
  return { id, kind: input.kind, holder_name: holder, account: input.account, bank_name: "", label: input.label, qr_code: qr ? uploadUrl(qr) : null, create_time: now, name_mismatch: false };
}

/** Replaces one of the user's own methods (orders keep what they recorded). */
export async function updatePayMethod(db: D1Database, userId: number, id: number, input: MethodInput, now = Date.now()): Promise<PayMethod> {
  const row = await db.prepare("SELECT * FROM c2c_pay_methods WHERE id = ? AND user_id = ?").bind(id, userId).first<MethodRow>();
  if (!row) throw notFound();
  const { holder, qr } = await checkedInput(db, userId, input);
  await runC2c(db, [
    db
      .prepare("UPDATE c2c_pay_methods SET kind = ?, holder_name = ?, account = ?, label = ?, qr_code = ?, updated_at = ? WHERE id = ? AND user_id = ?")
      .bind(input.kind, holder, input.account, input.label, qr, now, id, userId),
  ]);
  return { id, kind: input.kind, holder_name: holder, account: input.account, bank_name: "", label: input.label, qr_code: qr ? uploadUrl(qr) : null, create_time: row.created_at, name_mismatch: false };
}

/** Deletes one of the user's own methods. */
export async function deletePayMethod(db: D1Database, userId: number, id: number): Promise<void> {
  const r = await db.prepare("DELETE FROM c2c_pay_methods WHERE id = ? AND user_id = ?").bind(id, userId).run();
  if (!r.meta.changes) throw notFound();
}
