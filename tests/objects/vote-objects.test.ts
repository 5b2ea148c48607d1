/**
 * Votes with balances in the account objects (ACCOUNTS=objects, issue #28): a voter's first vote
 * in a round holds the minimum in their object (hold `vote:{round}:{user}`) before the D1 rows,
 * once per voter and round however many votes they cast, even in parallel; the round's end owes
 * the leg that releases it (`vote:release:{round}:{user}`), applied once.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { runScheduled } from "../../worker/scheduled.ts";
import { api } from "../api/helpers.ts";
import { openRound } from "../api/vote-fixtures.ts";
import { makeOperator, seedWalletCurrencies, u8, USDT } from "../api/wallet-fixtures.ts";
import { d1LedgerRows } from "./fixtures.ts";
import { expectClean, objectUser, openHolds, settled, unsentLegs } from "./products-fixtures.ts";

beforeAll(seedWalletCurrencies);

const cast = (token: string, candidate_id: number) => api("/vote/cast", { token, body: { candidate_id } });

describe("votes on the account objects", () => {
  it("holds the minimum once per voter and round, even in parallel, and releases it once when the round ends", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const voter = await objectUser([[USDT, "100"]]);
    const results = await Promise.all(round.candidates.map((c) => cast(voter.token, c.id)));
    expect(results.map((r) => r.body.type)).toEqual(["ok", "ok", "ok"]);
    expect(await settled(voter.id)).toEqual([["change", USDT, u8("90"), u8("10")]]);
    expect(await openHolds(voter.id)).toEqual([[`vote:${round.id}:${voter.id}`, u8("10")]]);
    // The holds list names the round.
    expect(JSON.stringify((await api("/wallet/holds", { token: voter.token })).body.message)).toContain(`"purpose":"vote","amount":"10.00000000","ref":{"type":"vote","id":${round.id}},"label":"Next listing"`);
    await expectClean();

    const after = round.ends_at + 1000;
    await runScheduled("* * * * *", env, after);
    await runScheduled("* * * * *", env, after + 60_000);
    expect(await settled(voter.id)).toEqual([["change", USDT, u8("100"), 0n]]);
    expect(await openHolds(voter.id)).toEqual([]);
    expect(await unsentLegs()).toBe(0);
    const lines = (await api("/wallet/statement?limit=100", { token: voter.token })).body.message.lines as { kind: string; ref: { type: string; id: number } }[];
    expect(lines.map((l) => [l.kind, l.ref.type, l.ref.id])).toEqual([
      ["vote_release", "vote", round.id],
      ["vote_hold", "vote", round.id],
    ]);
    expect(await d1LedgerRows(voter.id)).toBe(0);
    await expectClean();
  });

  it("refuses a voter whose spot balance cannot cover the hold, recording no vote and holding nothing", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const voter = await objectUser([[USDT, "5"]]);
    expect((await cast(voter.token, round.candidates[0]!.id)).body).toMatchObject({ code: "insufficient_balance" });
    expect(await settled(voter.id)).toEqual([["change", USDT, u8("5"), 0n]]);
    expect(await openHolds(voter.id)).toEqual([]);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM vote_ballots WHERE user_id = ?").bind(voter.id).first<{ n: number }>())!.n).toBe(0);
  });
});
