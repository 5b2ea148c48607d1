/**
 * The statement and the ledger CSV of a user who signed up after the cut-over (issue #28, found by
 * the fresh-clone walk of session 17): their account object was never opened by the migration, so
 * it has no `migrate:opening` movement. Their freezes must still be lines (held +, then the release
 * or the spend held −), the lines must sum to the balance and its frozen part, and each line's
 * running `held_after` must be what was frozen then.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { userAddress } from "../../durable/account/address.ts";
import { accountStub } from "../../worker/lib/accounts.ts";
import { api, makeUser, seedSpotPair, units } from "../api/helpers.ts";
import { csv } from "../api/csv-fixtures.ts";
import { BTC, USDT, objectBalances } from "./fixtures.ts";

beforeAll(async () => {
  await seedSpotPair();
});

type Line = { kind: string; amount: string; held: string; balance_after: string; held_after: string };

async function statementLines(token: string): Promise<Line[]> {
  const r = await api(`/wallet/statement?currency_id=${USDT}`, { token });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message.lines as Line[];
}

describe("the statement of an account opened after the cut-over", () => {
  it("lists a resting order's freeze and its release, the lines summing to the balance and what is frozen", async () => {
    const user = await makeUser({ verified: 2 });
    // Money reaches a new account the way a deposit's leg does: no opening, a credit.
    const credit = { key: `test:credit:${user.id}`, to: userAddress(user.id), ops: [{ t: "credit" as const, kind: "change", cur: String(USDT), amt: Number(units("1000")) }] };
    expect(await accountStub(env, user.id).accountReceive(user.id, [credit])).toEqual(["applied"]);

    const placed = await api("/transaction/walletIn", { token: user.token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "40000", num: "0.01" } });
    expect(placed.body.message).toMatchObject({ status: "open" });
    expect(await objectBalances(user.id)).toEqual([["change", USDT, units("600"), units("400")]]);
    const open = await statementLines(user.token);
    expect(open.map((l) => [l.kind, l.amount, l.held, l.balance_after, l.held_after])).toEqual([
      ["spot_freeze", "0.00000000", "400.00000000", "1000.00000000", "400.00000000"],
      ["test", "1000.00000000", "0.00000000", "1000.00000000", "0.00000000"],
    ]);

    expect((await api("/transaction_del", { token: user.token, body: { id: placed.body.message.order_id } })).body.type).toBe("ok");
    await expect.poll(() => objectBalances(user.id)).toEqual([["change", USDT, units("1000"), 0n]]);
    const lines = await statementLines(user.token);
    expect(lines.map((l) => [l.kind, l.held, l.held_after])).toEqual([
      ["spot_release", "-400.00000000", "0.00000000"],
      ["spot_freeze", "400.00000000", "400.00000000"],
      ["test", "0.00000000", "0.00000000"],
    ]);
    const sum = (f: (l: Line) => string) => lines.reduce((t, l) => t + units(f(l).replace("-", "")) * (f(l).startsWith("-") ? -1n : 1n), 0n);
    expect([sum((l) => l.amount), sum((l) => l.held)]).toEqual([units("1000"), 0n]);

    // The ledger CSV reads the same rows: the freeze and the release are there too.
    const exported = await csv("/export/ledger.csv", user.token);
    expect(exported.lines.map((l) => l.kind)).toEqual(["test", "spot_freeze", "spot_release"]);
  });
});
