/**
 * The exchange-wide switch of issue #28 (worker/lib/accounts.ts) off (ACCOUNTS="d1", which this
 * project pins; wrangler.toml deploys "objects"): an order and a transfer move money in D1 exactly
 * as before, and neither the trader's account object nor the pair object stores any money
 * (tests/objects/ run it on). Once a cut-over to the objects is recorded in D1, a Worker with "d1"
 * moves nothing (worker/lib/maintenance.ts): D1's balances are then a copy from the cut-over.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { accountsOnObjects, accountStub } from "../../worker/lib/accounts.ts";
import { forgetMaintenance, recordCutOver } from "../../worker/lib/maintenance.ts";
import { JOBS, MONEY_JOBS, runScheduled } from "../../worker/scheduled.ts";
import { api, balance, d1Only, drainPair, seedSpotPair, units } from "./helpers.ts";
import { BTC, PAIR, USDT, buy, clearBook, pairStub, sell, trader } from "./spot-fixtures.ts";

const moneyTables = (stub: DurableObjectStub) =>
  runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'money_%'").one().n);

/** The switch off is what this file is about: in objects mode there is nothing of it to run. */
const SWITCH_OFF = d1Only("a Worker with ACCOUNTS=d1");

beforeAll(async () => {
  await seedSpotPair();
});

describe.skipIf(SWITCH_OFF)("balances switch off (ACCOUNTS=d1)", () => {
  it("freezes, fills and transfers in D1 only; the objects keep no money", async () => {
    expect(accountsOnObjects(env)).toBe(false);
    await clearBook();
    const seller = await trader("0", "1");
    const buyer = await trader("1000", "0");
    await sell(seller.token, { price: "50000", num: "0.01" });
    expect((await buy(buyer.token, { price: "50000", num: "0.01" })).body.message.status).toBe("filled");
    await drainPair(PAIR);
    expect(await balance(buyer.id, USDT)).toEqual([units("500"), 0n]);
    expect(await balance(buyer.id, BTC)).toEqual([units("0.00998"), 0n]);
    expect((await api("/wallet/change", { token: buyer.token, body: { currency_id: USDT, number: "10", from_field: "change", to_field: "micro" } })).body.type).toBe("ok");
    expect(await balance(buyer.id, USDT, "micro")).toEqual([units("10"), 0n]);
    expect(await moneyTables(accountStub(env, buyer.id))).toBe(0);
    expect(await moneyTables(pairStub())).toBe(0);
  });
});

describe.skipIf(SWITCH_OFF)("a cut-over recorded, with ACCOUNTS=d1", () => {
  it("refuses every money route and pauses the money crons, reads still answer, and nothing moves in D1", async () => {
    const u = await trader("1000", "0");
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const every = JOBS["* * * * *"]!;
    const spies = every.map((job) => vi.spyOn(job, "run").mockImplementation(async () => {}));
    try {
      await recordCutOver(env.DB, "cut-over");
      for (const r of [await buy(u.token, { price: "100", num: "0.1" }), await api("/wallet/change", { token: u.token, body: { currency_id: USDT, number: "10", from_field: "change", to_field: "micro" } })]) {
        expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([503, "maintenance"]);
      }
      expect((await api("/wallet/list", { token: u.token, body: {} })).body.type).toBe("ok");
      expect(await balance(u.id, USDT)).toEqual([units("1000"), 0n]);
      const log = vi.spyOn(console, "log").mockImplementation(() => {});
      const skipped = await runScheduled("* * * * *", env);
      log.mockRestore();
      expect(skipped.sort()).toEqual(every.filter((j) => MONEY_JOBS.has(j.name)).map((j) => j.name).sort());
    } finally {
      spies.forEach((s) => s.mockRestore());
      quiet.mockRestore();
      // Taken out again: the transfer below, and any later test of this file, run on D1 as before.
      await env.DB.prepare("DELETE FROM settings WHERE key = 'accounts_cut_over'").run();
      forgetMaintenance();
    }
    expect((await api("/wallet/change", { token: u.token, body: { currency_id: USDT, number: "10", from_field: "change", to_field: "micro" } })).body.type).toBe("ok");
  });
});
