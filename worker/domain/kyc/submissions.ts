/**
 * Identity verification submissions (spec §2 Verification): three levels, each needing the fields
 * of every level between the approved one and the one applied for; level 3 needs assets above a
 * published threshold, valued in BTC at real last prices. One submission under review at a time.
 */
import type { z } from "zod";
import { formatUnits, parseUnits } from "../../../schemas/money.ts";
import type { identityFormSchema } from "../../../schemas/kyc.ts";
import { setting } from "../wallet/currency.ts";
import { ApiError } from "../../lib/errors.ts";
import { holdingsInBtc, usdtPrices } from "../spot/prices.ts";
import { ownUpload } from "../uploads/uploads.ts";
import { kycState } from "./state.ts";
import { readsOnObjects, type AccountsEnv } from "../wallet/object-reads.ts";
import { userStub } from "../../lib/notify.ts";

/** Everything the user holds, every account, available and frozen: the account object's in objects mode, D1's otherwise. */
async function holdings(env: AccountsEnv, userId: number): Promise<{ currencyId: number; units: bigint; scale: number }[]> {
  const scales = await env.DB.prepare("SELECT id, scale FROM currencies").all<{ id: number; scale: number }>();
  const scaleOf = new Map(scales.results.map((r) => [r.id, r.scale]));
  const rows = readsOnObjects(env)
    ? (await userStub(env, userId).accountBalances(userId)).map((b) => ({ currencyId: b.currencyId, units: b.available + b.frozen }))
    : (
        await env.DB.prepare("SELECT currency_id, CAST(available + frozen AS TEXT) AS u FROM balances WHERE user_id = ?").bind(userId).all<{ currency_id: number; u: string }>()
      ).results.map((r) => ({ currencyId: r.currency_id, units: BigInt(r.u) }));
  return rows.flatMap((r) => (scaleOf.has(r.currencyId) ? [{ ...r, scale: scaleOf.get(r.currencyId)! }] : []));
}

/** Records a submission for review; answers the level applied for and the user's review status. */
export async function submitIdentity(env: AccountsEnv, userId: number, f: z.output<typeof identityFormSchema>) {
  const db = env.DB;
  const state = await kycState(db, userId);
  if (state.pending) throw new ApiError("kyc_under_review", 409);
  const hasPics = Boolean(f.front_pic || f.reverse_pic || f.hand_pic);
  const level = f.level ?? (f.asset_pic ? 3 : hasPics ? 2 : 1);
  if (level <= state.approvedLevel) throw new ApiError("kyc_approved", 409);

  // The fields of every level between the approved one and the one applied for are required.
  const needs1 = state.approvedLevel < 1;
  const needs2 = level >= 2 && state.approvedLevel < 2;
  const needs3 = level === 3;
  const has1 = f.name !== undefined || f.type !== undefined || f.card_id !== undefined;
  if (needs1 && level > 1 && !has1) throw new ApiError("kyc_level_order", 400, { level: 1 });
  if (needs2 && level > 2 && !hasPics) throw new ApiError("kyc_level_order", 400, { level: 2 });
  const row = {
    name: null as string | null,
    type: null as number | null,
    card_id: null as string | null,
    front_pic: null as string | null,
    reverse_pic: null as string | null,
    hand_pic: null as string | null,
    asset_pic: null as string | null,
    asset_btc: null as string | null,
  };
  if (needs1) {
    if (f.name === undefined) throw new ApiError("missing_field", 400, { field: "name" });
    if (f.type === undefined) throw new ApiError("missing_field", 400, { field: "type" });
    if (f.card_id === undefined) throw new ApiError("missing_field", 400, { field: "card_id" });
    Object.assign(row, { name: f.name, type: f.type, card_id: f.card_id.toUpperCase() });
  }
  if (needs2) {
    row.front_pic = await ownUpload(db, userId, f.front_pic, "front_pic");
    row.reverse_pic = await ownUpload(db, userId, f.reverse_pic, "reverse_pic");
    row.hand_pic = await ownUpload(db, userId, f.hand_pic, "hand_pic");
  }
  if (needs3) {
    row.asset_pic = await ownUpload(db, userId, f.asset_pic, "asset_pic");
    // Level 3 needs assets above the threshold, valued in BTC at real last prices.
    const minText = await setting(db, "kyc_level3_min_btc", "20");
    const min = parseUnits(minText, 8) ?? 20n * 10n ** 8n;
    const btc = holdingsInBtc(await holdings(env, userId), await usdtPrices(db));
    if (btc <= min) throw new ApiError("kyc_assets_low", 400, { min: minText, value: formatUnits(btc, 8) });
    row.asset_btc = formatUnits(btc, 8);
  }
  const now = Date.now();
  try {
    await db.batch([
      db
        .prepare(
          `INSERT INTO kyc_submissions (user_id, level, name, type, card_id, front_pic, reverse_pic, hand_pic, asset_pic, asset_btc, status, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
        )
        .bind(userId, level, row.name, row.type, row.card_id, row.front_pic, row.reverse_pic, row.hand_pic, row.asset_pic, row.asset_btc, now),
      db.prepare("UPDATE users SET review_status = CASE WHEN review_status = 2 THEN 2 ELSE 1 END WHERE id = ?").bind(userId),
    ]);
  } catch (err) {
    if (/UNIQUE constraint failed/i.test(String(err))) throw new ApiError("kyc_under_review", 409);
    throw err;
  }
  const status = await db.prepare("SELECT review_status FROM users WHERE id = ?").bind(userId).first<{ review_status: number }>();
  return { level, review_status: status?.review_status ?? 1, submitted: true as const };
}
