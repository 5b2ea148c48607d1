/**
 * C2C across the cut-over (issue #28): a merchant and takers with running orders on D1's path are
 * opened in their account objects by the migration (worker/domain/ledger/account-objects.ts), and
 * the orders then end on the objects path (`ACCOUNTS=objects`) with every coin where it belongs:
 * a running order on a sell advert is opened inside the advert's hold (where its release spends
 * from), a user's sale to a buy advert as a hold of its own.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { merchantAdvertAction } from "../../worker/domain/c2c/adverts.ts";
import { leaveMerchant } from "../../worker/domain/c2c/merchants.ts";
import { orderRow, transitionOrder } from "../../worker/domain/c2c/orders.ts";
import { migrateAccountsStep } from "../../worker/domain/ledger/account-objects.ts";
import { accountStub } from "../../worker/lib/accounts.ts";
import { makeMerchant, makeTaker, pay, placeOrder, postAdvert, seedWalletCurrencies, u8, USDT } from "./c2c-fixtures.ts";

const OBJECTS: Env = { ...env, ACCOUNTS: "objects" };

beforeAll(seedWalletCurrencies);

async function legal(userId: number): Promise<[bigint, bigint]> {
  const b = (await accountStub(env, userId).accountBalances(userId)).find((r) => r.account === "legal" && r.currencyId === USDT);
  return [b?.available ?? 0n, b?.frozen ?? 0n];
}

describe("C2C orders running at the cut-over", () => {
  it("end on the account objects with the coins where D1 had them: release, cancel, withdrawal and the deposit", async () => {
    const { merchant } = await makeMerchant("11000");
    const sell = await postAdvert(merchant);
    const buy = await postAdvert(merchant, { type: "buy" });
    const buyer = await makeTaker();
    const bought = await placeOrder(buyer, sell.id, "100");
    expect((await pay(buyer, bought)).body.type).toBe("ok");
    const seller = await makeTaker("500");
    const sold = await placeOrder(seller, buy.id, "100");

    const first = Math.min(merchant.id, buyer.id, seller.id);
    const last = Math.max(merchant.id, buyer.id, seller.id);
    expect(await migrateAccountsStep(env, 50, { first, last })).toMatchObject({ mismatched: [], failed: [] });
    expect(await legal(merchant.id)).toEqual([u8("9000"), u8("2000")]);
    expect(await legal(seller.id)).toEqual([u8("400"), u8("100")]);
    const holds = new Map((await accountStub(env, merchant.id).accountOpenHolds(merchant.id)).map((h) => [h.forKind === "c2c_deposit" ? h.forKind : h.hold, h.amount]));
    // The running order on the sell advert is inside the advert's hold: 900 left + 100 running.
    expect(holds).toEqual(new Map([[`c2c_advert:${sell.id}`, u8("1000")], ["c2c_deposit", u8("1000")]]));

    expect(await transitionOrder(OBJECTS, (await orderRow(env.DB, bought))!, "confirm", "seller", merchant.id)).toBe(1);
    expect(await legal(merchant.id)).toEqual([u8("9000"), u8("1900")]);
    expect(await legal(buyer.id)).toEqual([u8("100"), 0n]);
    expect(await transitionOrder(OBJECTS, (await orderRow(env.DB, sold))!, "cancel", "buyer", merchant.id)).toBe(2);
    expect(await legal(seller.id)).toEqual([u8("500"), 0n]);

    for (const ad of [sell.id, buy.id]) {
      await merchantAdvertAction(OBJECTS, merchant.id, ad, "off");
      await merchantAdvertAction(OBJECTS, merchant.id, ad, "withdraw");
    }
    expect(await legal(merchant.id)).toEqual([u8("9900"), u8("1000")]);
    await leaveMerchant(OBJECTS, merchant.id);
    expect(await legal(merchant.id)).toEqual([u8("10900"), 0n]);
    expect(await accountStub(env, merchant.id).accountOpenHolds(merchant.id)).toEqual([]);
  });
});
