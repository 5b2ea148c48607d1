/**
 * An operator's edit of the seconds terms with balances in the account objects (ACCOUNTS=objects,
 * issue #28). A submit prices a contract on terms the isolate may remember (worker/domain/seconds/terms.ts);
 * on D1's path the freeze batch re-checks them against D1 (TERMS_GUARD), and here no D1 statement
 * does: the pair, told of the edit (config.ts `pushingSecondsTerms`), refuses a contract priced on
 * terms D1 no longer has, and the Worker prices it again on D1's. So the next contract after an edit
 * is held and answered on the new terms, as with ACCOUNTS=d1 (tests/api/seconds-lever-fast-path.test.ts).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { coverShard, secondsHold } from "../../durable/pair/desks/seconds-objects.ts";
import { api, drainPair, makeUser, seedSpotPair, units, type TestUser } from "../api/helpers.ts";
import { submit } from "../api/seconds-fixtures.ts";
import { USDT, fundTreasuryShards, objectBalances, twoSidedObjectBook } from "./fixtures.ts";

const TREASURY = SYSTEM_USERS.treasury;
/** USDT's payable terms as migration 0011 seeds them. */
const PAYABLE = { currency_id: USDT, micro_numbers: ["10", "50", "100", "500", "1000"], min_number: "1", max_number: "5000", fee_percent: "2", pair_exposure: "200000", user_exposure: "20000", status: 1 };

let op: TestUser;
const option = (seconds: number, profit_ratio: string, status: 0 | 1 = 1) => api("/admin/seconds/options", { token: op.token, body: { seconds, profit_ratio, status, reason: "terms test" } });
const payable = (patch: Partial<typeof PAYABLE>) => api("/admin/seconds/currencies", { token: op.token, body: { ...PAYABLE, ...patch, reason: "terms test" } });

/** An answer that must be "ok" (its body in the message when not). */
async function ok(request: Promise<{ body: { type: string } }>) {
  const r = await request;
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
}

/** A verified user whose object was opened with `usdt` in the micro account. */
async function bettor(usdt = "1000") {
  const u = await makeUser({ verified: 2 });
  await accountStub(env, u.id).accountImport(u.id, [{ account: "micro", currencyId: USDT, available: units(usdt), frozen: 0n }]);
  return u;
}

/** The contract's hold in the user's object and its cover in its treasury shard (amounts held). */
async function holds(userId: number, id: number) {
  const k = coverShard(id);
  const [mine, cover] = await Promise.all([accountStub(env, userId).accountHold(userId, secondsHold(id)), systemStub(env, TREASURY, k).systemHold(TREASURY, k, secondsHold(id))]);
  return [mine?.amount, cover?.amount];
}

beforeAll(async () => {
  await seedSpotPair();
  op = await makeUser({ role: "operator" });
  await fundTreasuryShards(units("100000"));
  await twoSidedObjectBook();
});

describe("seconds terms edited by an operator, on the account objects", () => {
  it("holds the next contract at the ratio and fee the operator set, though the isolate remembered the old ones", async () => {
    const u = await bettor();
    // The first contract leaves the terms in the isolate's memory.
    const first = (await submit(u.token, { number: "10" })).body.message;
    expect(first).toMatchObject({ profit_ratio: "80", fee: "0.20000000" });
    expect(await holds(u.id, first.id)).toEqual([units("10.2"), units("8")]);
    await ok(option(30, "50"));
    await ok(payable({ fee_percent: "1" }));
    try {
      const r = await submit(u.token, { number: "10" });
      expect(r.body.message, JSON.stringify(r.body)).toMatchObject({ profit_ratio: "50", fee: "0.10000000", number: "10.00000000" });
      // The user held 10 + 0.10, the house 5 (10 × 50 %), not 8.
      expect(await holds(u.id, r.body.message.id)).toEqual([units("10.1"), units("5")]);
      // The two stakes held; both fees (0.2 and 0.1) went to the fee shard at the open.
      expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("1000") - units("20.3"), units("20")]]);
      // The contract keeps its own terms in the running list (once the pair's drain brought its row).
      await drainPair(1);
      const listed = (await api("/microtrade/lists", { token: u.token })).body.message as { id: number; profit_ratio: string }[];
      expect(listed.find((c) => c.id === r.body.message.id)).toMatchObject({ profit_ratio: "50" });
    } finally {
      await ok(option(30, "80"));
      await ok(payable({}));
    }
  });

  it("refuses a duration withdrawn and a stake past a lowered maximum, holding nothing, and takes a stake a raised maximum allows", async () => {
    const u = await bettor();
    await ok(submit(u.token, { number: "10" }));
    const balances = await objectBalances(u.id);
    try {
      await ok(option(30, "80", 0));
      expect((await submit(u.token, { number: "10" })).body).toMatchObject({ type: "error", code: "seconds_unavailable" });
      expect(await objectBalances(u.id)).toEqual(balances);
      await ok(option(30, "80"));

      await ok(payable({ max_number: "5", micro_numbers: ["1", "5"] }));
      expect((await submit(u.token, { number: "10" })).body).toMatchObject({ type: "error", code: "stake_range" });
      expect(await objectBalances(u.id)).toEqual(balances);

      // Remembered by this isolate: a maximum of 5. Raised to 6000, a stake of 5,500 is taken.
      await ok(submit(u.token, { number: "5" }));
      await ok(payable({ max_number: "6000" }));
      const rich = await bettor("10000");
      await ok(submit(rich.token, { number: "3" }));
      expect((await submit(rich.token, { number: "5500" })).body.message).toMatchObject({ number: "5500.00000000" });
    } finally {
      await ok(option(30, "80"));
      await ok(payable({}));
    }
  });

  it("refuses a contract whose confirmed index moved with price_moved, with a client id too, holding nothing", async () => {
    const u = await bettor();
    // The isolate remembers the terms (a refusal on remembered terms is priced again on D1's before it is
    // answered: the client id must pass to that second draw, not answer as a replay of the first).
    await ok(submit(u.token, { number: "10" }));
    const held = await objectBalances(u.id);
    for (const client_oid of [undefined, "moved-1", "moved-2"]) {
      const r = await submit(u.token, { number: "10", index_price: "1.00", ...(client_oid ? { client_oid } : {}) });
      expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([409, "price_moved"]);
    }
    expect(await objectBalances(u.id)).toEqual(held);
    // Each submit was refused twice (on the remembered terms, then on D1's) and leaves one revoked row, as D1's path does.
    const revoked = await env.DB.prepare("SELECT client_oid FROM micro_orders WHERE user_id = ? AND status = 4 ORDER BY id").bind(u.id).all<{ client_oid: string | null }>();
    expect(revoked.results.map((r) => r.client_oid)).toEqual([null, "moved-1", "moved-2"]);
  });

  it("answers a client id priced on stale terms with the contract held on the new ones, and with that one when sent again", async () => {
    const u = await bettor();
    await ok(submit(u.token, { number: "10" }));
    await ok(option(30, "60"));
    try {
      const r = await submit(u.token, { number: "10", client_oid: "terms-1" });
      expect(r.body.message).toMatchObject({ profit_ratio: "60" });
      const again = await submit(u.token, { number: "10", client_oid: "terms-1" });
      expect(again.body.message).toMatchObject({ id: r.body.message.id, profit_ratio: "60" });
      // Two contracts held, not three: 10.2 each, the fees spent at the open; and no revoked row of the stale draw (D1's freeze batch
      // refuses stale terms before it writes one).
      expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("1000") - units("20.4"), units("20")]]);
      expect(await env.DB.prepare("SELECT count(*) AS n FROM micro_orders WHERE user_id = ? AND status = 4").bind(u.id).first()).toEqual({ n: 0 });
    } finally {
      await ok(option(30, "80"));
    }
  });
});
