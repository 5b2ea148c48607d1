/**
 * The ledger CSV (issue #29) in objects mode (issue #28): D1's ledger holds what happened before the
 * cut-over and the account object what came after, so the export lists both, in order, with true
 * running balances, without the migration's opening (which restates D1's balance), and with what
 * the object did a moment ago (drained before it is read).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub } from "../../worker/lib/accounts.ts";
import { movementStatements, SYSTEM } from "../../worker/lib/ledger.ts";
import { api, makeUser, seedSpotPair, units } from "../api/helpers.ts";
import { csv, toUnits } from "../api/csv-fixtures.ts";
import { USDT, objectBalances } from "./fixtures.ts";

beforeAll(async () => {
  await seedSpotPair();
});

describe("the ledger CSV on the account objects", () => {
  it("lists D1's rows before the cut-over, then the object's movements, with true balances after", async () => {
    const user = await makeUser({ verified: 2 });
    // Before the cut-over: a deposit in D1's ledger. The cut-over opens the object with that balance.
    await env.DB.batch(
      movementStatements(env.DB, `test-deposit:${user.id}`, "deposit", [
        { userId: user.id, currencyId: USDT, account: "change", dAvailable: units("100"), dFrozen: 0n },
        { userId: SYSTEM.deposits, currencyId: USDT, account: "change", dAvailable: -units("100"), dFrozen: 0n },
      ]),
    );
    await accountStub(env, user.id).accountImport(user.id, [{ account: "change", currencyId: USDT, available: units("100"), frozen: 0n }]);

    // After it: a transfer on the object, exported right away (nothing waits for the drain's timer).
    const moved = await api("/wallet/change", { token: user.token, body: { currency_id: USDT, number: "12.5", from_field: "change", to_field: "micro" } });
    expect(moved.body.type).toBe("ok");
    const { lines } = await csv("/export/ledger.csv", user.token);
    expect(lines.map((l) => [l.account, l.amount, l.balance_after, l.kind])).toEqual([
      ["change", "100.00000000", "100.00000000", "deposit"],
      ["change", "-12.50000000", "87.50000000", "transfer"],
      ["micro", "12.50000000", "12.50000000", "transfer"],
    ]);
    // The lines sum to the object's balances.
    const sums = new Map<string, bigint>();
    for (const l of lines) sums.set(l.account!, (sums.get(l.account!) ?? 0n) + toUnits(l.amount!));
    expect(await objectBalances(user.id)).toEqual([
      ["change", USDT, sums.get("change"), 0n],
      ["micro", USDT, sums.get("micro"), 0n],
    ]);
  });
});
