/** Which settlement run the every-minute job should go on with (one query). */
export async function unfinishedRuns(db: D1Database, yesterday: string): Promise<{ started: boolean; unfinished: string | null }> {
  const { results } = await db
    .prepare("SELECT day, phase FROM invite_runs WHERE day = ? OR phase <> 'done' ORDER BY day LIMIT 5")
    .bind(yesterday)
    .all<{ day: string; phase: string }>();
  return { started: results.some((r) => r.day === yesterday), unfinished: results.find((r) => r.phase !== "done")?.day ?? null };
}
