/**
 * The cut-over guard (worker/lib/maintenance.ts): `ACCOUNTS=objects` is what wrangler.toml deploys
 * with, so a deployment that ran with its balances in D1 must not start moving money in empty
 * account objects after a deploy: every money route answers 503 `maintenance` and the money crons
 * skip until the cut-over is recorded in D1 (scripts/migrate-accounts.mjs, once every total
 * matched). A fresh exchange, with no balance in D1 to open, records it at its first money request
 * and trades at once. (tests/api/setup.ts records it for every other file of this project.)
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { forgetCaches } from "../../worker/lib/caches.ts";
import { CUT_OVER_KEY, recordCutOver, setMaintenance } from "../../worker/lib/maintenance.ts";
import { migrateAccountsStep, openSystemAccounts } from "../../worker/domain/ledger/account-objects.ts";
import { JOBS, MONEY_JOBS, runScheduled } from "../../worker/scheduled.ts";
import { api, credit, makeUser, seedSpotPair, units } from "../api/helpers.ts";
import { BTC, USDT, objectBalances, objectTrader } from "./fixtures.ts";

const buy = (token: string) => api("/transaction/walletIn", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "99", num: "0.1" } });
const transfer = (token: string) => api("/wallet/change", { token, body: { currency_id: USDT, number: "50", from_field: "change", to_field: "micro" } });

/** The exchange as a deploy finds it: no cut-over recorded, and this isolate remembering nothing. */
async function noCutOverRecorded() {
  await env.DB.prepare("DELETE FROM settings WHERE key = ?").bind(CUT_OVER_KEY).run();
  forgetCaches();
}

const recorded = async () => (await env.DB.prepare("SELECT value FROM settings WHERE key = ?").bind(CUT_OVER_KEY).first<{ value: string }>())?.value ?? null;

describe("the cut-over guard with balances in the account objects", () => {
  it("lets a fresh exchange (no balance in D1) trade at once and records it as cut over", async () => {
    await seedSpotPair();
    await noCutOverRecorded();
    const a = await objectTrader("1000", "0");
    const placed = await buy(a.token);
    expect(placed.body.type, JSON.stringify(placed.body)).toBe("ok");
    expect(await objectBalances(a.id)).toEqual([["change", USDT, units("990.1"), units("9.9")]]);
    expect(await recorded()).toMatch(/^fresh \d{4}-/);
  });

  it("refuses every money route and pauses the money crons while D1 holds balances never opened in the objects, then trades after the cut-over", async () => {
    await seedSpotPair();
    await noCutOverRecorded();
    // A user of the exchange as it ran with D1 balances: 1,000 USDT in D1, their object never opened.
    const u = await makeUser({ verified: 2 });
    await credit(`guard-d1:${u.id}`, u.id, USDT, units("1000"), "change", { d1: true });

    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const every = JOBS["* * * * *"]!;
    const ran: string[] = [];
    const spies = every.map((job) => vi.spyOn(job, "run").mockImplementation(async () => void ran.push(job.name)));
    try {
      // An order and a transfer (checked in the account object in this mode) and a savings
      // subscription (checked by the Worker): each the translated 503 `maintenance`, nothing moved.
      for (const r of [await buy(u.token), await transfer(u.token), await api("/earn/subscribe", { token: u.token, body: {} })]) {
        expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([503, "maintenance"]);
      }
      // Reads keep working.
      expect((await api("/wallet/list", { token: u.token, body: {} })).body.type).toBe("ok");
      expect(await objectBalances(u.id)).toEqual([]);
      // The crons' money jobs skip; the quiet ones run.
      const log = vi.spyOn(console, "log").mockImplementation(() => {});
      const skipped = await runScheduled("* * * * *", env);
      log.mockRestore();
      expect(skipped.sort()).toEqual(every.filter((j) => MONEY_JOBS.has(j.name)).map((j) => j.name).sort());
      expect(await recorded()).toBeNull();
      // An operator turning the maintenance window off does not end it: it is not the window.
      await setMaintenance(env, 0, false, "not the cut-over");
      expect((await buy(u.token)).body.code).toBe("maintenance");
    } finally {
      spies.forEach((s) => s.mockRestore());
      quiet.mockRestore();
    }

    // The cut-over: every user opened from D1, the system accounts in their shards, then recorded
    // (what POST /api/dev/accounts/cut-over does at the end of scripts/migrate-accounts.mjs).
    for (let step = 0; step < 10 && !(await migrateAccountsStep(env, 100)).done; step++);
    expect((await openSystemAccounts(env)).mismatched).toEqual([]);
    expect(await recordCutOver(env.DB, "cut-over")).toMatch(/^cut-over \d{4}-/);
    // Recorded once: a second run keeps the first time.
    expect(await recordCutOver(env.DB, "cut-over", Date.now() + 60_000)).toBe(await recorded());

    const placed = await buy(u.token);
    expect(placed.body.type, JSON.stringify(placed.body)).toBe("ok");
    expect((await transfer(u.token)).body.type).toBe("ok");
    expect(await objectBalances(u.id)).toEqual([
      ["change", USDT, units("940.1"), units("9.9")],
      ["micro", USDT, units("50"), 0n],
    ]);
  });
});
