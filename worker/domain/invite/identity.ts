/**
 * Self-invites (issue #18 §2): a binding whose invitee is verified with the same identity
 * (document number) as an inviter up their chain (levels 1–3) pays nothing, for good. Checked when
 * an identity verification is approved, in the approval's own batch, in both directions: the
 * approved user against their inviters, and their invitees (down to level 3) against theirs.
 */
export function sameIdentityStatement(db: D1Database, userId: number, now: number): D1PreparedStatement {
  return db
    .prepare(
      `WITH RECURSIVE down(id, depth) AS (
         SELECT ?1, 0 UNION ALL SELECT u.id, d.depth + 1 FROM users u JOIN down d ON u.parent_id = d.id WHERE d.depth < 3),
       up(member, ancestor, depth) AS (
         SELECT d.id, u.parent_id, 1 FROM down d JOIN users u ON u.id = d.id WHERE u.parent_id IS NOT NULL
         UNION ALL SELECT up.member, u.parent_id, up.depth + 1 FROM up JOIN users u ON u.id = up.ancestor WHERE up.depth < 3 AND u.parent_id IS NOT NULL)
       INSERT INTO invite_refusals (user_id, reason, created_at)
       SELECT DISTINCT up.member, 'same_identity', ?2 FROM up
       JOIN kyc_submissions a ON a.user_id = up.member AND a.status = 2 AND TRIM(COALESCE(a.card_id, '')) <> ''
       JOIN kyc_submissions b ON b.user_id = up.ancestor AND b.status = 2 AND UPPER(TRIM(b.card_id)) = UPPER(TRIM(a.card_id))
       WHERE true ON CONFLICT (user_id) DO NOTHING`,
    )
    .bind(userId, now);
}
