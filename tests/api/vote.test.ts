// Listing votes (issue #19 §3): one verified account = one vote per candidate per round, with the
// round's published minimum balance held once per voter per round in the voter's own spot account,
// released exactly once when the round ends or is cancelled; public tallies; operators open,
// close and cancel rounds (audited). The reconciler stays clean throughout.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { releaseDueHolds } from "../../worker/domain/vote/release.ts";
import { runScheduled } from "../../worker/scheduled.ts";
import { app } from "../../worker/app.ts";
import { api, makeUser, reconcileNow, statementLines } from "./helpers.ts";
import { HOUR, openRound } from "./vote-fixtures.ts";
import { bal, makeOperator, seedWalletCurrencies, u8, USDT } from "./wallet-fixtures.ts";

beforeAll(seedWalletCurrencies);

async function expectClean() {
  const r = await reconcileNow();
  expect(r.differences).toEqual([]);
  expect(r.stats.hold_sources).toContain("vote_holds");
}

const voter = (units = u8("100")) => makeUser({ verified: 2, balances: [{ currencyId: USDT, units }] });

async function publicRound(id: number, token?: string) {
  const r = await api("/vote/rounds", { token });
  expect(r.body.type).toBe("ok");
  return (r.body.message.data as { id: number; voters: number; votes: number; candidates: { id: number; votes: number }[]; mine: null | { candidate_ids: number[]; held: string; released: boolean } }[]).find((x) => x.id === id)!;
}

describe("casting votes", () => {
  it("counts a vote once per account: a second cast and parallel casts are refused, the tally moves by one", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const alpha = round.candidates[0]!.id;
    expect(round.candidates.map((c) => c.symbol)).toEqual(["ALP", "BET", "GAM"]);
    const user = await voter();

    const results = await Promise.all(Array.from({ length: 6 }, () => api("/vote/cast", { token: user.token, body: { candidate_id: alpha } })));
    expect(results.filter((r) => r.body.type === "ok")).toHaveLength(1);
    for (const r of results.filter((x) => x.body.type !== "ok")) expect(r.body.message).toBe("You have already voted for this candidate in this round");

    const again = await api("/vote/cast", { token: user.token, body: { candidate_id: alpha } });
    expect(again.body).toMatchObject({ type: "error", message: "You have already voted for this candidate in this round" });

    const seen = await publicRound(round.id);
    expect(seen.candidates.find((c) => c.id === alpha)!.votes).toBe(1);
    expect(seen.voters).toBe(1);
    // One hold of the published minimum, frozen in the voter's own spot account.
    expect(await bal(user.id, USDT)).toEqual([u8("90"), u8("10")]);
    await expectClean();
  });

  it("holds the minimum once per voter per round, however many candidates the voter backs, even in parallel", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const user = await voter();
    const results = await Promise.all(round.candidates.map((c) => api("/vote/cast", { token: user.token, body: { candidate_id: c.id } })));
    expect(results.map((r) => r.body.type)).toEqual(["ok", "ok", "ok"]);
    expect(results.map((r) => r.body.message.held_now).sort()).toEqual(["0", "0", "10"]);
    expect(await bal(user.id, USDT)).toEqual([u8("90"), u8("10")]);
    const mine = (await publicRound(round.id, user.token)).mine!;
    expect(mine.candidate_ids.sort()).toEqual(round.candidates.map((c) => c.id).sort());
    expect(mine).toMatchObject({ held: "10", released: false });
    // The voter is told once, about the one hold.
    const inbox = await api("/notifications", { token: user.token });
    expect(inbox.body.message.data.filter((n: { kind: string }) => n.kind === "vote_held")).toHaveLength(1);
    await expectClean();
  });

  it("refuses an unverified account and changes nothing", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    for (const verified of [0, 1, 3] as const) {
      const user = await makeUser({ verified, balances: [{ currencyId: USDT, units: u8("100") }] });
      const r = await api("/vote/cast", { token: user.token, body: { candidate_id: round.candidates[0]!.id } });
      expect(r.body.type).toBe("998");
      expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
    }
    expect((await publicRound(round.id)).candidates[0]!.votes).toBe(0);
  });

  it("refuses a voter whose spot balance cannot cover the hold, and records no vote", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const poor = await voter(u8("9.99"));
    const r = await api("/vote/cast", { token: poor.token, body: { candidate_id: round.candidates[1]!.id } });
    expect(r.body).toMatchObject({ type: "error", message: "Insufficient balance" });
    expect(await bal(poor.id, USDT)).toEqual([u8("9.99"), 0n]);
    expect((await publicRound(round.id)).voters).toBe(0);
    await expectClean();
  });

  it("refuses operators, bad input and unknown candidates without changing anything", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const user = await voter();
    const opVote = await api("/vote/cast", { token: op.token, body: { candidate_id: round.candidates[0]!.id } });
    expect(opVote.body.type).not.toBe("ok");
    for (const body of [{}, { candidate_id: "x" }, { candidate_id: -1 }, { candidate_id: 1.5 }, "not json"]) {
      const r = await api("/vote/cast", { token: user.token, body });
      expect(r.status).toBe(400);
      expect(r.body.type).toBe("error");
    }
    const unknown = await api("/vote/cast", { token: user.token, body: { candidate_id: 99_999_999 } });
    expect(unknown.body).toMatchObject({ type: "error", message: "Data not found" });
    const anonymous = await api("/vote/cast", { body: { candidate_id: round.candidates[0]!.id } });
    expect(anonymous.body.type).toBe("999");
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
    expect((await publicRound(round.id)).votes).toBe(0);
  });

  it("refuses votes before a round opens", async () => {
    const op = await makeOperator();
    const round = await openRound(op, { starts_at: Date.now() + HOUR, ends_at: Date.now() + 2 * HOUR });
    const user = await voter();
    const r = await api("/vote/cast", { token: user.token, body: { candidate_id: round.candidates[0]!.id } });
    expect(r.body).toMatchObject({ type: "error", message: "This round is not open for votes now" });
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
  });

  it("shows the tally and voter count to everyone, and one's own votes only to oneself", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const [a, b] = [await voter(), await voter()];
    await api("/vote/cast", { token: a.token, body: { candidate_id: round.candidates[0]!.id } });
    await api("/vote/cast", { token: b.token, body: { candidate_id: round.candidates[0]!.id } });
    await api("/vote/cast", { token: b.token, body: { candidate_id: round.candidates[2]!.id } });
    const anonymous = await publicRound(round.id);
    expect(anonymous).toMatchObject({ voters: 2, votes: 3, mine: null });
    expect(anonymous.candidates.map((c) => c.votes)).toEqual([2, 0, 1]);
    expect((await publicRound(round.id, a.token)).mine!.candidate_ids).toEqual([round.candidates[0]!.id]);
  });
});

describe("the end of a round", () => {
  it("releases each hold exactly once when the round ends, by the every-minute cron", async () => {
    const op = await makeOperator();
    const round = await openRound(op, { ends_at: Date.now() + HOUR });
    const [a, b] = [await voter(), await voter()];
    await api("/vote/cast", { token: a.token, body: { candidate_id: round.candidates[0]!.id } });
    await api("/vote/cast", { token: a.token, body: { candidate_id: round.candidates[1]!.id } });
    await api("/vote/cast", { token: b.token, body: { candidate_id: round.candidates[1]!.id } });
    expect(await bal(a.id, USDT)).toEqual([u8("90"), u8("10")]);

    // Before the end nothing is released.
    expect((await releaseDueHolds(env, Date.now(), { roundId: round.id })).released).toBe(0);

    const after = round.ends_at + 1000;
    await runScheduled("* * * * *", env, after);
    await runScheduled("* * * * *", env, after + 60_000);
    expect(await bal(a.id, USDT)).toEqual([u8("100"), 0n]);
    expect(await bal(b.id, USDT)).toEqual([u8("100"), 0n]);
    // Each voter's hold given back in one statement line.
    for (const v of [a, b]) expect((await statementLines(v.token)).filter((l) => l.kind === "vote_release").map((l) => [l.ref, l.held])).toEqual([[{ type: "vote", id: round.id }, "-10.00000000"]]);
    const inbox = await api("/notifications", { token: a.token });
    expect(inbox.body.message.data.filter((n: { kind: string }) => n.kind === "vote_released")).toHaveLength(1);
    expect((await releaseDueHolds(env, after + 120_000, { roundId: round.id })).due).toBe(0);
    await expectClean();
  });

  it("is resumable: a run that releases only part leaves the rest to the next run", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const voters = await Promise.all([voter(), voter(), voter()]);
    for (const v of voters) await api("/vote/cast", { token: v.token, body: { candidate_id: round.candidates[2]!.id } });
    const after = round.ends_at + 1;
    expect(await releaseDueHolds(env, after, { roundId: round.id, limit: 2 })).toEqual({ due: 2, released: 2 });
    await expectClean();
    expect(await releaseDueHolds(env, after, { roundId: round.id, limit: 2 })).toEqual({ due: 1, released: 1 });
    for (const v of voters) expect(await bal(v.id, USDT)).toEqual([u8("100"), 0n]);
    await expectClean();
  });

  it("releases the holds at once when an operator cancels a round (audited), and refuses votes after", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const user = await voter();
    await api("/vote/cast", { token: user.token, body: { candidate_id: round.candidates[0]!.id } });
    const noReason = await api(`/admin/vote/rounds/${round.id}/cancel`, { token: op.token, body: {} });
    expect(noReason.body.type).toBe("error");
    const cancelled = await api(`/admin/vote/rounds/${round.id}/cancel`, { token: op.token, body: { reason: "candidate withdrew" } });
    expect(cancelled.body.message.phase).toBe("cancelled");
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
    const audit = await env.DB.prepare("SELECT operator_id, reason FROM audit_log WHERE action = 'vote.round.cancel' AND target_id = ?").bind(String(round.id)).first();
    expect(audit).toEqual({ operator_id: op.id, reason: "candidate withdrew" });
    const late = await api("/vote/cast", { token: user.token, body: { candidate_id: round.candidates[1]!.id } });
    expect(late.body).toMatchObject({ type: "error", message: "This round is not open for votes now" });
    const twice = await api(`/admin/vote/rounds/${round.id}/close`, { token: op.token, body: { reason: "again" } });
    expect(twice.body.type).toBe("error");
    await runScheduled("* * * * *", env, Date.now());
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
    await expectClean();
  });

  it("keeps the tally when an operator closes a round early", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const user = await voter();
    await api("/vote/cast", { token: user.token, body: { candidate_id: round.candidates[1]!.id } });
    const closed = await api(`/admin/vote/rounds/${round.id}/close`, { token: op.token, body: { reason: "enough votes" } });
    expect(closed.body.message).toMatchObject({ phase: "closed", voters: 1, votes: 1 });
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
    await expectClean();
  });
});

describe("the console", () => {
  it("lets only operators open rounds, audits each, and refuses a bad round without creating anything", async () => {
    const op = await makeOperator();
    const user = await voter();
    const asUser = await api("/admin/vote/rounds", { token: user.token, body: {} });
    expect(asUser.status).toBe(403);
    const count = async () => (await env.DB.prepare("SELECT (SELECT count(*) FROM vote_rounds) + (SELECT count(*) FROM vote_candidates) AS n").first<{ n: number }>())!.n;
    const before = await count();
    const now = Date.now();
    const good = { title: "R", currency_id: USDT, min_balance: "10", starts_at: now, ends_at: now + HOUR, candidates: [{ name: "A", symbol: "A" }, { name: "B", symbol: "B" }], reason: "r" };
    const bad: [Record<string, unknown>, string][] = [
      [{ candidates: [{ name: "A", symbol: "A" }] }, "A round lists 2 to 20 candidates"],
      [{ candidates: [{ name: "A", symbol: "A" }, { name: "B", symbol: "a" }] }, "Each candidate's symbol may appear once in a round"],
      [{ candidates: [{ name: "A", symbol: "A-1" }, { name: "B", symbol: "B" }] }, "A symbol is 1-12 letters or digits"],
      [{ candidates: [{ name: "A", symbol: "A", link: "http://x" }, { name: "B", symbol: "B" }] }, "A link must start with https://"],
      [{ ends_at: now - 1 }, "The round must end after it starts, in the future, at most 90 days later"],
      [{ starts_at: now - 2 * HOUR, ends_at: now - HOUR }, "The round must end after it starts, in the future, at most 90 days later"],
      [{ min_balance: "0" }, "The amount must be greater than 0"],
      [{ min_balance: "-1" }, "Please enter a valid amount"],
      [{ min_balance: "0.000000001" }, "Too many decimal places (at most 8)"],
      [{ reason: "" }, "Invalid parameter"],
    ];
    for (const [over, message] of bad) {
      const r = await api("/admin/vote/rounds", { token: op.token, body: { ...good, ...over } });
      expect(r.body, JSON.stringify(over)).toMatchObject({ type: "error", message });
    }
    expect(await count()).toBe(before);
    const r = await api("/admin/vote/rounds", { token: op.token, body: good });
    expect(r.body.message).toMatchObject({ title: "R", phase: "voting", min_balance: "10", currency: "USDT", voters: 0 });
    const audit = await env.DB.prepare("SELECT operator_id, reason FROM audit_log WHERE action = 'vote.round.create' AND target_id = ?").bind(String(r.body.message.id)).first();
    expect(audit).toEqual({ operator_id: op.id, reason: "r" });
  });

  it("answers feature_off on the user endpoints when PRODUCT_VOTE is off, and casts nothing", async () => {
    const op = await makeOperator();
    const round = await openRound(op);
    const user = await voter();
    const off = { ...env, PRODUCT_VOTE: "off" };
    for (const [method, path] of [
      ["GET", "/api/vote/rounds"],
      ["POST", "/api/vote/cast"],
    ] as const) {
      const r = await app.request(path, { method, headers: { authorization: user.token, "content-type": "application/json", lang: "en" }, body: method === "POST" ? JSON.stringify({ candidate_id: round.candidates[0]!.id }) : undefined }, off);
      expect(((await r.json()) as { code: string }).code, path).toBe("feature_off");
    }
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
  });
});
