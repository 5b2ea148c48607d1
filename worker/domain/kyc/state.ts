/**
 * Identity verification state of a user, derived from `kyc_submissions`:
 * - approved level: the highest level of an approved submission (0 when none);
 * - at most one submission under review (a partial unique index guarantees it);
 * - the identity shown is the one from the newest approved submission that carried it.
 * users.review_status mirrors it for the rest of the app (requireVerified): 0 none, 1 first
 * submission under review, 2 verified (at least level 1 approved, even while a higher level is
 * under review), 3 rejected without any approved level.
 */

export interface KycSubmission {
  id: number;
  level: number;
  name: string | null;
  type: number | null;
  card_id: string | null;
  status: number;
  reason: string;
  created_at: number;
}

export interface KycState {
  approvedLevel: number;
  pending: KycSubmission | null;
  latest: KycSubmission | null;
  identity: { name: string; type: number; card_id: string } | null;
}

export async function kycState(db: D1Database, userId: number): Promise<KycState> {
  const { results } = await db
    .prepare("SELECT id, level, name, type, card_id, status, reason, created_at FROM kyc_submissions WHERE user_id = ? ORDER BY id DESC LIMIT 50")
    .bind(userId)
    .all<KycSubmission>();
  let approvedLevel = 0;
  let identity: KycState["identity"] = null;
  for (const s of results) {
    if (s.status !== 2) continue;
    approvedLevel = Math.max(approvedLevel, s.level);
    if (!identity && s.name && s.type && s.card_id) identity = { name: s.name, type: s.type, card_id: s.card_id };
  }
  return { approvedLevel, pending: results.find((s) => s.status === 1) ?? null, latest: results[0] ?? null, identity };
}

/** Shows the first and last two characters of a document number. */
export function maskId(value: string): string {
  if (value.length <= 4) return "*".repeat(value.length);
  return value.slice(0, 2) + "*".repeat(value.length - 4) + value.slice(-2);
}

/** Shows the last four digits of a card number. */
export function maskCard(value: string): string {
  return value.length <= 4 ? value : "*".repeat(value.length - 4) + value.slice(-4);
}
