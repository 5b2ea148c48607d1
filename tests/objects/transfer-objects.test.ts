/**
 * Transfers between one's own accounts with balances in the account objects (ACCOUNTS=objects):
 * one keyed call to the user's object, nothing written to D1's balances on the way, and the read
 * model equal to the object after its drain.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub } from "../../worker/lib/accounts.ts";
import { api, seedCurrencies, units } from "../api/helpers.ts";
import { USDT, d1LedgerRows, drainObject, objectBalances, objectTrader, readModel } from "./fixtures.ts";

const transfer = (token: string, body: Record<string, unknown>) => api("/wallet/change", { token, body: { currency_id: USDT, ...body } });

beforeAll(async () => {
  await seedCurrencies();
});

describe("transfers on the account objects", () => {
  it("moves between one's own accounts in the object, refuses what is not there, and drains to the read model", async () => {
    const u = await objectTrader("100", "0");
    const moved = await transfer(u.token, { number: "10", from_field: "change", to_field: "micro" });
    expect(moved.body).toMatchObject({ type: "ok", message: { currency_id: USDT, from_field: "change", to_field: "micro", number: "10.00000000" } });
    expect(await objectBalances(u.id)).toEqual([
      ["change", USDT, units("90"), 0n],
      ["micro", USDT, units("10"), 0n],
    ]);
    const refused = await transfer(u.token, { number: "10.5", from_field: "micro", to_field: "change" });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("insufficient_balance");
    expect((await transfer(u.token, { number: "10", from_field: "micro", to_field: "change" })).body.type).toBe("ok");
    expect(await objectBalances(u.id)).toEqual([["change", USDT, units("100"), 0n]]);
    expect(await d1LedgerRows(u.id)).toBe(0);
    await drainObject(accountStub(env, u.id));
    expect(await readModel(u.id)).toEqual(await objectBalances(u.id));
    const refs = await env.DB.prepare("SELECT count(*) AS n FROM account_movements WHERE user_id = ? AND ref LIKE 'transfer:%' AND ref NOT LIKE '%#%'").bind(u.id).first<{ n: number }>();
    // Each request its own key: two transfers, two keys (the refused one used none).
    expect(refs?.n).toBe(2);
  });
});
