/**
 * The statement's words for a leveraged position's legs in objects mode (issue #28, found by the
 * fresh-clone walk of session 17): the pair's legs are keyed `lever:{id}:close|revoke|fee:{day}`
 * (durable/pair/desks/lever-objects.ts), and the statement must read them as D1's kinds
 * (`lever_close`, `lever_revoke`, `lever_overnight`) with the position as their record, not as an
 * unknown kind "lever" ("Other (lever)" on the screen, no link to the position). A cover's and a
 * mining buy's hold (spent at once) link to their record too.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { leverCloseKey, leverNightKey, leverOpenKey, leverRevokeKey } from "../../durable/pair/desks/lever-objects.ts";
import { secondsOpenKey } from "../../durable/pair/desks/seconds-objects.ts";
import { movementKind } from "../../worker/domain/wallet/object-reads.ts";
import { refOf } from "../../worker/domain/wallet/statement.ts";
import { api, makeUser, seedSpotPair, units } from "../api/helpers.ts";
import { open } from "../api/lever-fixtures.ts";
import { accountStub } from "../../worker/lib/accounts.ts";
import { env } from "cloudflare:test";
import { BTC, PAIR, USDT, fundTreasuryShards, legsDelivered, objectBalances, twoSidedObjectBook } from "./fixtures.ts";

beforeAll(async () => {
  await seedSpotPair();
  await fundTreasuryShards(units("1000"));
  await twoSidedObjectBook();
});

describe("a position's legs in the statement on the account objects", () => {
  it("reads a closed position's line as a close of that position", async () => {
    const u = await makeUser({ verified: 2 });
    await accountStub(env, u.id).accountImport(u.id, [{ account: "lever", currencyId: USDT, available: units("100"), frozen: 0n }]);
    const p = (await open(u.token, { share: 1, multiple: 10 })).body.message;
    expect(p).toMatchObject({ status: 2 });
    expect((await api("/lever/close", { token: u.token, body: { id: p.id } })).body.type).toBe("ok");
    await legsDelivered();
    await expect.poll(async () => (await objectBalances(u.id)).map((b) => b[3])).toEqual([0n]);
    const r = await api(`/wallet/statement?currency_id=${USDT}&account=lever`, { token: u.token });
    const lines = r.body.message.lines as { kind: string; ref: { type: string; id: number | null } }[];
    // The open is one line, as D1's one movement: the margin and fee held, the fee taken from the hold by the pair's open.
    expect(lines.map((l) => [l.kind, l.ref])).toEqual([
      ["lever_close", { type: "lever", id: p.id }],
      ["lever_open", { type: "lever", id: p.id }],
    ]);
  });

  it("reads an overnight fee and a revoke as D1 names them", () => {
    const kind = (key: string) => movementKind(`${key}:user:7`, (k) => refOf(k, ""));
    expect(kind(leverNightKey(41, 20_420))).toEqual({ kind: "lever_overnight", ref: { type: "lever", id: 41 } });
    expect(kind(leverRevokeKey(42))).toEqual({ kind: "lever_revoke", ref: { type: "lever", id: 42 } });
    expect(kind(leverCloseKey(43))).toEqual({ kind: "lever_close", ref: { type: "lever", id: 43 } });
  });

  it("reads a close by its reason as D1 names it, and a settled chunk of contracts as its user's first contract", () => {
    const user = (key: string, reason: string) => movementKind(`${key}:user:7:${reason}`, (k) => refOf(k, "")).kind;
    expect(["user", "profit", "loss", "liquidation", "cap"].map((r) => user(leverCloseKey(46), r))).toEqual(["lever_close", "lever_profit", "lever_loss", "lever_liquidation", "lever_cap"]);
    expect(movementKind("seconds:1:1700000000:90:user:7:95", (k) => refOf(k, ""))).toEqual({ kind: "micro_settle", ref: { type: "seconds", id: 95 } });
    // A chunk's leg to a treasury shard names no contract of a user.
    expect(movementKind("seconds:1:1700000000:90:system:-3:2", (k) => refOf(k, "")).ref).toEqual({ type: "seconds", id: null });
  });

  it("reads the open fee taken at the open as D1's open, of a position and of a contract", () => {
    const kind = (key: string) => movementKind(`${key}:user:7`, (k) => refOf(k, ""));
    expect(kind(leverOpenKey(44))).toEqual({ kind: "lever_open", ref: { type: "lever", id: 44 } });
    expect(kind(secondsOpenKey(45))).toEqual({ kind: "micro_open", ref: { type: "seconds", id: 45 } });
  });

  it("links a cover's and a mining buy's hold to their record", () => {
    const kind = (key: string) => movementKind(key, (k) => refOf(k, ""));
    expect(kind("cover:51:reserve")).toEqual({ kind: "insurance_hold", ref: { type: "insurance", id: 51 } });
    expect(kind("mining:52:reserve")).toEqual({ kind: "mining_hold", ref: { type: "mining", id: 52 } });
  });
});

describe("a spot fill's line on the account objects", () => {
  it("names the pair it was traded on, as D1's statement does", async () => {
    const u = await makeUser({ verified: 2 });
    await accountStub(env, u.id).accountImport(u.id, [{ account: "change", currencyId: USDT, available: units("100"), frozen: 0n }]);
    const r = await api("/transaction/walletIn", { token: u.token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "102", num: "0.05" } });
    expect(r.body.message, JSON.stringify(r.body)).toMatchObject({ status: "filled" });
    await legsDelivered();
    const lines = (await api(`/wallet/statement?currency_id=${BTC}`, { token: u.token })).body.message.lines as { kind: string; ref: { type: string; id: number | null } }[];
    expect(lines.map((l) => [l.kind, l.ref])).toEqual([["spot", { type: "spot_pair", id: PAIR }]]);
  });
});
