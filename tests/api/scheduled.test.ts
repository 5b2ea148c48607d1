/**
 * The cron table (worker/scheduled.ts) and wrangler.toml's [triggers] name the same crons: a job
 * listed under a cron that never fires would silently never run, and a trigger without jobs would
 * fire for nothing. Also: one cron's jobs run in order, and a failing job does not stop the rest.
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import toml from "../../wrangler.toml?raw";
import { JOBS, runScheduled } from "../../worker/scheduled.ts";

const crons = [...(/^crons\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]);

describe("the cron table", () => {
  it("lists exactly the crons wrangler.toml triggers, each with at least one job", () => {
    expect(crons.length).toBeGreaterThan(0);
    expect(Object.keys(JOBS).sort()).toEqual([...crons].sort());
    for (const cron of crons) expect(JOBS[cron!]!.length).toBeGreaterThan(0);
  });

  it("runs the jobs after a failing one and then reports the failure", async () => {
    const ran: string[] = [];
    const jobs = JOBS["0 0 * * *"]!;
    const spies = jobs.map((job, i) =>
      vi.spyOn(job, "run").mockImplementation(async () => {
        ran.push(job.name);
        if (i === 0) throw new Error("first job broke");
      }),
    );
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await expect(runScheduled("0 0 * * *", env)).rejects.toThrow("1 cron job(s) failed");
      expect(ran).toEqual(jobs.map((j) => j.name));
    } finally {
      spies.forEach((s) => s.mockRestore());
      quiet.mockRestore();
    }
  });
});
