/**
 * The operator console's launch actions, each audited with its reason in the action's own batch:
 * create a draft (creating the token unlisted when it is new), publish it (the supply is reserved:
 * frozen in the treasury, which must hold it), cancel it (every commitment refunded in full by
 * settle.ts, at once and by the cron for what does not fit). Operators never commit (their
 * accounts do not trade: refuseOperatorMoney), so no operator decides anything about their own money here.
 */
import type { LaunchProject, LaunchProjectCreate } from "../../../schemas/launch.ts";
import { LAUNCH_CURRENCIES } from "../../../schemas/launch.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { TREASURY, auditStatement } from "../../lib/guarded.ts";
import { movementStatements } from "../../lib/ledger.ts";
import { amountOrThrow, getCurrency } from "../wallet/currency.ts";
import { guardStatement } from "./guard.ts";
import { settleProject } from "./settle.ts";
import { listProjects, projectRow } from "./store.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { treasuryAt } from "../../lib/product-objects.ts";
import { holdThenBatch } from "./objects.ts";

async function projectOut(db: D1Database, id: number): Promise<LaunchProject> {
  const p = (await listProjects(db, null, { drafts: true })).find((x) => x.id === id);
  if (!p) throw notFound();
  return p;
}

export async function createProject(db: D1Database, operatorId: number, b: LaunchProjectCreate, now = Date.now()): Promise<LaunchProject> {
  if (b.end_at <= now) throw new ApiError("launch_window", 400);
  const stmts: D1PreparedStatement[] = [];
  let tokenId: number;
  let tokenScale: number;
  if (b.token_id !== undefined) {
    const t = await getCurrency(db, b.token_id);
    tokenId = t.id;
    tokenScale = t.scale;
  } else {
    const name = b.token_name!;
    if (await db.prepare("SELECT 1 FROM currencies WHERE name = ?").bind(name).first()) throw new ApiError("launch_token_exists", 409);
    const next = await db.prepare("SELECT COALESCE(MAX(id), 0) + 1 AS id FROM currencies").first<{ id: number }>();
    tokenId = Math.max(next!.id, 100);
    tokenScale = b.token_scale ?? 8;
    // Unlisted: not shown in the currency lists, no trading pair.
    stmts.push(db.prepare("INSERT INTO currencies (id, name, scale, show, sort) VALUES (?, ?, ?, 0, 900)").bind(tokenId, name, tokenScale));
  }
  const supply = amountOrThrow(b.supply, tokenScale);
  const cap = amountOrThrow(b.cap, tokenScale);
  if (cap > supply) throw new ApiError("launch_cap_supply", 400);
  const prices: { currencyId: number; price: bigint; max: bigint }[] = [];
  for (const x of b.prices) {
    if (!(LAUNCH_CURRENCIES as readonly number[]).includes(x.currency_id) || x.currency_id === tokenId) throw new ApiError("launch_prices", 400);
    const c = await getCurrency(db, x.currency_id);
    const price = amountOrThrow(x.price, c.scale);
    const max = (cap * price) / 10n ** BigInt(tokenScale);
    if (max <= 0n) throw new ApiError("launch_prices", 400);
    prices.push({ currencyId: c.id, price, max });
  }
  const last = await db.prepare("SELECT COALESCE(MAX(id), 0) + 1 AS id FROM launch_projects").first<{ id: number }>();
  const id = last!.id;
  stmts.push(
    db
      .prepare(
        `INSERT INTO launch_projects (id, title, token_id, supply, cap, start_at, end_at, cliff_days, vest_days, vest_steps, listing_note, created_by, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(id, b.title, tokenId, supply.toString(), cap.toString(), b.start_at, b.end_at, b.cliff_days, b.vest_days, b.vest_steps, b.listing_note, operatorId, now),
    ...prices.map((x) => db.prepare("INSERT INTO launch_prices (project_id, currency_id, price, max_amount) VALUES (?, ?, ?, ?)").bind(id, x.currencyId, x.price.toString(), x.max.toString())),
    auditStatement(db, { operatorId, action: "launch.create", targetType: "launch_project", targetId: id, reason: b.reason, detail: { ...b, token_id: tokenId } }, now),
  );
  try {
    await db.batch(stmts);
  } catch (err) {
    if (/UNIQUE constraint failed/i.test(String((err as Error)?.message ?? err))) throw new ApiError("try_again", 409);
    throw err;
  }
  return projectOut(db, id);
}

export async function publishProject(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, operatorId: number, id: number, reason: string, now = Date.now()): Promise<LaunchProject> {
  const db = env.DB;
  const p = await projectRow(db, id);
  if (!p) throw notFound();
  if (p.status !== "draft") throw new ApiError("state_conflict", 409);
  if (p.end_at <= now) throw new ApiError("launch_window", 400);
  const supply = BigInt(p.supply);
  const stmts = [
    db.prepare("UPDATE launch_projects SET status = 'open', published_at = ? WHERE id = ? AND status = 'draft'").bind(now, id),
    guardStatement(db, "launch publish"),
    auditStatement(db, { operatorId, action: "launch.publish", targetType: "launch_project", targetId: id, reason, detail: { supply: p.supply, token_id: p.token_id } }, now),
  ];
  try {
    // Objects mode: the supply held first in the project's treasury shard, named after this publication (./objects.ts).
    if (accountsOnObjects(env))
      await holdThenBatch(
        env,
        treasuryAt(id),
        { forKind: "launch_reserve", forId: `${id}:${now}`, currencyId: p.token_id, amount: supply },
        () => new ApiError("launch_reserve_short", 409),
        (claim) => db.batch([...stmts, claim]),
        now,
      );
    else
      await db.batch([
        ...movementStatements(db, `launch:${id}:reserve`, "launch_reserve", [{ userId: TREASURY, currencyId: p.token_id, account: "change", dAvailable: -supply, dFrozen: supply, memo: `launch ${id}` }], now),
        ...stmts,
      ]);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const msg = String((err as Error)?.message ?? err);
    if (msg.includes("treasury_overdraft") || /CHECK constraint failed/i.test(msg)) throw new ApiError("launch_reserve_short", 409);
    if (msg.includes("state_conflict") || /UNIQUE constraint failed: movements/i.test(msg)) throw new ApiError("state_conflict", 409);
    throw err;
  }
  return projectOut(db, id);
}

export async function cancelProject(env: Pick<Env, "DB" | "USER">, operatorId: number, id: number, reason: string, now = Date.now()): Promise<LaunchProject> {
  const db = env.DB;
  const p = await projectRow(db, id);
  if (!p) throw notFound();
  if (p.status !== "draft" && p.status !== "open") throw new ApiError("state_conflict", 409);
  try {
    await db.batch([
      db.prepare("UPDATE launch_projects SET status = 'cancelling' WHERE id = ? AND status = ?").bind(id, p.status),
      guardStatement(db, "launch cancel"),
      auditStatement(db, { operatorId, action: "launch.cancel", targetType: "launch_project", targetId: id, reason }, now),
    ]);
  } catch (err) {
    if (String((err as Error)?.message ?? err).includes("state_conflict")) throw new ApiError("state_conflict", 409);
    throw err;
  }
  // Refund what fits now; the every-minute cron goes on with the rest.
  await settleProject(env, id, now, 100);
  return projectOut(db, id);
}
