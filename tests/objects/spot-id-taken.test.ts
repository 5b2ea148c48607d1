/**
 * Two users' spot orders drawn with the same id, with the balances in the account objects (found
 * by the crash run in objects mode, bench/crash.mjs --accounts objects: one order was acknowledged
 * under another's id). Ids are drawn per request and only the user's own holds are checked before
 * the pair; the pair took the second user's order for a retry of the first's and answered it as
 * booked, so the second user was told "open" for an order that was not theirs and their hold stayed
 * open for good (the orphan sweep heard "known"). The pair now refuses it as taken (nothing
 * recorded), the Worker releases the hold and draws again, and the sweep releases such a hold.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { UserDurableObject } from "../../durable/user.ts";
import { accountStub } from "../../worker/lib/accounts.ts";
import { seedSpotPair, units } from "../api/helpers.ts";
import { BTC, PAIR, objectBalances, objectTrader, pairStub } from "./fixtures.ts";

const ID = 9_000_000_001;
/** A sell of 0.1 BTC at 100 USDT resting on an empty book (prices in ticks of 0.01, quantities in lots of 0.000001). */
const sell = (userId: number) => ({ pairId: PAIR, orderId: ID, userId, side: "sell" as const, price: 10_000, qty: 100_000, tif: "GTC" as const, reservedUnits: String(units("0.1")) });
const hold = (userId: number) => accountStub(env, userId).accountReserve(userId, { forKind: "spot_order", forId: String(ID), account: "change", currencyId: BTC, amount: units("0.1"), owner: `pair:${PAIR}` });

beforeAll(async () => {
  await seedSpotPair();
});

describe("an order id another user's order already has", () => {
  it("is refused as taken by the pair (not answered as that order), and the hold made under it goes back", async () => {
    const a = await objectTrader("0", "1");
    const b = await objectTrader("0", "1");
    expect((await hold(a.id)).result).toBe("reserved");
    expect(await pairStub().place(sell(a.id))).toMatchObject({ ok: true, status: "open" });

    // b's order drawn with the same id: its own object has no such hold, so it is made; the pair refuses.
    expect((await hold(b.id)).result).toBe("reserved");
    expect(await pairStub().place(sell(b.id))).toMatchObject({ ok: false, code: "ID_TAKEN", status: "rejected" });
    // a's own retry is still a replay of a's order.
    expect(await pairStub().place(sell(a.id))).toMatchObject({ ok: true, status: "open" });
    expect(await pairStub().tombstone(PAIR, ID, a.id)).toBe("known");
    expect(await pairStub().tombstone(PAIR, ID, b.id)).toBe("not_yours");

    // A Worker that died before releasing: b's orphan sweep releases the hold (a's stays, its order rests).
    const swept = await runInDurableObject(accountStub(env, b.id), (o: UserDurableObject) => o.accountSweep(0));
    expect(swept).toMatchObject({ released: 1 });
    expect(await objectBalances(b.id)).toEqual([["change", BTC, units("1"), 0n]]);
    expect(await objectBalances(a.id)).toEqual([["change", BTC, units("0.9"), units("0.1")]]);
  });
});
