/**
 * Seconds contracts refuse with price_moved beyond the leverage tolerance (issue #26): the index
 * its owner confirmed and the entry tick at acceptance may differ by at most 0.1 %. A refused
 * contract gives its stake and fee back whole; within the tolerance it opens at the entry tick.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, drainPair, reconcileNow, seedSpotPair, units } from "./helpers.ts";
import { PAIR, USDT, clearBook } from "./spot-fixtures.ts";
import { bettor, fundHouse, micro, orderRow, submit, twoSidedBook } from "./seconds-fixtures.ts";

beforeAll(async () => {
  await seedSpotPair();
  await clearBook();
  await fundHouse(USDT, units("1000000"));
  await twoSidedBook("100", "102"); // index 101.00
});

describe("a seconds contract priced at another index than its owner confirmed", () => {
  it("is refused with price_moved in the caller's language, saying both prices, and its money comes back whole", async () => {
    const u = await bettor("1000");
    const texts = new Set<string>();
    for (const lang of ["en", "zh", "hk", "kr", "jp", "es"]) {
      const r = await api("/microtrade/submit", { token: u.token, lang, body: { match_id: 1, currency_id: USDT, type: 1, seconds: 60, number: "10", index_price: "100.80" } });
      expect([r.status, r.body.code]).toEqual([409, "price_moved"]);
      texts.add(r.body.message);
    }
    expect(texts.size).toBe(6);
    expect([...texts][0]).toBe("The index moved from 100.80 to 101.00 (more than 0.1%) before your order arrived; nothing was opened. Check the new figures and confirm again");
    expect(await micro(u.id)).toEqual([units("1000"), 0n]);
    const refused = await env.DB.prepare("SELECT status FROM micro_orders WHERE user_id = ?").bind(u.id).all<{ status: number }>();
    expect(refused.results.every((r) => r.status === 4)).toBe(true);
    expect((await reconcileNow()).differences).toEqual([]);
  });

  it("opens within the tolerance at the entry tick, and opens as before when no index is named", async () => {
    const u = await bettor("1000");
    const near = await submit(u.token, { index_price: "100.95", seconds: 60 });
    expect(near.body.message).toMatchObject({ status: 1, open_price: "101.00" });
    const plain = await submit(u.token, { seconds: 60 });
    expect(plain.body.message).toMatchObject({ status: 1, open_price: "101.00" });
    await drainPair(PAIR);
    expect((await orderRow(near.body.message.id))!.status).toBe(1);
  });

  it("refuses a malformed confirmed index before holding anything", async () => {
    const u = await bettor("1000");
    const r = await submit(u.token, { index_price: "100.001", seconds: 60 });
    expect(r.status).toBe(400);
    expect(await micro(u.id)).toEqual([units("1000"), 0n]);
  });
});
