/**
 * The console's "take a snapshot now": audited in the batch that starts it, refused while another
 * snapshot is building, then built as far as the request's budget allows (the every-minute job goes
 * on with the rest).
 */
import type { LiabilityRun, LiabilityRunRequest } from "../../../schemas/transparency.ts";
import { ApiError } from "../../lib/errors.ts";
import { runSnapshot, STORED_LEVEL, BLOCK_LEVEL, SNAPSHOT_FORMAT, type SnapshotEnv } from "./snapshot.ts";
import { liabilityRuns } from "./read.ts";

export async function snapshotNow(env: SnapshotEnv, operatorId: number, req: LiabilityRunRequest, now = Date.now()): Promise<LiabilityRun> {
  const db = env.DB;
  const running = await db.prepare("SELECT id FROM liab_snapshots WHERE status = 'running'").first<{ id: number }>();
  if (running) throw new ApiError("liabilities_running", 409);
  let id: number | undefined;
  try {
    const [started] = await db.batch<{ id: number }>([
      db
        .prepare("INSERT INTO liab_snapshots (format, trigger, operator_id, block_level, stored_level, started_at) VALUES (?, 'operator', ?, ?, ?, ?) RETURNING id")
        .bind(SNAPSHOT_FORMAT, operatorId, BLOCK_LEVEL, STORED_LEVEL, now),
      // The audit row of the snapshot just inserted (same batch, so there is never one without the other).
      db
        .prepare(
          `INSERT INTO audit_log (operator_id, action, target_type, target_id, reason, detail, created_at)
           SELECT ?1, 'liabilities.snapshot', 'liab_snapshot', CAST(MAX(id) AS TEXT), ?2, '', ?3 FROM liab_snapshots WHERE status = 'running'`,
        )
        .bind(operatorId, req.reason, now),
    ]);
    id = started?.results[0]?.id;
  } catch (err) {
    // Another snapshot started between the check and the batch (the one-running index refused it).
    if (/UNIQUE constraint failed: liab_snapshots/i.test(String((err as Error)?.message ?? err))) throw new ApiError("liabilities_running", 409);
    throw err;
  }
  if (id === undefined) throw new Error("liabilities snapshot: no id");
  await runSnapshot(env, id, { statements: 300, ms: 10_000 });
  const page = await liabilityRuns(db, { page: 1, limit: 5 });
  return page.data.find((r) => r.id === id)!;
}
