/** Shared setup of the seconds-contract tests (API and Durable Object): a two-sided book, a funded house, helpers. */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { PairDurableObject } from "../../durable/pair/object.ts";
import { sha256Hex } from "../../worker/lib/crypto.ts";
import { USER_SOCKET_HEADERS } from "../../durable/user.ts";
import { api, balance, makeUser, units, type TestUser } from "./helpers.ts";
import { USDT, buy, sell, trader } from "./spot-fixtures.ts";
import { fundTreasury } from "./wallet-fixtures.ts";

/** Credits the house (treasury) through a ledger movement against external deposits, as the seed does. */
export const fundHouse = fundTreasury;

/** A verified user with USDT in the micro account. */
export const bettor = (usdt = "1000", currencyId = USDT) => makeUser({ verified: 2, balances: [{ currencyId, units: units(usdt), account: "micro" }] });

/** Rests a bid and an ask on BTC/USDT so it has an index (the mid of the two while nothing traded). */
export async function twoSidedBook(bid = "100", ask = "102") {
  const mm = await trader("100000", "100");
  expect((await buy(mm.token, { price: bid, num: "0.1" })).body.type).toBe("ok");
  expect((await sell(mm.token, { price: ask, num: "0.1" })).body.type).toBe("ok");
  return mm;
}

export const submit = (token: string, body: Record<string, unknown>) =>
  api("/microtrade/submit", { token, body: { match_id: 1, currency_id: USDT, type: 1, seconds: 30, number: "10", ...body } });

export const stubOf = (pairId: number) => env.PAIR.get(env.PAIR.idFromName(`pair:${pairId}`));

/** A contract's D1 row. */
export const orderRow = (id: number) =>
  env.DB.prepare("SELECT * FROM micro_orders WHERE id = ?").bind(id).first<Record<string, number | string | null>>();

/**
 * Lets a contract run out now, as if its seconds had passed: its expiry (in the object and in D1)
 * becomes the present, so every tick recorded so far is at or before it.
 */
export async function expireNow(pairId: number, orderId: number): Promise<void> {
  const now = await runInDurableObject(stubOf(pairId), async (_obj: PairDurableObject, state) => {
    const t = Date.now();
    state.storage.sql.exec("UPDATE contracts SET end_at = ? WHERE id = ? AND status = 1", t, orderId);
    state.storage.sql.exec("INSERT INTO schedule (kind, due, rev) VALUES ('expiry', ?1, 0) ON CONFLICT (kind) DO UPDATE SET due = ?1, rev = rev + 1", t);
    return t;
  });
  await env.DB.prepare("UPDATE micro_orders SET end_at = ? WHERE id = ?").bind(now, orderId).run();
}

/** Fires the pair's alarm until the contract is settled in D1 (waits for state, not for time). */
export async function settled(pairId: number, orderId: number) {
  for (let i = 0; i < 2000; i++) {
    const row = await orderRow(orderId);
    if (Number(row?.status) === 3) return row!;
    await runDurableObjectAlarm(stubOf(pairId));
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`contract ${orderId} was not settled`);
}

/** A micro balance as [available, frozen] (a system account's change account), from the store the mode keeps it in. */
export function micro(userId: number, currencyId = USDT): Promise<[bigint, bigint]> {
  return balance(userId, currencyId, userId > 0 ? "micro" : "change");
}

/**
 * Opens a socket on a user's private channel object as the Worker would after authenticating the
 * session, and collects what it receives.
 */
export async function userSocket(user: TestUser) {
  const session = await env.DB.prepare("SELECT id FROM sessions WHERE user_id = ? ORDER BY id DESC LIMIT 1").bind(user.id).first<{ id: number }>();
  const h = USER_SOCKET_HEADERS;
  const res = await env.USER.get(env.USER.idFromName(`user:${user.id}`)).fetch("http://user/ws", {
    headers: { upgrade: "websocket", [h.userId]: String(user.id), [h.sessionId]: String(session!.id), [h.tokenHash]: await sha256Hex(user.token) },
  });
  const ws = res.webSocket!;
  ws.accept();
  const messages: { type: string; data?: Record<string, unknown> }[] = [];
  ws.addEventListener("message", (e) => messages.push(JSON.parse(String(e.data))));
  return { ws, messages };
}
