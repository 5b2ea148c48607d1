/**
 * The operators' cut-over routes (POST /api/admin/accounts/…) on a Worker still running with
 * ACCOUNTS=d1 (this project's pin): the first half of a deployed exchange's cut-over (docs/operations.md,
 * "Where balances live"). In the window the steps copy D1 into the account objects and compare
 * them while D1 keeps the money; once the cut-over is recorded this Worker moves nothing any more,
 * the window's end included, until the exchange is deployed with ACCOUNTS=objects
 * (tests/objects/cutover-admin-objects.test.ts runs the steps on such a Worker, and trades after them).
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { forgetCaches } from "../../worker/lib/caches.ts";
import { MAINTENANCE_KEY } from "../../worker/lib/maintenance.ts";
import { accountStub } from "../../worker/lib/accounts.ts";
import { api, balance, d1Only, seedSpotPair, units } from "./helpers.ts";
import { buy, trader, USDT } from "./spot-fixtures.ts";
import { makeOperator } from "./wallet-fixtures.ts";

const reason = "cut-over, first half on D1";
const step = (token: string, what: string, body: Record<string, unknown> = {}) => api(`/admin/accounts/${what}`, { token, body: { reason, ...body } });
const window = (token: string, on: boolean) => api("/admin/maintenance", { token, body: { on, reason: on ? "account cut-over" : "cut over" } });

describe.skipIf(d1Only("a Worker with ACCOUNTS=d1 before its cut-over; objects mode has cut over (tests/objects/cutover-admin-objects.test.ts)"))("the operators' cut-over routes on a Worker with ACCOUNTS=d1", () => {
  it("copy and compare in the window while D1 keeps the money, and after the record the Worker moves nothing until objects are deployed", async () => {
    await seedSpotPair();
    const op = await makeOperator();
    const alice = await trader("1000", "0");
    // Outside the window: refused.
    expect((await step(op.token, "migrate", { limit: 100 })).body.code).toBe("accounts_window_off");

    expect((await window(op.token, true)).body.type).toBe("ok");
    await env.DB.prepare("UPDATE settings SET value = ?1 WHERE key = ?2").bind(String(Date.now() - 60_000), MAINTENANCE_KEY).run();
    forgetCaches();
    for (let i = 0; i < 50; i++) {
      const r = await step(op.token, "migrate", { limit: 100 });
      expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
      if (r.body.message.done) break;
    }
    expect((await step(op.token, "system")).body.message.mismatched).toEqual([]);
    for (let after = 0, i = 0; i < 50; i++) {
      const r = await step(op.token, "verify", { after, limit: 100 });
      expect(r.body.message.mismatched).toEqual([]);
      if (r.body.message.done) break;
      after = r.body.message.next;
    }
    // Opened and compared: D1 still holds the money, the object a copy of it.
    expect(await balance(alice.id, USDT)).toEqual([units("1000"), 0n]);
    expect((await accountStub(env, alice.id).accountBalances(alice.id)).filter((b) => b.currencyId === USDT)).toMatchObject([{ account: "change", available: units("1000"), frozen: 0n }]);
    const state = await api("/admin/accounts/state", { token: op.token });
    expect(state.body.message).toMatchObject({ accounts: "d1", cut_over: null, waiting_for: null, verified: [{ first: 1, last: Number.MAX_SAFE_INTEGER }] });

    const cut = await step(op.token, "cut-over");
    expect(cut.body.message.cut_over).toMatch(/^cut-over \d{4}-/);
    // The window off, this Worker still refuses money (D1's balances are now a copy): deploy ACCOUNTS=objects.
    expect((await window(op.token, false)).body.type).toBe("ok");
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const order = await buy(alice.token, { price: "100", num: "0.1" });
      expect([order.status, order.body.code]).toEqual([503, "maintenance"]);
    } finally {
      quiet.mockRestore();
      // Taken out again for the files after this one in the same runtime (tests/api/setup.ts resets D1 per file anyway).
      await env.DB.prepare("DELETE FROM settings WHERE key = 'accounts_cut_over'").run();
      forgetCaches();
    }
    expect(await balance(alice.id, USDT)).toEqual([units("1000"), 0n]);
  });
});
