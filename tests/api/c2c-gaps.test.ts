// Gaps closed after the first C2C build (issue #10): the operator's chat message has its request
// schema with the others in schemas/c2c.ts, and a bank card whose holder is not the verified real
// name is no C2C receiving method (listed with name_mismatch so the screen can say why); an advert
// off the shelf can be edited (price, limits, methods, terms) without moving any coins.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { operatorMessageSchema } from "../../schemas/c2c.ts";
import { api } from "./helpers.ts";
import { ABC_CARD, bal, expectBooksBalanced } from "./wallet-fixtures.ts";
import { makeMerchant, makeTaker, makeTrader, placeOrder, postAdvert, seedWalletCurrencies, u8, USDT } from "./c2c-fixtures.ts";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);

const saveCard = (token: string, real_name: string) => api("/user/cash_save", { token, body: { real_name, bank_account: ABC_CARD, bank_name: "", bank_branch: "Main" } });

describe("operator message schema", () => {
  it("lives in schemas/c2c.ts and refuses empty or overlong text", () => {
    expect(operatorMessageSchema.parse({ text: "  Please upload statements " })).toEqual({ text: "Please upload statements" });
    expect(operatorMessageSchema.safeParse({ text: "   " }).error?.issues[0]?.message).toBe("c2c_message_empty");
    expect(operatorMessageSchema.safeParse({}).error?.issues[0]?.message).toBe("c2c_message_empty");
    expect(operatorMessageSchema.safeParse({ text: "x".repeat(501) }).error?.issues[0]?.message).toBe("too_long");
  });
});

describe("bank card holder name", () => {
  it("a card in another name is listed as mismatched and is no receiving method (997), one in the verified name is", async () => {
    const { merchant } = await makeMerchant("2000");
    const ad = await postAdvert(merchant, { pay_kinds: ["bank"], max_money: "500" });
    const user = await makeTrader("0", { realName: "Li Lei" });
    expect((await saveCard(user.token, "Zhang San")).body.type).toBe("ok");
    const list = await api("/c2c/pay_methods", { token: user.token });
    expect(list.body.message.lists).toEqual([expect.objectContaining({ id: 0, kind: "bank", holder_name: "Zhang San", name_mismatch: true })]);
    const refused = await api("/do_legal_deal", { token: user.token, body: { id: ad.id, value: "20" } });
    expect(refused.body).toMatchObject({ type: "997" });

    expect((await saveCard(user.token, "Li Lei")).body.type).toBe("ok");
    const fixed = await api("/c2c/pay_methods", { token: user.token });
    expect(fixed.body.message.lists).toEqual([expect.objectContaining({ id: 0, kind: "bank", name_mismatch: false })]);
    const placed = await api("/do_legal_deal", { token: user.token, body: { id: ad.id, value: "20" } });
    expect(placed.body.type, JSON.stringify(placed.body)).toBe("ok");
  });

  it("a merchant whose card is in another name cannot offer bank on a sell advert", async () => {
    const { merchant } = await makeMerchant("2000");
    expect((await saveCard(merchant.token, "Someone Else")).body.type).toBe("ok");
    const r = await api("/c2c/adverts", { token: merchant.token, body: { type: "sell", price: "7.20", total_number: "100", min_money: "100", max_money: "500", pay_kinds: ["bank"] } });
    expect(r.body).toMatchObject({ type: "997", code: "c2c_pay_method_missing" });
    const alipay = await api("/c2c/adverts", { token: merchant.token, body: { type: "sell", price: "7.20", total_number: "100", min_money: "100", max_money: "500", pay_kinds: ["alipay"] } });
    expect(alipay.body.type).toBe("ok");
  });
});

describe("editing an advert off the shelf", () => {
  const edit = (token: string, id: number, body: Record<string, unknown>) =>
    api(`/c2c/adverts/${id}/edit`, { token, body: { price: "7.10", min_money: "50", max_money: "2000", pay_kinds: ["alipay"], remark: "fast release", ...body } });

  it("changes price, limits, methods and terms, moves no coins, and goes back on the shelf with them", async () => {
    const { merchant } = await makeMerchant("2000");
    const ad = await postAdvert(merchant, { total_number: "500", max_money: "1000" });
    const taker = await makeTaker();
    await placeOrder(taker, ad.id, "20");
    expect((await edit(merchant.token, ad.id, {})).body).toMatchObject({ type: "error", code: "c2c_advert_state" }); // on the shelf
    expect((await api(`/c2c/adverts/${ad.id}/off`, { token: merchant.token, body: {} })).body.type).toBe("ok");
    const before = await bal(merchant.id, USDT, "legal");
    const r = await edit(merchant.token, ad.id, {});
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    expect(r.body.message).toMatchObject({ id: ad.id, price: "7.10", min_money: "50.00", max_money: "2000.00", pay_kinds: ["alipay"], surplus_number: "480.00000000", status: 2 });
    expect(await bal(merchant.id, USDT, "legal")).toEqual(before);
    expect(before[1]).toBe(u8("1000") + u8("500")); // deposit + the advert's whole escrow (the order's 20 included)
    expect((await api(`/c2c/adverts/${ad.id}/on`, { token: merchant.token, body: {} })).body.type).toBe("ok");
    const market = await api("/new/legal_deal/index?type=sell", { token: taker.token });
    expect(market.body.data.lists.find((a: { id: number }) => a.id === ad.id)).toMatchObject({ price: "7.10", min_money: "50.00" });
  });

  it("validates like posting: limits against what remains at the new price, methods the merchant has, only one's own", async () => {
    const { merchant } = await makeMerchant("2000");
    const ad = await postAdvert(merchant, { total_number: "100", max_money: "1000" });
    expect((await api(`/c2c/adverts/${ad.id}/off`, { token: merchant.token, body: {} })).body.type).toBe("ok");
    const cases: [Record<string, unknown>, string][] = [
      [{ price: "0" }, "price_positive"],
      [{ min_money: "800", max_money: "700" }, "c2c_limits"],
      [{ price: "1.00", min_money: "150" }, "c2c_limits"], // 100 USDT × 1.00 = 100 CNY < 150
      [{ pay_kinds: ["wechat"] }, "c2c_pay_method_missing"],
      [{ pay_kinds: [] }, "c2c_pay_kinds"],
    ];
    for (const [body, code] of cases) expect((await edit(merchant.token, ad.id, body)).body.code, JSON.stringify(body)).toBe(code);
    const other = await makeTrader("0");
    expect((await edit(other.token, ad.id, {})).body.code).toBe("not_found");
    expect((await api(`/c2c/adverts/${ad.id}/withdraw`, { token: merchant.token, body: {} })).body.type).toBe("ok");
    expect((await edit(merchant.token, ad.id, {})).body.code).toBe("c2c_advert_state");
  });
});
