/**
 * The reconciler's frozen-funds check while D1's spot rows lag the pair (objects mode): a resting
 * order partly filled holds less in its owner's object than its D1 row says it still holds, until
 * the pair's drain brings the fill. The reconciler reported that as frozen funds no hold explains.
 * It now drains the pairs owning the user's holds and checks that user again: only what still
 * differs is reported.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { reconcile } from "../../worker/domain/ledger/reconcile.ts";
import { holdSourcesOf } from "../../worker/domain/products.ts";
import { accountReads } from "../../worker/domain/wallet/object-reads.ts";
import { accountStub } from "../../worker/lib/accounts.ts";
import { api, seedSpotPair, units } from "../api/helpers.ts";
import { BTC, PAIR, USDT, drainObject, inPair, legsDelivered, objectTrader } from "./fixtures.ts";

const spot = (token: string, side: "buy" | "sell", price: string, num: string) =>
  api(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price, num } });

/** An order's fill in the read model (units of the base), or null before the pair's drain brought its row. */
const filledInD1 = async (id: string) => (await env.DB.prepare("SELECT filled FROM spot_orders WHERE id = ?").bind(id).first<{ filled: number }>())?.filled ?? null;

/** The reconciler's frozen-funds differences of these users. */
async function frozenDifferences(...users: number[]) {
  const result = await reconcile(env.DB, holdSourcesOf(), accountReads(env));
  return result.differences.filter((d) => d.check === "frozen_vs_holds" && users.includes(d.user_id));
}

beforeAll(async () => {
  await seedSpotPair();
});

describe("the reconciler while the pair's rows lag its fills (objects mode)", () => {
  it("reports nothing for a partly filled resting order whose fill the pair has not drained yet", async () => {
    const maker = await objectTrader("0", "1");
    const taker = await objectTrader("10000", "0");
    const sold = await spot(maker.token, "sell", "31000", "0.02");
    expect(sold.body.message).toMatchObject({ status: "open" });
    const id = sold.body.message.order_id as string;
    // The resting order's row is in D1, unfilled.
    await inPair((instance) => (instance as { drain(): Promise<number> }).drain());
    expect(await filledInD1(id)).toBe(0);

    // Half of it fills; the pair's drain is held back (its alarm removed), its legs delivered.
    const bought = await spot(taker.token, "buy", "31000", "0.01");
    expect(bought.body.message).toMatchObject({ status: "filled" });
    await inPair((_instance, state) => state.storage.deleteAlarm());
    await legsDelivered();
    expect(await filledInD1(id)).toBe(0);
    // The maker's object (and its drained read model) holds 0.01 BTC for the order; D1's row still explains 0.02.
    await drainObject(accountStub(env, maker.id));
    const frozen = await env.DB.prepare("SELECT CAST(frozen AS TEXT) AS f FROM account_balances WHERE user_id = ? AND currency_id = ? AND account = 'change'").bind(maker.id, BTC).first<{ f: string }>();
    expect(frozen?.f).toBe(String(units("0.01")));

    expect(await frozenDifferences(maker.id, taker.id)).toEqual([]);
    // The pair drained on the reconciler's asking: the order's row now has its fill.
    expect(await filledInD1(id)).toBe(10_000);
  });

  it("still reports frozen funds no record explains, after the pairs drained", async () => {
    const u = await objectTrader("100", "0");
    // A hold owned by the pair for an order the pair never made: no D1 row will ever explain it.
    const orphan = 7_100_001;
    const held = await accountStub(env, u.id).accountReserve(u.id, { forKind: "spot_order", forId: String(orphan), account: "change", currencyId: USDT, amount: units("5"), owner: `pair:${PAIR}` });
    expect(held.result).toBe("reserved");
    await drainObject(accountStub(env, u.id));

    expect(await frozenDifferences(u.id)).toEqual([{ check: "frozen_vs_holds", user_id: u.id, currency_id: USDT, account: "change", frozen: String(units("5")), holds: "0" }]);
  });
});
