/** Vote test helpers shared by the D1 path (vote.test.ts) and the account objects' (tests/objects/vote-objects.test.ts). */
import { expect } from "vitest";
import { api, type TestUser } from "./helpers.ts";
import { USDT } from "./wallet-fixtures.ts";

export const HOUR = 3600_000;

/** An operator opens a round with three candidates, voting open now for an hour unless told otherwise. */
export async function openRound(op: TestUser, over: Record<string, unknown> = {}) {
  const now = Date.now();
  const r = await api("/admin/vote/rounds", {
    token: op.token,
    body: {
      title: "Next listing",
      currency_id: USDT,
      min_balance: "10",
      starts_at: now - 60_000,
      ends_at: now + HOUR,
      candidates: [
        { name: "Alpha Coin", symbol: "alp", description: "A coin", link: "https://alpha.example" },
        { name: "Beta Coin", symbol: "BET" },
        { name: "Gamma Coin", symbol: "GAM" },
      ],
      reason: "weekly round",
      ...over,
    },
  });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message as { id: number; candidates: { id: number; symbol: string; votes: number }[]; min_balance: string; ends_at: number };
}
