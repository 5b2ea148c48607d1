/**
 * Merchants (issue #10 §1): a verified user applies with a name and puts up the security deposit
 * (USDT, frozen in their legal account in the same batch as the application); an operator
 * approves or rejects it (audited; rejection returns the deposit); a merchant leaves once every
 * advert is withdrawn, and the deposit comes back. Movement keys: c2c:merchant:{id}:deposit and
 * c2c:merchant:{id}:release, so each happens at most once.
 */
import { formatUnits, parseUnits } from "../../../schemas/money.ts";
import type { Merchant, MerchantStatus } from "../../../schemas/c2c.ts";
import { big, getCurrency, timeFormat } from "../wallet/currency.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { auditStatement, refuseOwnRecord } from "../../lib/guarded.ts";
import { movementStatements } from "../../lib/ledger.ts";
import { decideMerchant, type MerchantAction } from "./machine.ts";
import { c2cSettings, guard, runC2c, runC2cWithNewId } from "./shared.ts";

type MerchantRow = { id: number; user_id: number; name: string; status: MerchantStatus; currency_id: number; deposit: number; reason: string; decided_by: number | null; decided_at: number | null; created_at: number };

/** The user's newest application (live one first), or null. */
export async function latestApplication(db: D1Database, userId: number): Promise<MerchantRow | null> {
  return db
    .prepare("SELECT * FROM c2c_merchants WHERE user_id = ? ORDER BY status IN (0, 1) DESC, created_at DESC, id DESC LIMIT 1")
    .bind(userId)
    .first<MerchantRow>();
}

/** Whether the user is an approved merchant now. */
export async function isMerchant(db: D1Database, userId: number): Promise<boolean> {
  return (await db.prepare("SELECT 1 AS x FROM c2c_merchants WHERE user_id = ? AND status = 1").bind(userId).first()) !== null;
}

/** The caller's merchant state (schemas/c2c.ts merchantSchema). */
export async function merchantView(db: D1Database, userId: number): Promise<Merchant> {
  const [m, user, open] = await Promise.all([
    latestApplication(db, userId),
    db.prepare("SELECT is_seller FROM users WHERE id = ?").bind(userId).first<{ is_seller: number }>(),
    db.prepare("SELECT count(*) AS n FROM c2c_adverts WHERE user_id = ? AND status IN (1, 2, 4)").bind(userId).first<{ n: number }>(),
  ]);
  const cur = m ? await getCurrency(db, m.currency_id) : null;
  return {
    status: m?.status ?? null,
    is_seller: user?.is_seller === 1 ? 1 : 0,
    name: m?.name ?? null,
    deposit: m && cur && (m.status === 0 || m.status === 1) ? formatUnits(big(m.deposit), cur.scale) : null,
    deposit_currency: cur?.name ?? "USDT",
    reason: m?.status === 2 ? m.reason : "",
    apply_time: m?.created_at ?? null,
    decided_time: m?.decided_at ?? null,
    open_adverts: open?.n ?? 0,
  };
}

/** Applies to become a merchant: the application and the deposit freeze are one batch. */
export async function applyMerchant(env: Env, userId: number, name: string, now = Date.now()): Promise<Merchant> {
  const db = env.DB;
  const live = await db.prepare("SELECT id FROM c2c_merchants WHERE user_id = ? AND status IN (0, 1)").bind(userId).first();
  if (live) throw new ApiError("c2c_already_merchant", 409);
  const taken = await db.prepare("SELECT id FROM c2c_merchants WHERE lower(name) = lower(?) AND status IN (0, 1)").bind(name).first();
  if (taken) throw new ApiError("c2c_name_exists", 409);
  const settings = c2cSettings(env);
  const cur = await getCurrency(db, settings.depositCurrencyId);
  const deposit = parseUnits(settings.merchantDeposit, cur.scale) ?? 0n;
  const build = (id: number) => {
    const stmts = deposit > 0n
      ? movementStatements(db, `c2c:merchant:${id}:deposit`, "c2c_deposit", [
          { userId, currencyId: cur.id, account: "legal", dAvailable: -deposit, dFrozen: deposit, memo: `merchant deposit ${id}` },
        ], now)
      : [];
    stmts.push(
      db.prepare("INSERT INTO c2c_merchants (id, user_id, name, status, currency_id, deposit, created_at) VALUES (?, ?, ?, 0, ?, ?, ?)").bind(id, userId, name, cur.id, deposit.toString(), now),
    );
    return stmts;
  };
  await runC2cWithNewId(db, "c2c_merchants", build, "state_conflict", now);
  return merchantView(db, userId);
}

/** Leaves (or withdraws a pending application): every advert must be withdrawn; the deposit is released. */
export async function leaveMerchant(db: D1Database, userId: number, now = Date.now()): Promise<Merchant> {
  const m = await db.prepare("SELECT * FROM c2c_merchants WHERE user_id = ? AND status IN (0, 1)").bind(userId).first<MerchantRow>();
  if (!m) throw new ApiError("c2c_not_merchant", 403);
  const open = await db.prepare("SELECT 1 AS x FROM c2c_adverts WHERE user_id = ? AND status IN (1, 2, 4) LIMIT 1").bind(userId).first();
  if (open) throw new ApiError("c2c_adverts_open", 409);
  await runC2c(db, transitionStatements(db, m, "leave", { now, actorId: userId, reason: "" }), "state_conflict");
  return merchantView(db, userId);
}

function transitionStatements(db: D1Database, m: MerchantRow, action: MerchantAction, o: { now: number; actorId: number; reason: string }): D1PreparedStatement[] {
  const d = decideMerchant(m.status, action);
  if (!d.ok) throw new ApiError("state_conflict", 409);
  const deposit = big(m.deposit);
  const stmts = d.transition.releasesDeposit && deposit > 0n
    ? movementStatements(db, `c2c:merchant:${m.id}:release`, "c2c_deposit_release", [
        { userId: m.user_id, currencyId: m.currency_id, account: "legal", dAvailable: deposit, dFrozen: -deposit, memo: `merchant deposit ${m.id} released (${action})` },
      ], o.now)
    : [];
  const operator = action === "approve" || action === "reject";
  stmts.push(
    db
      .prepare("UPDATE c2c_merchants SET status = ?, reason = ?, decided_by = ?, decided_at = ?, left_at = ? WHERE id = ? AND status = ?")
      .bind(d.transition.to, o.reason, operator ? o.actorId : m.decided_by, operator ? o.now : m.decided_at, action === "leave" ? o.now : null, m.id, m.status),
    guard(db, `merchant ${m.id} ${action}`),
  );
  return stmts;
}

/** An operator approves or rejects a pending application (audited; never their own). */
export async function decideMerchantApplication(db: D1Database, operatorId: number, id: number, approve: boolean, reason: string, now = Date.now()) {
  const m = await db.prepare("SELECT * FROM c2c_merchants WHERE id = ?").bind(id).first<MerchantRow>();
  if (!m) throw notFound();
  const action = approve ? "approve" : "reject";
  await refuseOwnRecord(db, operatorId, m.user_id, { action: `c2c.merchant.${action}`, targetType: "c2c_merchant", targetId: m.id, detail: { user_id: m.user_id } });
  const stmts = transitionStatements(db, m, action, { now, actorId: operatorId, reason });
  stmts.push(auditStatement(db, { operatorId, action: `c2c.merchant.${action}`, targetType: "c2c_merchant", targetId: m.id, reason, detail: { user_id: m.user_id, name: m.name, deposit: String(m.deposit) } }, now));
  await runC2c(db, stmts, "state_conflict");
  return { id: m.id, status: approve ? 1 : 2 };
}

/** Operator list of applications, pending first. `own` marks the viewing operator's own (they may not decide it). */
export async function adminMerchants(db: D1Database, operatorId: number, status: number | undefined, userId: number | undefined, page: number, limit: number) {
  const where = "(?1 IS NULL OR m.status = ?1) AND (?2 IS NULL OR m.user_id = ?2)";
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM c2c_merchants m WHERE ${where}`).bind(status ?? null, userId ?? null),
    db
      .prepare(
        `SELECT m.*, u.account, u.real_name, c.name AS currency_name, c.scale FROM c2c_merchants m JOIN users u ON u.id = m.user_id JOIN currencies c ON c.id = m.currency_id
          WHERE ${where} ORDER BY m.status = 0 DESC, m.created_at DESC LIMIT ?3 OFFSET ?4`,
      )
      .bind(status ?? null, userId ?? null, limit, (page - 1) * limit),
  ]);
  type Row = MerchantRow & { account: string; real_name: string | null; currency_name: string; scale: number };
  return {
    total: (total?.results?.[0] as { n: number } | undefined)?.n ?? 0,
    lists: ((rows?.results ?? []) as Row[]).map((r) => ({
      id: r.id,
      user_id: r.user_id,
      account: r.account,
      real_name: r.real_name,
      name: r.name,
      status: r.status,
      deposit: formatUnits(big(r.deposit), r.scale),
      deposit_currency: r.currency_name,
      reason: r.reason,
      decided_by: r.decided_by,
      apply_time: r.created_at,
      format_apply_time: timeFormat(r.created_at),
      own: r.user_id === operatorId,
    })),
  };
}
