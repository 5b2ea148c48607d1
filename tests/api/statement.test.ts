/**
 * The statement and the holds (issue #26): a new user's money moves in every common way (a
 * deposit, two transfers, a spot fill, a seconds contract, a vote, a withdrawal) and the statement
 * lists each movement once, its amounts add up to the balances, each line's balance after follows
 * from the one before, and the holds explain every frozen unit; the spot screen's "In orders"
 * counts spot orders only.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, balancesOf, drainPair, makeUser, reconcileNow, seedSpotPair, statementLineIds, type TestUser } from "./helpers.ts";
import { BTC, buy, PAIR, sell, trader, USDT } from "./spot-fixtures.ts";
import { expireNow, settled, submit, twoSidedBook } from "./seconds-fixtures.ts";
import { ABC_CARD, FUND_PASSWORD, fundTreasury, makeOperator, seedWalletCurrencies, u8, uploadImage } from "./wallet-fixtures.ts";

beforeAll(async () => {
  await seedWalletCurrencies();
  await seedSpotPair();
  await fundTreasury(USDT, u8("1000000"));
  await twoSidedBook("100", "102");
});

/** A signed decimal string at scale 8 as minimal units. */
const signed = (s: string): bigint => (s.startsWith("-") ? -u8(s.slice(1)) : u8(s));

interface Line {
  id: string;
  kind: string;
  currency_id: number;
  currency: string;
  account: string;
  amount: string;
  held: string;
  balance_after: string;
  held_after: string;
  time: string;
  ref: { type: string; id: number | null };
}

/** Every line of a user's statement, page by page (small pages, so paging is part of what is checked). */
async function wholeStatement(user: TestUser, query = "", limit = 3): Promise<Line[]> {
  const lines: Line[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const r: { body: any } = await api(`/wallet/statement?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`, { token: user.token });
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    lines.push(...(r.body.message.lines as Line[]));
    cursor = r.body.message.next;
    if (cursor === null) return lines;
  }
  throw new Error("statement never ended");
}

function expectOk(r: { body: { type: string } }) {
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
}

/** A verified user with a fund password and a bank card: ready to deposit, trade and withdraw. */
async function newcomer(): Promise<TestUser> {
  const user = await makeUser({ verified: 2 });
  expectOk(await api("/user/fund_password", { token: user.token, body: { fund_password: FUND_PASSWORD, re_fund_password: FUND_PASSWORD, login_password: user.password } }));
  expectOk(await api("/user/cash_save", { token: user.token, body: { real_name: "Li Lei", bank_account: ABC_CARD, bank_name: "", bank_branch: "Main" } }));
  return user;
}

/** Runs the whole story for one new user; answers the records it made. */
async function story(user: TestUser) {
  const op = await makeOperator();
  // 1. a deposit of 1,000 USDT, credited by an operator
  const pic = await uploadImage(user);
  const claim = await api("/wallet/charge_req", { token: user.token, body: { currency: USDT, type: "TRC20", acc: "DEMO-usdt-trc20-address-not-real-do-not-send", amount: "1000", pic, hash: "abc" } });
  expect(claim.body.type, JSON.stringify(claim.body)).toBe("ok");
  const depositId = claim.body.message.id as number;
  expectOk(await api(`/admin/deposits/${depositId}/approve`, { token: op.token, body: { reason: "seen on chain" } }));
  // 2. two transfers: 100 to the seconds account, 20 back
  expectOk(await api("/wallet/change", { token: user.token, body: { number: "100", from_field: "change", to_field: "micro", currency_id: USDT } }));
  expectOk(await api("/wallet/change", { token: user.token, body: { number: "20", from_field: "micro", to_field: "change", currency_id: USDT } }));
  // 3. a spot fill: 0.05 BTC bought at 101 from a seller inside the spread
  const seller = await trader("1", "1");
  expectOk(await sell(seller.token, { price: "101", num: "0.05" }));
  const bought = await buy(user.token, { price: "101", num: "0.05" });
  expect(bought.body.type, JSON.stringify(bought.body)).toBe("ok");
  await drainPair(PAIR);
  // ... and a buy resting below the book (inside the 10 % price band), so a spot order holds something
  const resting = await buy(user.token, { price: "95", num: "0.1" });
  expectOk(resting);
  await drainPair(PAIR);
  // 4. a seconds contract of 10 USDT, run to its end
  const contract = await submit(user.token, { type: 1, seconds: 30, number: "10" });
  expect(contract.body.type, JSON.stringify(contract.body)).toBe("ok");
  await expireNow(PAIR, contract.body.message.id);
  await settled(PAIR, contract.body.message.id);
  // 5. a vote: the round's 10 USDT held
  const now = Date.now();
  const round = await api("/admin/vote/rounds", {
    token: op.token,
    body: { title: "Next listing", currency_id: USDT, min_balance: "10", starts_at: now - 60_000, ends_at: now + 3600_000, candidates: [{ name: "Alpha Coin", symbol: "ALP" }, { name: "Gamma Coin", symbol: "GAM" }], reason: "weekly" },
  });
  expect(round.body.type, JSON.stringify(round.body)).toBe("ok");
  expectOk(await api("/vote/cast", { token: user.token, body: { candidate_id: round.body.message.candidates[0].id } }));
  // 6. a withdrawal of 50 USDT (waiting for review: amount and fee held)
  const out = await api("/wallet/out", { token: user.token, body: { currency: USDT, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "50", type: 1, password: FUND_PASSWORD } });
  expect(out.body.type, JSON.stringify(out.body)).toBe("ok");
  return { depositId, orderId: Number(resting.body.message.order_id), contractId: contract.body.message.id as number, roundId: round.body.message.id as number, withdrawalId: out.body.message.id as number };
}

describe("a new user's statement", () => {
  it("lists each movement once, sums to the balances per currency and account, and chains every balance after", async () => {
    const user = await newcomer();
    const made = await story(user);
    const lines = await wholeStatement(user);

    // Each movement once: one line per movement, currency and account, none repeated across pages.
    expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);
    expect(lines.map((l) => l.id).sort()).toEqual((await statementLineIds(user.id)).sort());

    const kinds = lines.map((l) => l.kind);
    for (const k of ["deposit", "spot_freeze", "spot", "micro_open", "micro_settle", "vote_hold", "withdrawal_freeze"]) expect(kinds).toContain(k);
    expect(kinds.filter((k) => k === "transfer")).toHaveLength(4); // two transfers, each out of one account and into another
    expect(lines.find((l) => l.kind === "deposit")).toMatchObject({ amount: "1000.00000000", held: "0.00000000", ref: { type: "deposit", id: made.depositId }, account: "change", currency: "USDT" });
    expect(lines.find((l) => l.kind === "vote_hold")).toMatchObject({ amount: "0.00000000", held: "10.00000000", ref: { type: "vote", id: made.roundId } });
    // In objects mode the settle line names the first of the user's contracts its chunk settled (here the one).
    expect(lines.find((l) => l.kind === "micro_settle")!.ref).toEqual({ type: "seconds", id: made.contractId });
    // The withdrawal's freeze names its withdrawal record, the one the holds list shows.
    expect(lines.find((l) => l.kind === "withdrawal_freeze")!.ref).toEqual({ type: "withdrawal", id: made.withdrawalId });
    const btc = lines.find((l) => l.kind === "spot" && l.currency === "BTC")!;
    expect(btc.ref).toEqual({ type: "spot_pair", id: PAIR });
    expect(signed(btc.amount)).toBeGreaterThan(0n); // 0.05 BTC less the fee
    for (const l of lines) expect(l.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    // Summed per currency and account, the amounts are the balance (available + frozen), the held parts the frozen part.
    const balances = await balancesOf(user.id);
    expect(balances.length).toBeGreaterThanOrEqual(3);
    for (const b of balances) {
      const mine = lines.filter((l) => l.currency_id === b.currencyId && l.account === b.account);
      expect(mine.reduce((s, l) => s + signed(l.amount), 0n), `${b.currencyId} ${b.account}`).toBe(b.available + b.frozen);
      expect(mine.reduce((s, l) => s + signed(l.held), 0n)).toBe(b.frozen);
      // Newest first: the newest line's balance after is today's balance, each older one is its newer neighbour's less that neighbour's amount, and the oldest starts from zero.
      expect(signed(mine[0]!.balance_after)).toBe(b.available + b.frozen);
      expect(signed(mine[0]!.held_after)).toBe(b.frozen);
      for (let i = 1; i < mine.length; i++) {
        expect(signed(mine[i]!.balance_after)).toBe(signed(mine[i - 1]!.balance_after) - signed(mine[i - 1]!.amount));
        expect(signed(mine[i]!.held_after)).toBe(signed(mine[i - 1]!.held_after) - signed(mine[i - 1]!.held));
      }
      const oldest = mine[mine.length - 1]!;
      expect(signed(oldest.balance_after) - signed(oldest.amount)).toBe(0n);
    }

    // The same lines whatever the page size.
    expect((await wholeStatement(user, "", 100)).map((l) => [l.id, l.balance_after])).toEqual(lines.map((l) => [l.id, l.balance_after]));
  });

  it("explains every frozen unit in the holds, and counts only spot orders as 'In orders'", async () => {
    const user = await newcomer();
    const made = await story(user);
    const r = await api("/wallet/holds", { token: user.token });
    expect(r.body.type).toBe("ok");
    const groups = r.body.message.groups as { currency_id: number; account: string; frozen: string; holds: { purpose: string; amount: string; ref: { type: string; id: number | null }; label: string }[] }[];
    const frozen = (await balancesOf(user.id)).filter((b) => b.frozen !== 0n);
    expect(groups.map((g) => `${g.currency_id}|${g.account}|${u8(g.frozen)}`).sort()).toEqual(frozen.map((f) => `${f.currencyId}|${f.account}|${f.frozen}`).sort());
    for (const g of groups) {
      expect(g.holds.map((h) => h.purpose)).not.toContain("unexplained");
      expect(g.holds.reduce((s, h) => s + u8(h.amount), 0n)).toBe(u8(g.frozen));
    }
    const usdt = groups.find((g) => g.currency_id === USDT && g.account === "change")!;
    expect(usdt.holds).toEqual(
      expect.arrayContaining([
        { purpose: "spot_order", amount: "9.50000000", ref: { type: "spot_order", id: made.orderId }, label: "BTC/USDT" },
        { purpose: "vote", amount: "10.00000000", ref: { type: "vote", id: made.roundId }, label: "Next listing" },
        expect.objectContaining({ purpose: "withdrawal", ref: { type: "withdrawal", id: made.withdrawalId } }),
      ]),
    );
    expect((await reconcileNow()).differences).toEqual([]);

    // The spot screen: frozen counts every hold, "In orders" only the resting buy.
    const spot = await api(`/transaction/balance?currency_id=${BTC}&legal_id=${USDT}`, { token: user.token });
    expect(spot.body.message).toMatchObject({ order_legal: "9.50000000", order_currency: "0.00000000", lock_legal: usdt.frozen });
  });

  it("shows 0 in orders when only a vote holds money", async () => {
    const user = await makeUser({ verified: 2, balances: [{ currencyId: USDT, units: u8("100") }] });
    const op = await makeOperator();
    const now = Date.now();
    const round = await api("/admin/vote/rounds", {
      token: op.token,
      body: { title: "Only a vote", currency_id: USDT, min_balance: "30", starts_at: now - 60_000, ends_at: now + 3600_000, candidates: [{ name: "Beta Coin", symbol: "BET" }, { name: "Delta Coin", symbol: "DEL" }], reason: "weekly" },
    });
    expectOk(await api("/vote/cast", { token: user.token, body: { candidate_id: round.body.message.candidates[0].id } }));
    const spot = await api(`/transaction/balance?currency_id=${BTC}&legal_id=${USDT}`, { token: user.token });
    expect(spot.body.message).toMatchObject({ lock_legal: "30.00000000", order_legal: "0.00000000" });
  });
});

describe("reading the statement", () => {
  it("filters by currency and account, and shows nobody else's movements", async () => {
    const a = await makeUser({ balances: [{ currencyId: USDT, units: u8("40") }, { currencyId: BTC, units: u8("1") }] });
    const b = await makeUser({ balances: [{ currencyId: USDT, units: u8("7") }] });
    expectOk(await api("/wallet/change", { token: a.token, body: { number: "15", from_field: "change", to_field: "micro", currency_id: USDT } }));

    const micro = await wholeStatement(a, `&currency_id=${USDT}&account=micro`);
    expect(micro.map((l) => [l.kind, l.amount, l.balance_after])).toEqual([["transfer", "15.00000000", "15.00000000"]]);
    expect(micro[0]!.ref).toEqual({ type: "transfer", id: null });
    const usdt = await wholeStatement(a, `&currency_id=${USDT}`);
    expect(usdt.map((l) => [l.account, l.amount, l.balance_after])).toEqual([
      ["micro", "15.00000000", "15.00000000"],
      ["change", "-15.00000000", "25.00000000"],
      ["change", "40.00000000", "40.00000000"],
    ]);
    const theirs = await wholeStatement(b);
    expect(theirs.map((l) => l.amount)).toEqual(["7.00000000"]);
    // Dates: nothing before tomorrow's start, everything up to the end of today (UTC).
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const today = new Date().toISOString().slice(0, 10);
    expect(await wholeStatement(a, `&from=${tomorrow}`)).toEqual([]);
    expect(await wholeStatement(a, `&to=${today}`)).toHaveLength(4);
  });

  it("refuses bad input with a translated 400 and needs a login", async () => {
    const a = await makeUser();
    for (const q of ["currency_id=abc", "account=savings", "from=yesterday", "cursor=-1", "cursor=0x10", "limit=1000", "to=2026-13-45T99"]) {
      const r = await api(`/wallet/statement?${q}`, { token: a.token });
      expect(r.status, q).toBe(400);
      expect(r.body.type).toBe("error");
    }
    const zh = await api("/wallet/statement?account=savings", { token: a.token, lang: "zh" });
    expect(zh.body.message).not.toBe((await api("/wallet/statement?account=savings", { token: a.token })).body.message);
    expect((await api("/wallet/statement")).body.type).toBe("999");
    expect((await api("/wallet/holds")).body.type).toBe("999");
  });
});
