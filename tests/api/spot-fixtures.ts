/** Shared setup of the spot tests (API and Durable Object): one BTC/USDT pair, funded traders, order helpers. */
import { env } from "cloudflare:test";
import { api, drainPair, makeUser, units } from "./helpers.ts";

export const BTC = 1;
export const USDT = 3;
/** The pair seedSpotPair() creates by default. */
export const PAIR = 1;

/** A verified user with USDT and BTC in the spot account. */
export const trader = (usdt = "10000", btc = "1") =>
  makeUser({ verified: 2, balances: [{ currencyId: USDT, units: units(usdt) }, { currencyId: BTC, units: units(btc) }] });

export const buy = (token: string, body: Record<string, unknown>) =>
  api("/transaction/walletIn", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, ...body } });
export const sell = (token: string, body: Record<string, unknown>) =>
  api("/transaction/walletOut", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, ...body } });

export const pairStub = () => env.PAIR.get(env.PAIR.idFromName(`pair:${PAIR}`));

/** Cancels every open order so each test starts from an empty book. */
export async function clearBook() {
  await drainPair(PAIR);
  const { results } = await env.DB.prepare("SELECT id, user_id FROM spot_orders WHERE status IN (0, 1)").all<{ id: number; user_id: number }>();
  for (const o of results) await pairStub().cancel(PAIR, o.id, o.user_id);
  await drainPair(PAIR);
}
