// The maintenance switch (worker/lib/maintenance.ts): the read-only window of the account
// migration (docs/architecture/account-objects.md "Cut-over"). An operator turns it on in the
// console (audited); every write that may move money then answers 503 `maintenance` in the
// user's language and changes nothing, reads and signing in keep working, and the crons that move
// money skip; off again, everything works as before. Every write route of the OpenAPI document is
// classified as moving money or not, so a new route cannot slip past the window unclassified.
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { api, balance, makeUser, seedSpotPair, units } from "./helpers.ts";
import { buy, trader, USDT } from "./spot-fixtures.ts";
import { makeOperator } from "./wallet-fixtures.ts";
import { MONEY_ROUTES, NO_MONEY_ROUTES } from "../../worker/lib/maintenance.ts";
import { JOBS, MONEY_JOBS, QUIET_JOBS, runScheduled } from "../../worker/scheduled.ts";

/** Hono's `/x/:id{re}` as OpenAPI's `/x/{id}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?\??/g, "{$1}");
const asOpenApi = (route: string) => {
  const [method, path] = route.split(" ");
  return `${method!.toLowerCase()} ${openApiPath(path!)}`;
};

async function setWindow(token: string, on: boolean) {
  const r = await api("/admin/maintenance", { token, body: { on, reason: on ? "account migration" : "migration verified" } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message as { on: boolean; since: number | null; refresh_ms: number; settle_ms: number };
}

const transfer = (token: string) => api("/wallet/change", { token, body: { currency_id: USDT, number: "1", from_field: "change", to_field: "micro" } });

beforeAll(async () => {
  await seedSpotPair();
});

describe("the maintenance window", () => {
  it("classifies every write route of the OpenAPI document as moving money or not, each once", async () => {
    const res = await SELF.fetch("http://exchange.test/api/openapi.json");
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    const writes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => m !== "get").map((m) => `${m} ${path}`));
    expect(writes.length).toBeGreaterThan(100);
    const money = MONEY_ROUTES.map(asOpenApi);
    const quiet = NO_MONEY_ROUTES.map(asOpenApi);
    expect(money.filter((r) => quiet.includes(r)), "in both lists").toEqual([]);
    expect(writes.filter((r) => !money.includes(r) && !quiet.includes(r)), "write routes in neither list").toEqual([]);
    expect([...money, ...quiet].filter((r) => !writes.includes(r)), "listed routes the app does not have").toEqual([]);
    expect(new Set(money).size + new Set(quiet).size).toBe(money.length + quiet.length);
    // The cut-over's own steps run in the window (and on a Worker held by the cut-over guard).
    for (const step of ["migrate", "verify", "system", "cut-over"]) expect(quiet, step).toContain(`post /api/admin/accounts/${step}`);
  });

  it("refuses orders and transfers in the user's language while on, keeps reads working, and lets them through again when off", async () => {
    const op = await makeOperator();
    const alice = await trader("1000", "1");
    const before = await balance(alice.id, USDT);

    const on = await setWindow(op.token, true);
    expect(on).toMatchObject({ on: true, refresh_ms: 2_000 });
    expect(on.since).toBeGreaterThan(0);
    const audit = await env.DB.prepare("SELECT action, reason FROM audit_log WHERE operator_id = ? ORDER BY id").bind(op.id).all<{ action: string; reason: string }>();
    expect(audit.results).toEqual([{ action: "maintenance.on", reason: "account migration" }]);

    const order = await buy(alice.token, { price: "100", num: "0.1" });
    expect(order.status).toBe(503);
    expect(order.body).toMatchObject({ type: "error", code: "maintenance" });
    expect(order.body.message).toMatch(/^Maintenance in progress/);
    const zh = await api("/wallet/change", { token: alice.token, lang: "zh", body: { currency_id: USDT, number: "1", from_field: "change", to_field: "micro" } });
    expect(zh.status).toBe(503);
    expect(zh.body).toMatchObject({ code: "maintenance", message: "系统维护中：交易、划转、充值和提现暂停几分钟，余额和记录仍可查看" });
    expect(await balance(alice.id, USDT)).toEqual(before);
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM spot_orders WHERE user_id = ?").bind(alice.id).first<{ n: number }>())!.n).toBe(0);

    // Reads (GET and the form-era POST reads) and the switch's own state keep answering.
    const list = await api("/wallet/list", { method: "POST", token: alice.token });
    expect(list.body.type, JSON.stringify(list.body)).toBe("ok");
    const holds = await api("/wallet/holds", { token: alice.token });
    expect(holds.status, JSON.stringify(holds.body)).toBe(200);
    expect((await api("/admin/maintenance", { token: op.token })).body.message).toMatchObject({ on: true, since: on.since });
    // Turning it on again keeps the time the window started.
    expect((await setWindow(op.token, true)).since).toBe(on.since);
    // Only operators hold the switch.
    expect((await api("/admin/maintenance", { token: alice.token, body: { on: false, reason: "let me trade" } })).status).toBe(403);

    const off = await setWindow(op.token, false);
    expect(off).toMatchObject({ on: false, since: null });
    expect((await buy(alice.token, { price: "100", num: "0.1" })).body.type).toBe("ok");
    expect((await transfer(alice.token)).body.type).toBe("ok");
    expect(await balance(alice.id, USDT, "micro")).toEqual([units("1"), 0n]);
  });

  it("skips the crons that move money while on and runs every job again when off", async () => {
    const op = await makeOperator();
    const every = JOBS["* * * * *"]!;
    for (const cron of Object.keys(JOBS)) for (const job of JOBS[cron]!) expect(MONEY_JOBS.has(job.name) !== QUIET_JOBS.has(job.name), `${job.name} is in exactly one list`).toBe(true);
    const ran: string[] = [];
    const spies = every.map((job) => vi.spyOn(job, "run").mockImplementation(async () => void ran.push(job.name)));
    const quiet = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      await setWindow(op.token, true);
      const skipped = await runScheduled("* * * * *", env);
      expect(skipped.sort()).toEqual(every.filter((j) => MONEY_JOBS.has(j.name)).map((j) => j.name).sort());
      expect(ran).toEqual(every.filter((j) => QUIET_JOBS.has(j.name)).map((j) => j.name));
      expect(skipped).toContain("spot-orphans");
      await setWindow(op.token, false);
      ran.length = 0;
      expect(await runScheduled("* * * * *", env)).toEqual([]);
      expect(ran).toEqual(every.map((j) => j.name));
    } finally {
      spies.forEach((s) => s.mockRestore());
      quiet.mockRestore();
    }
  });

  it("refuses a switch without a reason or with a flag that is not a boolean, and changes nothing", async () => {
    const op = await makeOperator();
    const user = await makeUser();
    for (const body of [{ on: true }, { on: true, reason: "" }, { on: 1, reason: "x" }, { on: "true", reason: "x" }]) {
      const r = await api("/admin/maintenance", { token: op.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await api("/admin/maintenance", { token: op.token })).body.message).toMatchObject({ on: false });
    expect((await transfer(user.token)).body.code).not.toBe("maintenance");
  });
});
