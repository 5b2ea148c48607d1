/**
 * Property: whatever a user does — deposits approved or rejected, transfers between accounts,
 * flash-exchange conversions, withdrawals approved and sent, rejected, failed on chain or left
 * pending — the books stay right: the reconciliation finds no difference (per-currency ledger
 * sums, balances = ledger, balanced movements, no negative balance, frozen = open holds), and the
 * user's balances equal a simple model kept beside the API calls.
 */
import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { formatUnits } from "../../schemas/money.ts";
import { api, balance, reconcileNow, type TestUser } from "./helpers.ts";
import { BTC, FUND_PASSWORD, fundTreasury, makeOperator, makeWithdrawer, seedWalletCurrencies, setPrice, u8, uploadImage, USDT } from "./wallet-fixtures.ts";

const PRICE = { num: 250005n, dec: 1 }; // 25000.5 USDT per BTC
const FEES = { [BTC]: u8("0.0005"), [USDT]: u8("1") } as Record<number, bigint>;
const MIN = { [BTC]: u8("0.001"), [USDT]: u8("10") } as Record<number, bigint>;
const MAX = { [BTC]: u8("100"), [USDT]: u8("1000000") } as Record<number, bigint>;
const ACCOUNTS = ["change", "micro", "legal"] as const;
const ADDRESSES = { [BTC]: "DEMO-btc-address-not-real-do-not-send", [USDT]: "DEMO-usdt-trc20-address-not-real-do-not-send" } as Record<number, string>;

/** An amount: absolute, or a per-mille share of what the source holds (so most calls can succeed). */
type Amount = { abs: bigint } | { permille: number };
type Op =
  | { kind: "deposit"; currency: number; units: bigint; approve: boolean }
  | { kind: "transfer"; currency: number; amount: Amount; from: (typeof ACCOUNTS)[number]; to: (typeof ACCOUNTS)[number] }
  | { kind: "convert"; toUsdt: boolean; amount: Amount }
  | { kind: "withdraw"; currency: number; amount: Amount; outcome: "sent" | "rejected" | "chain_failure" | "pending" };

const currency = fc.constantFrom(BTC, USDT);
/** Amounts from dust to more than anyone holds, so both success and refusal paths run. */
const units = fc.oneof(fc.bigInt(1n, u8("0.01")), fc.bigInt(u8("0.01"), u8("50")), fc.bigInt(u8("50"), u8("20000")));
const amount: fc.Arbitrary<Amount> = fc.oneof(
  { arbitrary: fc.record({ permille: fc.integer({ min: 1, max: 1100 }) }), weight: 4 },
  { arbitrary: fc.record({ abs: units }), weight: 1 },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("deposit" as const), currency, units, approve: fc.boolean() }),
  fc.record({ kind: fc.constant("transfer" as const), currency, amount, from: fc.constantFrom(...ACCOUNTS), to: fc.constantFrom(...ACCOUNTS) }),
  fc.record({ kind: fc.constant("convert" as const), toUsdt: fc.boolean(), amount }),
  fc.record({ kind: fc.constant("withdraw" as const), currency, amount, outcome: fc.constantFrom("sent" as const, "rejected" as const, "chain_failure" as const, "pending" as const) }),
);

const resolve = (a: Amount, held: bigint) => ("abs" in a ? a.abs : (held * BigInt(a.permille)) / 1000n + 1n);

class Model {
  private b = new Map<string, { a: bigint; f: bigint }>();
  get(c: number, acct: string) {
    return this.b.get(`${c}|${acct}`) ?? { a: 0n, f: 0n };
  }
  add(c: number, acct: string, da: bigint, df: bigint) {
    const v = this.get(c, acct);
    this.b.set(`${c}|${acct}`, { a: v.a + da, f: v.f + df });
  }
  entries() {
    return [...this.b.entries()];
  }
}

let operator: TestUser;
/** Deposits above the two-operator limit are credited on a second, different operator's approval. */
let secondOperator: TestUser;
/** How often each successful path ran: the property is only worth something if they all do. */
const counts = new Map<string, number>();
const tally = (what: string) => void counts.set(what, (counts.get(what) ?? 0) + 1);

beforeAll(async () => {
  await seedWalletCurrencies();
  await setPrice(BTC, "25000.5");
  await fundTreasury(USDT, u8("50000000"));
  await fundTreasury(BTC, u8("2000"));
  operator = await makeOperator();
  secondOperator = await makeOperator();
});

async function run(user: TestUser, pic: string, model: Model, o: Op) {
  const t = user.token;
  if (o.kind === "deposit") {
    const claim = await api("/wallet/charge_req", { token: t, body: { currency: o.currency, acc: ADDRESSES[o.currency], amount: formatUnits(o.units, 8), pic } });
    expect(claim.body.type, JSON.stringify(claim.body)).toBe("ok");
    const id = claim.body.message.id;
    const d = await api(`/admin/deposits/${id}/${o.approve ? "approve" : "reject"}`, { token: operator.token, body: { reason: "property test" } });
    expect(d.body.type).toBe("ok");
    if (d.body.message.awaiting_second_approval) {
      const second = await api(`/admin/deposits/${id}/approve`, { token: secondOperator.token, body: { reason: "property test" } });
      expect(second.body.message).toMatchObject({ status: 1 });
      tally("deposit approved by two operators");
    }
    if (o.approve) model.add(o.currency, "change", o.units, 0n);
    return tally(`deposit ${o.approve ? "approved" : "rejected"}`);
  }
  if (o.kind === "transfer") {
    const units = resolve(o.amount, model.get(o.currency, o.from).a);
    const r = await api("/wallet/change", { token: t, body: { number: formatUnits(units, 8), from_field: o.from, to_field: o.to, currency_id: o.currency } });
    if (o.from === o.to) return expect(r.body.code).toBe("same_account");
    if (model.get(o.currency, o.from).a < units) return expect(r.body.code).toBe("insufficient_balance");
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    model.add(o.currency, o.from, -units, 0n);
    model.add(o.currency, o.to, units, 0n);
    return tally("transfer");
  }
  if (o.kind === "convert") {
    const [from, to] = o.toUsdt ? [BTC, USDT] : [USDT, BTC];
    const units = resolve(o.amount, model.get(from, "change").a);
    const r = await api("/user/shandui_sub", { token: t, body: { from_currency: from, to_currency: to, money: formatUnits(units, 8) } });
    if (r.body.type !== "ok") {
      expect(["below_min", "above_max", "insufficient_balance"]).toContain(r.body.code);
      if (r.body.code === "insufficient_balance") expect(model.get(from, "change").a).toBeLessThan(units);
      return;
    }
    const received = u8(r.body.message.money2);
    // Received never exceeds the exact value at the last price, and loses at most the fee + 1 unit.
    const exact = o.toUsdt ? (units * PRICE.num) / 10n ** BigInt(PRICE.dec) : (units * 10n ** BigInt(PRICE.dec)) / PRICE.num;
    expect(received).toBeLessThanOrEqual(exact);
    expect(received).toBeGreaterThanOrEqual((exact * 998n) / 1000n - 1n);
    model.add(from, "change", -units, 0n);
    model.add(to, "change", received, 0n);
    return tally("conversion");
  }
  const fee = FEES[o.currency]!;
  const units = resolve(o.amount, model.get(o.currency, "change").a);
  const r = await api("/wallet/out", { token: t, body: { currency: o.currency, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: formatUnits(units, 8), type: 1, password: FUND_PASSWORD } });
  if (units < MIN[o.currency]!) return expect(r.body.code).toBe("below_min");
  if (units > MAX[o.currency]!) return expect(r.body.code).toBe("above_max");
  if (model.get(o.currency, "change").a < units + fee) return expect(r.body.code).toBe("insufficient_balance");
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  const id = r.body.message.id;
  const total = units + fee;
  model.add(o.currency, "change", -total, total);
  tally(`withdrawal ${o.outcome}`);
  const act = (a: string) => api(`/admin/withdrawals/${id}/${a}`, { token: operator.token, body: { reason: "property test", txid: "propertytest1" } });
  if (o.outcome === "pending") return;
  if (o.outcome === "rejected") {
    expect((await act("reject")).body.type).toBe("ok");
    model.add(o.currency, "change", total, -total);
    return;
  }
  expect((await act("approve")).body.type).toBe("ok");
  if (o.outcome === "sent") {
    expect((await act("chain-success")).body.type).toBe("ok");
    model.add(o.currency, "change", 0n, -total);
  } else {
    expect((await act("chain-failure")).body.type).toBe("ok");
    model.add(o.currency, "change", total, -total);
  }
}

describe("the ledger under any sequence of wallet operations", () => {
  it(
    "keeps every invariant and matches the model after each sequence",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
          const user = await makeWithdrawer();
          const pic = await uploadImage(user);
          const model = new Model();
          // Every run starts with money on the change account, so most operations can succeed.
          await run(user, pic, model, { kind: "deposit", currency: BTC, units: u8("4"), approve: true });
          await run(user, pic, model, { kind: "deposit", currency: USDT, units: u8("30000"), approve: true });
          for (const o of ops) await run(user, pic, model, o);

          const report = await reconcileNow();
          expect(report.differences).toEqual([]);
          for (const [key, v] of model.entries()) {
            const [c, acct] = key.split("|");
            expect(await balance(user.id, Number(c), acct), key).toEqual([v.a, v.f]);
            expect(v.a >= 0n && v.f >= 0n).toBe(true);
          }
          const sums = await env.DB.prepare("SELECT currency_id, SUM(d_available + d_frozen) s FROM ledger GROUP BY currency_id").all<{ currency_id: number; s: number }>();
          for (const s of sums.results) expect(s.s, `currency ${s.currency_id}`).toBe(0);
        }),
        {
          numRuns: 25,
          endOnFailure: true,
          // One sequence that walks every path for sure; the random runs explore around it.
          examples: [
            [
              [
                { kind: "deposit", currency: USDT, units: u8("100"), approve: false },
                { kind: "transfer", currency: USDT, amount: { permille: 100 }, from: "change", to: "micro" },
                { kind: "convert", toUsdt: true, amount: { permille: 100 } },
                { kind: "withdraw", currency: USDT, amount: { abs: u8("20") }, outcome: "sent" },
                { kind: "withdraw", currency: BTC, amount: { abs: u8("0.01") }, outcome: "rejected" },
                { kind: "withdraw", currency: USDT, amount: { abs: u8("15") }, outcome: "chain_failure" },
                { kind: "withdraw", currency: BTC, amount: { abs: u8("0.02") }, outcome: "pending" },
              ],
            ],
          ],
        },
      );
      for (const path of ["deposit rejected", "transfer", "conversion", "withdrawal sent", "withdrawal rejected", "withdrawal chain_failure", "withdrawal pending"]) {
        expect(counts.get(path) ?? 0, `${path} never ran`).toBeGreaterThan(0);
      }
    },
    600_000,
  );
});
