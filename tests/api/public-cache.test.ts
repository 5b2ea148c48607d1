// Public product lists are cached like /api/transparency (issue #26, strict input): a visitor's
// list comes from a short cache (worker/lib/public-cache.ts), a logged-in caller's personal list is
// never cached, and a change made through the product's own routes shows at once.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, makeUser, type TestUser } from "./helpers.ts";
import { fundTreasury, makeOperator, seedWalletCurrencies, u8, USDT } from "./wallet-fixtures.ts";

let operator: TestUser;

beforeAll(async () => {
  await seedWalletCurrencies();
  operator = await makeOperator();
  await fundTreasury(USDT, u8("1000000"));
});

async function createProduct(apr: string): Promise<number> {
  const body = { currency_id: USDT, term_days: 30, apr, min_amount: "10", max_amount: "1000", budget: "1000", reason: "Cache check" };
  const r = await api("/admin/earn/products", { token: operator.token, body });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return Math.max(...(r.body.message as { id: number }[]).map((p) => p.id));
}

const listed = async (id: number, token?: string) => ((await api("/earn/products", { token })).body.message as { id: number; apr: string; paid: string; remaining: string; my_open?: string }[]).find((p) => p.id === id);
/** What the daily cron does to a product's running total, behind the routes' back. */
const pay = (id: number, amount: string) => env.DB.prepare("UPDATE earn_products SET paid = ? WHERE id = ?").bind(Number(u8(amount)), id).run();

describe("public product lists", () => {
  it("serves a visitor's list from the cache, and shows an operator's new product at once", async () => {
    const first = await createProduct("5");
    expect((await listed(first))?.paid).toBe("0");
    // A change behind the routes' back (as the cron's) is not seen until the cache expires: the
    // list really comes from the cache.
    await pay(first, "1");
    expect((await listed(first))?.paid).toBe("0");
    // A product published through the console drops the cached list: both show now.
    const second = await createProduct("6");
    expect((await listed(second))?.apr).toBe("6.00");
    expect((await listed(first))?.paid).toBe("1");
  });

  it("never caches a logged-in caller's list, which carries their own part", async () => {
    const id = await createProduct("5");
    const user = await makeUser({ verified: 2, balances: [{ currencyId: USDT, units: u8("500") }] });
    expect((await listed(id))?.remaining).toBe("1000");
    await pay(id, "2");
    // The visitor's list is the cached one; the user's is read now.
    expect((await listed(id))?.paid).toBe("0");
    expect((await listed(id, user.token))?.paid).toBe("2");
    // Subscribing (a write through the product's routes) drops the visitor's cached list too.
    const sub = await api("/earn/subscribe", { token: user.token, body: { product_id: id, amount: "100" } });
    expect(sub.body.type, JSON.stringify(sub.body)).toBe("ok");
    const mine = await listed(id, user.token);
    const visitor = await listed(id);
    expect(visitor?.paid).toBe("2");
    expect(visitor?.remaining).toBe(mine?.remaining);
    expect(Number(visitor?.remaining)).toBeLessThan(1000);
    // The visitor's copy holds nobody's own figures.
    expect(visitor?.my_open).toBe("0");
    expect(mine?.my_open).toBe("100");
  });
});
