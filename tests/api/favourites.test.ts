/**
 * Favourite pairs (issue #30): a user stars and unstars pairs on the markets screen; the list is
 * theirs alone, starring twice changes nothing, and bad input is refused with a translated message.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, makeUser, seedSpotPair, type TestUser } from "./helpers.ts";

const favourites = async (user: TestUser) => (await api("/market/favourites", { token: user.token })).body.message.pair_ids as number[];
const star = (user: TestUser, body: unknown, lang = "en") => api("/market/favourites", { token: user.token, lang, body });

let first = 0;
let second = 0;

beforeAll(async () => {
  first = await seedSpotPair({ pairId: 401, currencyId: 401, name: "FAVA" });
  second = await seedSpotPair({ pairId: 402, currencyId: 402, name: "FAVB" });
});

describe("favourite pairs", () => {
  it("are starred and unstarred by their user, in the order starred, and starring twice keeps one", async () => {
    const user = await makeUser();
    expect(await favourites(user)).toEqual([]);
    expect((await star(user, { pair_id: second, on: true })).body.message).toEqual({ pair_ids: [second] });
    expect((await star(user, { pair_id: first, on: true })).body.message).toEqual({ pair_ids: [second, first] });
    expect((await star(user, { pair_id: first, on: true })).body.message).toEqual({ pair_ids: [second, first] });
    expect(await favourites(user)).toEqual([second, first]);
    expect((await star(user, { pair_id: second, on: false })).body.message).toEqual({ pair_ids: [first] });
    expect((await star(user, { pair_id: second, on: false })).body.message).toEqual({ pair_ids: [first] });
    expect(await favourites(user)).toEqual([first]);
  });

  it("belong to their user only, and need a session", async () => {
    const a = await makeUser();
    const b = await makeUser();
    await star(a, { pair_id: first, on: true });
    expect(await favourites(b)).toEqual([]);
    await star(b, { pair_id: first, on: false });
    expect(await favourites(a)).toEqual([first]);
    expect((await api("/market/favourites")).body.type).toBe("999");
    expect((await api("/market/favourites", { body: { pair_id: first, on: true } })).body.type).toBe("999");
  });

  it("refuse an unknown pair and malformed input with a translated message, changing nothing", async () => {
    const user = await makeUser();
    const unknown = await star(user, { pair_id: 999_999, on: true });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("Data not found");
    for (const body of [{ pair_id: first, on: 1 }, { pair_id: first, on: "true" }, { pair_id: "x", on: true }, { pair_id: 0, on: true }, { pair_id: first }, { on: true }, { pair_id: first, on: true, extra: 1 }]) {
      const r = await star(user, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.type).toBe("error");
    }
    expect((await star(user, { pair_id: first, on: 1 }, "zh")).body.message).toBe("参数错误");
    expect(await favourites(user)).toEqual([]);
  });
});
