/**
 * The maintenance switch with balances in the account objects (ACCOUNTS=objects;
 * durable/account/maintenance.ts): an order, a batch, a cancel, a transfer, a seconds contract and a
 * lever open are refused by the account object they call first, in that call, with no D1 read of
 * the switch on their way; the operator's "on" answers only once no object may still trust an
 * earlier "off", so the very next order after it is refused; "off" lets money move again at once.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { accountStub } from "../../worker/lib/accounts.ts";
import { api, seedSpotPair, units } from "../api/helpers.ts";
import { open } from "../api/lever-fixtures.ts";
import { submit } from "../api/seconds-fixtures.ts";
import { makeOperator } from "../api/wallet-fixtures.ts";
import { BTC, USDT, fundTreasuryShards, legsDelivered, objectBalances, objectTrader, twoSidedObjectBook } from "./fixtures.ts";
import { onPath, statementsOf, stopRecording } from "./d1-statements.ts";

const spot = (token: string, body: Record<string, unknown> = {}) => api("/transaction/walletIn", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "99", num: "0.1", ...body } });
const batch = (token: string) => api("/transaction/batch", { token, body: { currency_id: BTC, legal_id: USDT, orders: [1, 2].map(() => ({ side: "buy", mode: 2, price: "99", num: "0.1" })) } });
const cancel = (token: string, id: string) => api("/transaction_del", { token, body: { id } });
const transfer = (token: string, to = "micro") => api("/wallet/change", { token, body: { currency_id: USDT, number: "50", from_field: "change", to_field: to } });
/** Any route that resolves the session in D1: the isolate then holds the session's hint, as a client's first screen does. */
const warm = async (token: string) => expect((await api("/user/info", { token })).body.type).toBe("ok");
const SETTINGS_READ = /FROM settings/i;

let operator: { token: string };

async function setWindow(on: boolean) {
  const r = await api("/admin/maintenance", { token: operator.token, body: { on, reason: on ? "objects migration" : "done" } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  expect(r.body.message.on).toBe(on);
}

afterEach(async () => {
  stopRecording();
  await setWindow(false);
});

beforeAll(async () => {
  await seedSpotPair();
  operator = await makeOperator();
  await fundTreasuryShards(units("1000"));
  // A two-sided book (bid 100, ask 102): the pair has an index for contracts and positions.
  await twoSidedObjectBook();
});

describe("the maintenance switch in the account objects", () => {
  it("refuses an order, a batch, a cancel, a transfer, a seconds contract and a lever open with no D1 read of the switch, and nothing is held", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    // An open order to cancel later, and money in the contract and lever accounts.
    const placed = await spot(a.token);
    expect(placed.body.type, JSON.stringify(placed.body)).toBe("ok");
    expect((await transfer(a.token, "micro")).body.type).toBe("ok");
    expect((await api("/wallet/change", { token: a.token, body: { currency_id: USDT, number: "500", from_field: "change", to_field: "lever" } })).body.type).toBe("ok");
    const position = await open(a.token, {});
    expect(position.body.type, JSON.stringify(position.body)).toBe("ok");
    // The open's fee leaves the margin's hold with the pair's legs, a moment after the answer.
    await legsDelivered();
    const before = await objectBalances(a.id);
    const holds = await accountStub(env, a.id).accountOpenHolds(a.id);
    expect(holds).toHaveLength(2);

    await setWindow(true);
    const answers: { status: number; body: { code?: string } }[] = [];
    const path = await statementsOf(async () => {
      answers.push(await spot(a.token));
      answers.push(await batch(a.token));
      answers.push(await cancel(a.token, placed.body.message.order_id as string));
      answers.push(await transfer(a.token));
      answers.push(await submit(a.token, { number: "10" }));
      answers.push(await open(a.token, {}));
      answers.push(await api("/lever/close", { token: a.token, body: { id: position.body.message.id } }));
      answers.push(await api("/lever/setstop", { token: a.token, body: { id: position.body.message.id, stop_loss: "50" } }));
    });
    // Each answered as the Worker's own check answers (503, the translated `maintenance`).
    expect(answers.map((r) => [r.status, r.body.code])).toEqual(Array(8).fill([503, "maintenance"]));
    // No statement reads the switch on the way (the lever open's deal screen and pair lookups are its own reads).
    expect(onPath(path).filter((s) => SETTINGS_READ.test(s))).toEqual([]);
    // Nothing moved: the same balances, the order and the position still open, no cover held for the contract or a new position.
    expect(await objectBalances(a.id)).toEqual(before);
    expect(await accountStub(env, a.id).accountOpenHolds(a.id)).toEqual(holds);

    await setWindow(false);
    expect((await cancel(a.token, placed.body.message.order_id as string)).body.type).toBe("ok");
    expect((await transfer(a.token)).body.type).toBe("ok");
    expect((await api("/lever/close", { token: a.token, body: { id: position.body.message.id } })).body.type).toBe("ok");
  });

  it("answers the operator's on only when no object may still trust an earlier off: the very next order is refused", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    // The object asks its switch object once and then trusts the answer for its lease.
    expect((await spot(a.token)).body.type).toBe("ok");
    expect((await spot(a.token)).body.type).toBe("ok");
    expect(await accountStub(env, a.id).accountMaintenanceLeases()).toBe(1);
    // The operator's request waits for that lease (MAINTENANCE_LEASE_MS from the first order) to run out.
    await setWindow(true);
    expect((await spot(a.token)).body).toMatchObject({ type: "error", code: "maintenance" });
    expect(await objectBalances(a.id)).toEqual([["change", USDT, units("9980.2"), units("19.8")]]);
    // Off: the next order goes through at once.
    await setWindow(false);
    expect((await spot(a.token)).body.type).toBe("ok");
  });

  it("a lever close finds its pair in the account object: no D1 read of the switch, the session or the position, before the pair's command or after it, and the same answer", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    expect((await api("/wallet/change", { token: a.token, body: { currency_id: USDT, number: "500", from_field: "change", to_field: "lever" } })).body.type).toBe("ok");
    const opened = (await open(a.token, {})).body.message;
    let closed: Record<string, unknown> = {};
    const path = await statementsOf(async () => {
      const r = await api("/lever/close", { token: a.token, body: { id: opened.id } });
      expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
      closed = r.body.message;
    });
    // Not even the answer's read of the position: the pair answers with its own row (session 16).
    // (The pair's drain of the open and the close, and its owner's event, may land meanwhile: not the request's path.)
    const reads = onPath(path).filter((s) => /FROM settings|FROM sessions|WHERE l\.id = \? AND l\.user_id = \?/i.test(s));
    expect(reads, reads.join("\n")).toHaveLength(0);
    expect(closed).toMatchObject({ id: opened.id, type: opened.type, share: opened.share, multiple: opened.multiple, margin: opened.margin, open_price: opened.open_price });
    // Closed once: a second close finds it closing or closed.
    const again = await api("/lever/close", { token: a.token, body: { id: opened.id } });
    expect(again.body.type).toBe("error");
    expect(["lever_closing", "lever_not_trading", "order_not_found"]).toContain(again.body.code);
  });

  it("with the switch off the order path reads no switch in D1", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    const path = await statementsOf(async () => {
      expect((await spot(a.token)).body.type).toBe("ok");
      expect((await batch(a.token)).body.type).toBe("ok");
      expect((await transfer(a.token)).body.type).toBe("ok");
    });
    expect(onPath(path).filter((s) => SETTINGS_READ.test(s))).toEqual([]);
  });
});
