/**
 * The operator's treasury view in objects mode (issue #28, found by the browser suite run with
 * E2E_ACCOUNTS=objects): the system accounts live in their shard objects, so the view shows what
 * the shards hold, not D1's copy from the cut-over; and the deposits account, which D1 keeps below
 * zero by design (it mirrors the money that came from outside), still reads as it does in D1 mode.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_USERS } from "../../worker/lib/accounts.ts";
import { deliverRecordLegs } from "../../worker/lib/record-legs.ts";
import { depositLegs } from "../../worker/domain/wallet/deposit-objects.ts";
import { api } from "../api/helpers.ts";
import { makeOperator, seedWalletCurrencies, u8 } from "../api/wallet-fixtures.ts";
import { USDT, fundTreasuryShards, objectTrader } from "./fixtures.ts";

const { deposits: DEPOSITS, treasury: TREASURY } = SYSTEM_USERS;

type Row = { system_account: string; user_id: number; currency_name: string; account: string; available: string; frozen: string };

async function usdtRow(token: string, userId: number): Promise<Row | undefined> {
  const rows = (await api("/admin/treasury", { token, method: "GET" })).body.message as Row[];
  return rows.find((r) => r.user_id === userId && r.currency_name === "USDT" && r.account === "change");
}

beforeAll(async () => {
  await seedWalletCurrencies();
});

describe("the operator's treasury view in objects mode", () => {
  it("shows the shards' balances and the deposits account's mirror of what came from outside", async () => {
    const op = await makeOperator();
    // What the cut-over left in D1: its copy of the treasury (500, moved into the shards then) and
    // the deposits account below zero (not moved: a shard never goes below zero).
    await env.DB.batch([
      env.DB.prepare("INSERT INTO balances (user_id, currency_id, account, available, frozen) VALUES (?, ?, 'change', ?, 0)").bind(TREASURY, USDT, Number(u8("500"))),
      env.DB.prepare("INSERT INTO balances (user_id, currency_id, account, available, frozen) VALUES (?, ?, 'change', ?, 0)").bind(DEPOSITS, USDT, -Number(u8("1000"))),
    ]);
    // Since then: the shards hold 8 × 100 for the treasury, and a deposit of 250 came in.
    await fundTreasuryShards(u8("100"));
    const user = await objectTrader("0", "0");
    await deliverRecordLegs(env, depositLegs({ id: 880001, userId: user.id, currencyId: USDT, amount: u8("250") }));

    expect(await usdtRow(op.token, TREASURY)).toMatchObject({ system_account: "treasury", available: "800.00000000", frozen: "0.00000000" });
    expect(await usdtRow(op.token, DEPOSITS)).toMatchObject({ system_account: "deposits", available: "-1250.00000000", frozen: "0.00000000" });
  });
});
