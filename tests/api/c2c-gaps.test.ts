// Gaps closed after the first C2C build (issue #10): the operator's chat message has its request
// schema with the others in schemas/c2c.ts, and a bank card whose holder is not the verified real
// name is no C2C receiving method (listed with name_mismatch so the screen can say why).
import { beforeAll, describe, expect, it } from "vitest";
import { operatorMessageSchema } from "../../schemas/c2c.ts";
import { api } from "./helpers.ts";
import { ABC_CARD } from "./wallet-fixtures.ts";
import { makeMerchant, makeTrader, postAdvert, seedWalletCurrencies } from "./c2c-fixtures.ts";

beforeAll(seedWalletCurrencies);

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
