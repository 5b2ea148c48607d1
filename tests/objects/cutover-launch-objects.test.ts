/**
 * A launch published before the cut-over (ACCOUNTS=objects): its supply was reserved in D1's
 * treasury (frozen); after the cut-over its allocations spend `launch_reserve:{id}:{published_at}`
 * in the treasury shard of its id and its finish releases the rest of that hold, so the cut-over must
 * open the reserve as that hold there (found by the crash run over launches, session 16: the reserve
 * had become a `migrated` hold split over every shard, each allocation's house leg was refused — the
 * user got the tokens, the treasury never gave them — and the finish's release too, leaving the
 * reserve frozen for good).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { shardOf, systemStub } from "../../worker/lib/accounts.ts";
import { publishProject } from "../../worker/domain/launch/console.ts";
import { settleProject } from "../../worker/domain/launch/settle.ts";
import { openSystemAccounts } from "../../worker/domain/ledger/account-objects.ts";
import { api, type TestUser } from "../api/helpers.ts";
import { fundTreasury, makeOperator, seedWalletCurrencies, u8 } from "../api/wallet-fixtures.ts";
import { USDT } from "./fixtures.ts";
import { expectClean, objectUser, openHolds, settled, shardBalance, TREASURY, unsentLegs } from "./products-fixtures.ts";

let operator: TestUser;

beforeAll(async () => {
  await seedWalletCurrencies();
  operator = await makeOperator();
});

describe("a launch published before the cut-over", () => {
  it("has its reserve opened as the project's own hold in its shard, which its allocations spend and its finish releases", async () => {
    const now = Date.now();
    // A new token (scale 4), 1,000 for sale at 0.5 USDT, at most 800 per user, no vesting.
    const create = await api("/admin/launch/projects", {
      token: operator.token,
      body: { title: "Before the cut-over", token_name: "PRECUT", token_scale: 4, prices: [{ currency_id: USDT, price: "0.5" }], supply: "1000", cap: "800", start_at: now - 1000, end_at: now + 60_000, cliff_days: 0, vest_days: 0, vest_steps: 0, reason: "test sale" },
    });
    expect(create.body).toMatchObject({ type: "ok", message: { status: "draft" } });
    const p = create.body.message as { id: number; token_id: number; end_at: number };
    // Funded and published on D1's path: the supply frozen in D1's treasury.
    await fundTreasury(p.token_id, 10_000_000n, { d1: true });
    const d1Path = { ...env, ACCOUNTS: "d1" } as Env;
    await publishProject(d1Path, operator.id, p.id, "published before the cut-over", now);
    const published = await env.DB.prepare("SELECT published_at FROM launch_projects WHERE id = ?").bind(p.id).first<{ published_at: number }>();

    const opened = await openSystemAccounts(env);
    expect(opened.mismatched).toEqual([]);
    const k = shardOf(p.id);
    const reserve = `launch_reserve:${p.id}:${published!.published_at}`;
    expect(await systemStub(env, TREASURY, k).systemHold(TREASURY, k, reserve)).toMatchObject({ amount: 10_000_000n, spent: 0n, released: 0n, open: true });
    expect(await systemStub(env, TREASURY, k).systemHold(TREASURY, k, `migrated:change:${p.token_id}`)).toBeNull();

    // After the cut-over a user commits 100 USDT on the objects (200 tokens of demand); the window ends.
    const user = await objectUser([[USDT, "1000"]]);
    const commit = await api("/launch/commit", { token: user.token, body: { project_id: p.id, currency_id: USDT, amount: "100" } });
    expect(commit.body.type, JSON.stringify(commit.body)).toBe("ok");
    await env.DB.prepare("UPDATE launch_projects SET status = 'allocating' WHERE id = ?").bind(p.id).run();
    expect(await settleProject(env, p.id, p.end_at + 1000, 100)).toEqual({ settled: 1, finished: true });
    expect(await unsentLegs()).toBe(0);

    // The user: 100 USDT spent, 200 tokens locked; the shard: the cost credited, the 200 tokens given from the reserve, the rest released.
    expect(await settled(user.id)).toEqual([
      ["change", USDT, u8("900"), 0n],
      ["change", p.token_id, 0n, 2_000_000n],
    ]);
    expect(await openHolds(user.id)).toEqual([[`launch_locked:${p.id}`, 2_000_000n]]);
    expect(await systemStub(env, TREASURY, k).systemHold(TREASURY, k, reserve)).toMatchObject({ amount: 10_000_000n, spent: 2_000_000n, released: 8_000_000n, open: false });
    expect(await shardBalance(p.id, p.token_id)).toEqual([8_000_000n, 0n]);
    await expectClean();
  });
});
