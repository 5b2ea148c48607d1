/**
 * Client order ids with balances in the account objects (ACCOUNTS=objects, issue #28): the client
 * id is recorded with the hold in the user's object, so a second submit with it, at the same moment
 * or right after (before the drain has put the first order's row in D1), holds nothing and answers
 * the first order or contract; other terms under the same id are refused.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub, SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { api, seedSpotPair, units } from "../api/helpers.ts";
import { submit } from "../api/seconds-fixtures.ts";
import { BTC, USDT, fundTreasuryShards, objectBalances, objectTrader, objectUserWith, pairStub, twoSidedObjectBook } from "./fixtures.ts";

const TREASURY = SYSTEM_USERS.treasury;

const buy = (token: string, body: Record<string, unknown>) => api("/transaction/walletIn", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, ...body } });
const batch = (token: string, orders: Record<string, unknown>[]) => api("/transaction/batch", { token, body: { currency_id: BTC, legal_id: USDT, orders } });

/** The user's open holds of one kind (`spot_order`, `seconds`). */
const openHolds = async (userId: number, kind: string) => (await accountStub(env, userId).accountOpenHolds(userId)).filter((h) => h.forKind === kind);

/** What every treasury shard holds frozen in USDT (the covers of open contracts). */
async function treasuryFrozen() {
  let sum = 0n;
  for (let k = 0; k < SYSTEM_SHARDS; k++) for (const b of await systemStub(env, TREASURY, k).systemBalances(TREASURY, k)) if (b.currencyId === USDT) sum += b.frozen;
  return sum;
}


beforeAll(async () => {
  await seedSpotPair();
  await fundTreasuryShards(units("1000"));
  // A two-sided book (bid 100, ask 102): the pair has an index for seconds contracts.
  await twoSidedObjectBook();
});

describe("client order ids on the account objects", () => {
  it("makes one spot order and one hold from two submits with one client_oid sent at the same moment", async () => {
    const a = await objectTrader("10000", "0");
    const [x, y] = await Promise.all([buy(a.token, { price: "95", num: "1", client_oid: "same-moment" }), buy(a.token, { price: "95", num: "1", client_oid: "same-moment" })]);
    expect([x.body.code, y.body.code]).toEqual([undefined, undefined]);
    expect(x.body).toMatchObject({ type: "ok" });
    expect(y.body).toMatchObject({ type: "ok" });
    expect(y.body.type).toBe("ok");
    expect(x.body.message.order_id).toBe(y.body.message.order_id);
    expect([x.body.message.replayed, y.body.message.replayed].filter(Boolean)).toHaveLength(1);
    expect(await openHolds(a.id, "spot_order")).toEqual([expect.objectContaining({ forId: x.body.message.order_id, amount: units("95") })]);
    expect(await objectBalances(a.id)).toEqual([["change", USDT, units("9905"), units("95")]]);
    await pairStub().drain();
    const rows = await env.DB.prepare("SELECT id, client_oid FROM spot_orders WHERE user_id = ?").bind(a.id).all();
    expect(rows.results).toEqual([{ id: Number(x.body.message.order_id), client_oid: "same-moment" }]);
  });

  it("answers a spot client_oid sent again right after (before D1 has the order) with the first order, and refuses it for another order", async () => {
    const a = await objectTrader("10000", "0");
    const first = await buy(a.token, { price: "91", num: "1", client_oid: "again" });
    const again = await buy(a.token, { price: "91", num: "1", client_oid: "again" });
    expect(again.body.message).toMatchObject({ order_id: first.body.message.order_id, status: "open", replayed: true });
    const other = await buy(a.token, { price: "92", num: "1", client_oid: "again" });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("duplicate_client_id");
    // In a batch too: the repeated id answers the first order and holds nothing.
    const b = await batch(a.token, [{ side: "buy", mode: 2, price: "91", num: "1", client_oid: "again" }, { side: "buy", mode: 2, price: "93", num: "1", client_oid: "fresh" }]);
    expect(b.body.message.orders[0]).toMatchObject({ order_id: first.body.message.order_id, replayed: true });
    expect(await openHolds(a.id, "spot_order")).toHaveLength(2);
    expect(await objectBalances(a.id)).toEqual([["change", USDT, units("10000") - units("184"), units("184")]]);
  });

  it("makes one seconds contract and one hold of stake and cover from two submits with one client_oid, at once and back to back", async () => {
    const u = await objectUserWith("micro");
    const coversBefore = await treasuryFrozen();
    const [x, y] = await Promise.all([submit(u.token, { client_oid: "c-once" }), submit(u.token, { client_oid: "c-once" })]);
    expect(x.body.type).toBe("ok");
    expect(y.body.type).toBe("ok");
    expect(x.body.message.id).toBe(y.body.message.id);
    const z = await submit(u.token, { client_oid: "c-once" });
    expect(z.body.message).toMatchObject({ id: x.body.message.id, status: 1, number: "10.00000000" });
    // One hold of stake + fee in the user's object (the fee spent from it at the open), one cover (10 × 80 %... the option's ratio) in the treasury.
    expect(await openHolds(u.id, "seconds")).toEqual([expect.objectContaining({ forId: String(x.body.message.id), amount: units("10.2") })]);
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("89.8"), units("10")]]);
    const cover = await treasuryFrozen();
    expect(cover - coversBefore).toBeGreaterThan(0n);
    const w = await submit(u.token, { client_oid: "c-once", number: "11" });
    expect(w.body.code).toBe("duplicate_client_id");
    expect(await treasuryFrozen()).toBe(cover);
    await pairStub().drain();
    const rows = await env.DB.prepare("SELECT id FROM micro_orders WHERE user_id = ?").bind(u.id).all();
    expect(rows.results).toEqual([{ id: x.body.message.id }]);
  });
});
