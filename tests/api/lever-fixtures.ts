/** Shared setup of the leveraged-contract tests (API and Durable Object): index control, sweeps, balances. */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { PairDurableObject } from "../../durable/pair/object.ts";
import { api, balance, credit, drainPair, makeUser, units } from "./helpers.ts";
import { BTC, USDT, buy, sell, trader } from "./spot-fixtures.ts";

export const stubOf = (pairId: number) => env.PAIR.get(env.PAIR.idFromName(`pair:${pairId}`));

/** A verified user with USDT in the lever account. */
export const leverUser = (usdt = "100") => makeUser({ verified: 2, balances: [{ currencyId: USDT, units: units(usdt), account: "lever" }] });

/**
 * Sets a pair's index to `price` (2 decimals): every resting order of the pair is cancelled and a
 * fresh market maker quotes price − 0.01 / price + 0.01. Nothing trades, so the index is the mid.
 */
export async function setIndex(price: string, pairId = 1, currencyId = BTC): Promise<void> {
  await drainPair(pairId);
  const { results } = await env.DB.prepare("SELECT id, user_id FROM spot_orders WHERE pair_id = ? AND status IN (0, 1)").bind(pairId).all<{ id: number; user_id: number }>();
  for (const o of results) await stubOf(pairId).cancel(pairId, o.id, o.user_id);
  await drainPair(pairId);
  const mm = await trader("1000000", currencyId === BTC ? "100" : "0");
  if (currencyId !== BTC) {
    await credit(`test-mm:${mm.id}:${currencyId}`, mm.id, currencyId, units("100"));
  }
  const cents = units(price, 2);
  const fmt = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, "0")}`;
  expect((await buy(mm.token, { price: fmt(cents - 1n), num: currencyId === BTC ? "1" : "10", currency_id: currencyId })).body.type).toBe("ok");
  expect((await sell(mm.token, { price: fmt(cents + 1n), num: currencyId === BTC ? "1" : "10", currency_id: currencyId })).body.type).toBe("ok");
}

/** Makes the pair's sweep due now and runs its alarm (as the scheduler would within a second). */
export async function sweepNow(pairId = 1): Promise<void> {
  await runInDurableObject(stubOf(pairId), async (_obj: PairDurableObject, state) => {
    state.storage.sql.exec("INSERT INTO schedule (kind, due, rev) VALUES ('sweep', 1, 0) ON CONFLICT (kind) DO UPDATE SET due = 1, rev = rev + 1");
  });
  await runDurableObjectAlarm(stubOf(pairId));
}

/** A position's D1 row. */
export const positionRow = (id: number) => env.DB.prepare("SELECT * FROM lever_positions WHERE id = ?").bind(id).first<Record<string, number | string | null>>();

/** A balance as [available, frozen]: a user's lever account, or a system account's change account. */
export function lever(userId: number, currencyId = USDT): Promise<[bigint, bigint]> {
  return balance(userId, currencyId, userId > 0 ? "lever" : "change");
}

/** The index GET /api/lever/deal shows for a coin now (null without one). */
export async function dealIndex(currencyId = BTC): Promise<string | null> {
  return ((await api(`/lever/deal?currency_id=${currencyId}&legal_id=${USDT}`)).body.message as { index_price: string | null }).index_price;
}

/** Opens a position; a market open confirms the index the deal shows now unless the body names one. */
export async function open(token: string, body: Record<string, unknown>) {
  const full: Record<string, unknown> = { currency_id: BTC, legal_id: USDT, type: 1, share: 10, multiple: 10, ...body };
  if (full.target_price === undefined && !("index_price" in body)) full.index_price = (await dealIndex(Number(full.currency_id))) ?? undefined;
  return api("/lever/submit", { token, body: full });
}
