/**
 * The dev clock on a started exchange (issue #27 §5), as an outside tester would use it after
 * `npm start`: the seeded demo accounts and products, DEV_CLOCK=on, only the public API. demo1
 * subscribes to the seeded savings product, buys the seeded cover, buys mining shares and opens a
 * seconds contract; the clock moves a day ahead: the contract settles at once (its pair object
 * re-arms on the move), the next cron puts the cover in force, the hour the shares
 * held is recorded and approved by two operators and paid to demo1 once, and a spot order still
 * trades. The savings position bought before the move has held one day: exactly one day of
 * interest, however often the cron runs; a second day moved pays exactly one more.
 */
import { describe, expect, it } from "vitest";
import { server, useServer } from "./exchange.ts";

const HOUR = 3_600_000;
const DAY_S = 86_400;

// A private Worker: the clock this file moves must not move under any other file.
useServer({ DEV_CLOCK: "on" });

async function call(path: string, token = "", body?: unknown): Promise<any> {
  const res = await fetch(`${server.baseUrl}/api${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { lang: "en", "content-type": "application/json", ...(token ? { authorization: token } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { type?: string; status?: number; message?: unknown; data?: unknown };
  if (json.type !== "ok" && json.status !== 1) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json.message ?? json.data;
}
async function login(account: string, password: string): Promise<string> {
  return ((await call("/user/login", "", { user_string: account, password, type: 1 })) as { token: string }).token;
}
/** "0.1369863" as 8-decimal units, exactly. */
const units = (v: string) => {
  const [i = "0", f = ""] = v.split(".");
  return BigInt(i + f.padEnd(8, "0").slice(0, 8));
};

describe("the dev clock on a started exchange", () => {
  it("moves a day: the cover is in force, the held hour is paid once, an open contract settles at once, savings accrue exactly one day; a second day one more", async () => {
    const demo1 = await login("demo1@exchange.test", "Demo1234");
    const demo2 = await login("demo2@exchange.test", "Demo1234");
    const op1 = await login("operator@exchange.test", "Operator1234");
    const op2 = await login("operator2@exchange.test", "Operator1234");
    const start = await call("/dev/clock");

    // A BTC/USDT book from demo2 (index 60,500), so a contract has an entry and a spot order a counterparty.
    await call("/transaction/walletIn", demo2, { currency_id: 1, legal_id: 3, price: "60000", num: "0.01", mode: 2 });
    await call("/transaction/walletOut", demo2, { currency_id: 1, legal_id: 3, price: "61000", num: "0.01", mode: 2 });

    // demo1: savings (the seeded 30-day product at 5 %), cover of the seconds account, 2 mining shares, a 60 s contract.
    const position = await call("/earn/subscribe", demo1, { product_id: 1, amount: "1000" });
    await call("/wallet/change", demo1, { number: "1000", from_field: "change", to_field: "micro", currency_id: 3 });
    const plan = ((await call("/insurance/plans")).plans as { id: number; name: string }[]).find((p) => p.name === "Seconds account cover")!;
    const cover = await call("/insurance/buy", demo1, { plan_id: plan.id, amount: "1000" });
    expect(cover.status).toBe("pending");
    const mining = ((await call("/mining/plans")) as { id: number; worker: string }[]).find((p) => p.worker === "honestexchange.s19xp-01")!;
    await call("/mining/buy", demo1, { plan_id: mining.id, shares: 2 });
    const H = Math.ceil((start.now + 1) / HOUR) * HOUR;
    const contract = await call("/microtrade/submit", demo1, { match_id: 1, currency_id: 3, type: 1, seconds: 60, number: "10" });
    expect(contract.status).toBe(1);

    // A day ahead.
    const moved = await call("/dev/clock", "", { advance_s: DAY_S });
    expect(moved.offset_s).toBe(start.offset_s + DAY_S);
    expect(moved.now - moved.real_now).toBe(moved.offset_s * 1000);

    // The contract's end was skipped: its pair object settles it now, not a day of real time later, and once.
    await expect.poll(async () => (await call(`/microtrade/order?id=${contract.id}`, demo1)).status).toBe(3);
    const settled = await call(`/microtrade/order?id=${contract.id}`, demo1);
    expect(settled.end_at).toBeLessThan(moved.now);

    const ran = await call("/dev/cron", "", { cron: "* * * * *" });
    expect(ran).toMatchObject({ cron: "* * * * *", failed: 0 });
    expect(ran.now).toBeGreaterThanOrEqual(moved.now);

    // The cover is in force.
    const covers = (await call("/insurance/my", demo1)).data as { id: number; status: string }[];
    expect(covers.find((c) => c.id === cover.id)!.status).toBe("active");

    // The hour H has ended: recorded by one operator, approved by the other, paid by the next hourly run, once.
    const rec = await call("/admin/mining/payouts", op1, { plan_id: mining.id, hour: H, amount: "0.01", evidence: "0xdevclocke2e", reason: "from the pool's payout page" });
    await call("/admin/mining/payouts/approve", op2, { id: rec.id, reason: "checked against the pool" });
    await call("/dev/cron", "", { cron: "0 * * * *" });
    await call("/dev/cron", "", { cron: "* * * * *" });
    // 0.01 × 2 / 1000 = 0.00002 BTC, minus the 2 % fee.
    const my = await call("/mining/my", demo1);
    expect(my.payouts).toEqual([expect.objectContaining({ plan_id: mining.id, hour: H, shares: 2, amount: "0.0000196" })]);

    // A spot order still books, trades and reaches the balances (the pair object's alarms follow the clock).
    const bought = await call("/transaction/walletIn", demo1, { currency_id: 1, legal_id: 3, price: "61000", num: "0.001", mode: 2 });
    expect(bought.status).toBe("filled");

    // Savings: the subscription bought before the move has held one day: exactly one day of
    // interest (1,000 USDT at 5 % a year: 1000 × 500 / 3,650,000 = 0.1369863 USDT, rounded down).
    const day = (units("1000") * 500n) / 3_650_000n;
    const pos = async () => ((await call("/earn/positions", demo1)) as { id: number; days: number; earned: string }[]).find((p) => p.id === position.id)!;
    const one = await pos();
    expect(one.days).toBe(1);
    expect(units(one.earned)).toBe(day);
    await call("/dev/cron", "", { cron: "0 0 * * *" });
    expect(await pos()).toMatchObject({ days: 1, earned: one.earned });
    // A second day moved: exactly one more day.
    await call("/dev/clock", "", { advance_s: DAY_S });
    await call("/dev/cron", "", { cron: "* * * * *" });
    await call("/dev/cron", "", { cron: "0 0 * * *" });
    const two = await pos();
    expect(two.days).toBe(2);
    expect(units(two.earned)).toBe(2n * day);
  });
});
