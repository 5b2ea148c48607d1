/**
 * A lever open with no D1 statement on its way (ACCOUNTS=objects): the session is proved by the
 * user's object with the margin's hold, the pair's state and lever settings are the pair object's
 * (an operator's edit reaches it as "changing" before D1's write and "changed" after, so an open
 * priced on the old settings is refused there and priced again on the new), and the position's D1
 * row rides in the acceptance's outbox entry to the pair's drain; the list and the detail drain the
 * user's lever pairs first, so they show a position the moment its open has answered.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PairDurableObject } from "../../durable/pair/object.ts";
import { accountStub } from "../../worker/lib/accounts.ts";
import { setPairState } from "../../worker/domain/spot/pairs.ts";
import { api, seedSpotPair } from "../api/helpers.ts";
import { dealIndex, positionRow } from "../api/lever-fixtures.ts";
import { makeOperator } from "../api/wallet-fixtures.ts";
import { BTC, PAIR, USDT, fundTreasuryShards, objectBalances, objectTrader, pairStub, twoSidedObjectBook } from "./fixtures.ts";
import { onPath, statementsOf, stopRecording } from "./d1-statements.ts";
import { units } from "../api/helpers.ts";

/** BTC/USDT's settings as migrations/0015_lever.sql seeds them (fee 0.05 %). */
const seeded = {
  match_id: PAIR,
  lever_share_num: "0.01",
  multiples: [1, 2, 5, 10, 20, 50, 100],
  min_share: 1,
  max_share: 1000,
  share_step: 1,
  lever_trade_fee: "0.05",
  overnight_fee: "0.02",
  maintenance_rate: "20",
  pair_exposure: "5000000",
  max_positions: 20,
  status: 1,
  reason: "as seeded",
};
/** What a lever open may not send D1 on its way: the switch, the session, the pair, its settings, the row's own insert. */
const OPEN_READS = /FROM (settings|sessions|pairs|lever_pairs)\b|INSERT INTO lever_positions[\s\S]*VALUES/i;
/** Any route that resolves the session in D1: the isolate then holds the session's hint, as a client's first screen does. */
const warm = async (token: string) => expect((await api("/user/info", { token })).body.type).toBe("ok");

let operator: { token: string };

/** A user's revoked positions in D1 (a refused open's row). */
const revokedRows = async (userId: number) => (await env.DB.prepare("SELECT count(*) AS n FROM lever_positions WHERE user_id = ? AND status = 5").bind(userId).first<{ n: number }>())!.n;

async function saveSettings(over: Record<string, unknown>) {
  const r = await api("/admin/lever/pairs", { token: operator.token, body: { ...seeded, ...over } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
}

/** A trader with 500 USDT in the lever account, the session warm, and the index the deal screen shows. */
async function leverTrader() {
  const a = await objectTrader("1000", "0");
  await warm(a.token);
  expect((await api("/wallet/change", { token: a.token, body: { currency_id: USDT, number: "500", from_field: "change", to_field: "lever" } })).body.type).toBe("ok");
  return a;
}

const openAt = (token: string, index: string | null) => api("/lever/submit", { token, body: { currency_id: BTC, legal_id: USDT, type: 1, share: 10, multiple: 10, index_price: index } });

beforeAll(async () => {
  await seedSpotPair();
  operator = await makeOperator();
  // Every maintenance switch object told "off" (as the operator's switch does): none reads D1 on a first lease.
  expect((await api("/admin/maintenance", { token: operator.token, body: { on: false, reason: "tests" } })).body.type).toBe("ok");
  await fundTreasuryShards(units("1000"));
  await twoSidedObjectBook();
});

afterEach(async () => {
  stopRecording();
  await saveSettings({});
  await setPairState(env, PAIR, { open: true });
});

describe("a lever open on the account objects", () => {
  it("sends no D1 statement on its way, and the list and the detail show the position the moment the open answered", async () => {
    const a = await leverTrader();
    const index = await dealIndex();
    expect((await openAt(a.token, index)).body.type).toBe("ok");
    // The pair's drain waits (its alarm does nothing): only a read that drains first finds the row.
    await runInDurableObject(pairStub(), (obj: PairDurableObject) => {
      (obj as unknown as { scheduler: { handle(kind: string, h: () => Promise<null>): void } }).scheduler.handle("drain", () => Promise.resolve(null));
    });
    let opened: { id: number; trade_fee: string } = { id: 0, trade_fee: "" };
    const path = await statementsOf(async () => {
      const r = await openAt(a.token, index);
      expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
      opened = r.body.message;
    });
    expect(onPath(path).filter((s) => OPEN_READS.test(s))).toEqual([]);
    expect(await positionRow(opened.id)).toBeNull();

    const list = await api("/lever/my_trade?legal_id=3&status=2", { token: a.token, method: "POST" });
    expect((list.body.message.message.data as { id: number }[]).map((p) => p.id)).toContain(opened.id);
    const detail = await api(`/lever/position?id=${opened.id}`, { token: a.token });
    expect(detail.body.message).toMatchObject({ id: opened.id, status: 2, multiple: 10, share: 10, trade_fee: opened.trade_fee });
    expect(await positionRow(opened.id)).toMatchObject({ user_id: a.id, pair_id: PAIR, status: 2, multiple: 10, lots: 10 });
  });

  it("an open priced on settings an operator has changed since is refused by the pair and priced again on the new ones", async () => {
    const a = await leverTrader();
    const index = await dealIndex();
    // The isolate remembers the seeded settings (fee 0.05 %) for up to a minute.
    const before = await openAt(a.token, index);
    expect(before.body.type).toBe("ok");
    await saveSettings({ lever_trade_fee: "1" });
    const after = await openAt(a.token, index);
    expect(after.body.type, JSON.stringify(after.body)).toBe("ok");
    await pairStub().drain();
    expect(await positionRow(before.body.message.id)).toMatchObject({ fee_bps: 5 });
    expect(await positionRow(after.body.message.id)).toMatchObject({ fee_bps: 100 });
    expect(Number(after.body.message.trade_fee)).toBeGreaterThan(Number(before.body.message.trade_fee) * 10);
  });

  it("while an edit is on its way no open is accepted and nothing stays held; an edit that never finished is read from D1 by the pair", async () => {
    const a = await leverTrader();
    const index = await dealIndex();
    expect((await openAt(a.token, index)).body.type).toBe("ok");
    const balances = await objectBalances(a.id);
    const holds = await accountStub(env, a.id).accountOpenHolds(a.id);

    await pairStub().leverTermsChanging(PAIR);
    expect((await openAt(a.token, index)).body).toMatchObject({ type: "error", code: "try_again" });
    expect(await objectBalances(a.id)).toEqual(balances);
    expect(await accountStub(env, a.id).accountOpenHolds(a.id)).toEqual(holds);
    // Refused for its settings, as D1's batch refuses them before writing anything: no revoked row.
    expect(await revokedRows(a.id)).toBe(0);

    // The edit failed (or its Worker died): told to read D1, the pair takes D1's settings and opens go on.
    await pairStub().leverTermsChanged(PAIR, null);
    expect((await openAt(a.token, index)).body.type).toBe("ok");
  });

  it("a pair closed since this isolate last looked refuses the open with lever_pair_off and holds nothing", async () => {
    const a = await leverTrader();
    const index = await dealIndex();
    expect((await openAt(a.token, index)).body.type).toBe("ok");
    const balances = await objectBalances(a.id);
    const holds = await accountStub(env, a.id).accountOpenHolds(a.id);
    await setPairState(env, PAIR, { open: false });
    expect((await openAt(a.token, index)).body).toMatchObject({ type: "error", code: "lever_pair_off" });
    expect(await objectBalances(a.id)).toEqual(balances);
    expect(await accountStub(env, a.id).accountOpenHolds(a.id)).toEqual(holds);
    expect(await revokedRows(a.id)).toBe(0);
  });

  it("a close, new stops and a cancel are answered from the pair's own row with no D1 read, as D1's row then reads", async () => {
    const a = await leverTrader();
    const index = await dealIndex();
    // Warm: the isolate learns the pair (its identity, once) with a first close.
    const first = (await openAt(a.token, index)).body.message;
    expect((await api("/lever/close", { token: a.token, body: { id: first.id } })).body.type).toBe("ok");

    const trading = (await openAt(a.token, index)).body.message;
    const pending = (await api("/lever/submit", { token: a.token, body: { currency_id: BTC, legal_id: USDT, type: 1, share: 10, multiple: 5, target_price: "90" } })).body.message;
    expect(pending.status).toBe(1);
    const answers: Record<string, unknown>[] = [];
    const path = await statementsOf(async () => {
      for (const [route, body] of [
        ["/lever/setstop", { id: trading.id, stop_loss: "50" }],
        ["/lever/close", { id: trading.id }],
        ["/lever/setstop", { id: pending.id, stop_profit: "150" }],
        ["/lever/cancel", { id: pending.id }],
      ] as const) {
        const r = await api(route, { token: a.token, body });
        expect(r.body.type, `${route} ${JSON.stringify(r.body)}`).toBe("ok");
        answers.push(r.body.message);
      }
    });
    const reads = onPath(path).filter((s) => /FROM (settings|sessions|pairs|lever_pairs)\b|WHERE l\.id = \? AND l\.user_id = \?/i.test(s));
    expect(reads, reads.join("\n")).toEqual([]);
    expect(answers.map((p) => [p.id, p.status, p.multiple])).toEqual([
      [trading.id, 2, 10],
      [trading.id, 4, 10],
      [pending.id, 1, 5],
      [pending.id, 5, 5],
    ]);
    // The same answer D1's row gives once the command has answered (the pair drained it first).
    const same = ["id", "type", "status", "share", "multiple", "margin", "trade_fee", "close_fee", "profit", "net_profit", "open_price", "close_price", "target_price", "stop_profit", "stop_loss", "close_reason", "create_time", "open_time", "close_time", "gain_cap"];
    const pick = (p: Record<string, unknown>) => Object.fromEntries(same.map((k) => [k, p[k]]));
    for (const p of [answers[1]!, answers[3]!]) expect(pick((await api(`/lever/position?id=${p.id as number}`, { token: a.token })).body.message)).toEqual(pick(p));
  });
});
