/**
 * The account object's book (durable/account/book.ts) over node:sqlite, against a model, under
 * seeded schedules of holds, fills, transfers, duplicate deliveries and transactions rolled back at
 * their commit (a crash: the caller retries later). After every step the book equals the model,
 * every notification belongs to money that moved, and a drain that stops and restarts anywhere
 * (re-sending what it had sent) folds into exactly the object's balances.
 */
import { describe, expect, it } from "vitest";
import { AccountBook } from "../../durable/account/book.ts";
import type { AccountBalance } from "../../durable/account/types.ts";
import { Prng } from "../../sim/prng.ts";
import { NodeSql, RolledBack } from "../../sim/sqlite.ts";

type Action =
  | { t: "reserve"; key: string; kind: string; cur: number; amt: bigint }
  | { t: "leg"; key: string; hold: string; spend: bigint; release: bigint | "rest"; credit: { kind: string; cur: number; amt: bigint } }
  | { t: "transfer"; key: string; cur: number; amt: bigint };

const KINDS = ["change", "micro"] as const;
const CURS = [1, 3] as const;

function schedule(seed: number, steps: number) {
  const rng = new Prng(seed);
  const sql = new NodeSql();
  let now = 1_000;
  const book = new AccountBook(sql, { now: () => now });
  // The model: balances, holds (what is left of each), applied keys and notices.
  const bal = new Map<string, { a: bigint; f: bigint }>();
  const at = (kind: string, cur: number) => bal.get(`${kind}:${cur}`) ?? bal.set(`${kind}:${cur}`, { a: 0n, f: 0n }).get(`${kind}:${cur}`)!;
  const holds = new Map<string, { kind: string; cur: number; left: bigint }>();
  const applied = new Set<string>();
  /** Keys refused: a refusal is final for its key (a copy answers refused again). */
  const refused = new Set<string>();
  const notices: string[] = [];
  const sent: Action[] = [];

  book.importOpening([
    { account: "change", currencyId: 3, available: 1_000n, frozen: 0n },
    { account: "change", currencyId: 1, available: 50n, frozen: 0n },
  ]);
  at("change", 3).a = 1_000n;
  at("change", 1).a = 50n;

  const perform = (x: Action): string => {
    const notice = { eventKey: `${x.key}:n`, kind: x.t };
    if (x.t === "reserve") return book.reserve({ forKind: "order", forId: x.key.slice(6), account: x.kind, currencyId: x.cur, amount: x.amt, notice }).result;
    if (x.t === "transfer") return book.transfer({ key: x.key, from: "change", to: "micro", currencyId: x.cur, amount: x.amt, notice });
    return book.resolve({ key: x.key, hold: x.hold, spend: x.spend, release: x.release, credits: [{ account: x.credit.kind, currencyId: x.credit.cur, amount: x.credit.amt }], notice }).result;
  };

  /** What the book must answer, applied to the model when money moves. */
  const expected = (x: Action): string => {
    if (x.t === "reserve") {
      if (holds.has(x.key)) return "exists";
      const b = at(x.kind, x.cur);
      if (b.a < x.amt) return "insufficient";
      b.a -= x.amt;
      b.f += x.amt;
      holds.set(x.key, { kind: x.kind, cur: x.cur, left: x.amt });
      notices.push(`${x.key}:n`);
      return "reserved";
    }
    if (applied.has(x.key)) return refused.has(x.key) ? "refused" : "seen";
    if (x.t === "transfer") {
      if (at("change", x.cur).a < x.amt) return "insufficient";
      applied.add(x.key);
      at("change", x.cur).a -= x.amt;
      at("micro", x.cur).a += x.amt;
      notices.push(`${x.key}:n`);
      return "moved";
    }
    applied.add(x.key);
    const h = holds.get(x.hold);
    const release = h ? (x.release === "rest" ? h.left - x.spend : x.release) : 0n;
    if (!h || h.left === 0n || x.spend + (release < 0n ? 0n : release) > h.left || release < 0n) {
      refused.add(x.key);
      return "refused";
    }
    const b = at(h.kind, h.cur);
    b.f -= x.spend + release;
    b.a += release;
    h.left -= x.spend + release;
    at(x.credit.kind, x.credit.cur).a += x.credit.amt;
    notices.push(`${x.key}:n`);
    return "applied";
  };

  // The read model: movements folded once each by seq (D1's ON CONFLICT), fed by a drain that
  // sometimes "crashes" before its bookmark moves, and so sends the same rows again.
  const model = new Map<string, { a: number; f: number }>();
  const drainedSeqs = new Set<number>();
  const drainSome = () => {
    const p = book.pending(rng.int(1, 8));
    for (const m of p.movements) {
      if (drainedSeqs.has(m.seq)) continue;
      drainedSeqs.add(m.seq);
      const r = model.get(`${m.kind}:${m.currency}`) ?? { a: 0, f: 0 };
      r.a += m.d_available;
      r.f += m.d_frozen;
      model.set(`${m.kind}:${m.currency}`, r);
    }
    if (!rng.chance(0.3)) book.markDrained(p.movements.at(-1)?.seq ?? 0, p.notices.at(-1)?.seq ?? 0);
  };

  const shown = (rows: AccountBalance[]) => rows.filter((r) => r.available || r.frozen).map((r) => `${r.account}:${r.currencyId}=${r.available}/${r.frozen}`).sort();
  const modelShown = () => [...bal].filter(([, v]) => v.a || v.f).map(([k, v]) => `${k}=${v.a}/${v.f}`).sort();

  for (let step = 0; step < steps; step++) {
    now += rng.int(0, 50);
    let x: Action;
    if (sent.length > 0 && rng.chance(0.2)) x = rng.pick(sent);
    else {
      const r = rng.next();
      const cur = rng.pick(CURS);
      if (r < 0.4) x = { t: "reserve", key: `order:${step}`, kind: "change", cur, amt: BigInt(rng.int(1, 300)) };
      else if (r < 0.85 && holds.size > 0) {
        const hold = rng.pick([...holds.keys()]);
        const h = holds.get(hold)!;
        const spend = BigInt(rng.int(1, Number(h.left > 0n ? h.left : 1n) + (rng.chance(0.1) ? 5 : 0)));
        x = { t: "leg", key: `trade:${step}`, hold, spend, release: rng.chance(0.5) ? "rest" : BigInt(rng.int(0, 3)), credit: { kind: rng.pick(KINDS), cur: rng.pick(CURS), amt: BigInt(rng.int(0, 40)) } };
      } else x = { t: "transfer", key: `transfer:${step}`, cur, amt: BigInt(rng.int(1, 200)) };
      sent.push(x);
    }
    if (rng.chance(0.1)) {
      // Rolled back at its commit: nothing of it stays, and the caller sends it again later.
      sql.failNextCommit = true;
      expect(() => perform(x), `seed ${seed} step ${step}`).toThrow(RolledBack);
    } else {
      const want = expected(x);
      expect(perform(x), `seed ${seed} step ${step} ${JSON.stringify(x, (_k, v) => (typeof v === "bigint" ? String(v) : v))}`).toBe(want);
    }
    expect(shown(book.balances()), `seed ${seed} step ${step}`).toEqual(modelShown());
    if (rng.chance(0.3)) drainSome();
  }
  for (let i = 0; i < 10_000 && book.undrained(); i++) drainSome();
  expect(book.undrained()).toBe(false);
  const folded = [...model].filter(([, v]) => v.a || v.f).map(([k, v]) => `${k}=${v.a}/${v.f}`).sort();
  expect(folded, `seed ${seed}: the drained movements fold into the object's balances`).toEqual(shown(book.balances()));
  expect(book.notices(500).map((n) => n.event_key).sort(), `seed ${seed}: a notification per event that moved money`).toEqual([...notices].sort());
  for (const h of book.openHolds()) expect(h.amount - h.spent - h.released).toBe(holds.get(h.hold)!.left);
}

describe("the account book against a model", () => {
  it("stays equal to the model under duplicates and rolled-back commits, and its drain folds into its balances (60 seeds)", () => {
    for (let seed = 1; seed <= 60; seed++) schedule(seed, 80);
  }, 120_000);
});

describe("the opening from D1", () => {
  it("stamps its credits and every hold it re-makes with one time, however long the transaction takes, so the statement can leave them all out", () => {
    let now = 5_000;
    // A clock that moves on every read: a loaded machine, where each op lands in a later millisecond.
    const book = new AccountBook(new NodeSql(), { now: () => now++ });
    book.importOpening(
      [
        { account: "change", currencyId: 3, available: 900n, frozen: 300n },
        { account: "micro", currencyId: 3, available: 0n, frozen: 50n },
      ],
      [{ forKind: "spot_order", forId: "77", account: "change", currencyId: 3, amount: 200n }],
    );
    const { movements } = book.pending(100);
    // The credits, the record's hold and the `migrated` holds of what no record explains.
    expect(movements.map((m) => m.ref)).toEqual(expect.arrayContaining([expect.stringMatching(/^migrate:opening#/), "spot_order:77:reserve", expect.stringMatching(/^migrated:change:3/), expect.stringMatching(/^migrated:micro:3/)]));
    expect(new Set(movements.map((m) => m.at))).toEqual(new Set([5_000]));
    // After it, the object's own clock again.
    book.reserve({ forKind: "spot_order", forId: "78", account: "change", currencyId: 3, amount: 10n });
    expect(book.pending(100).movements.at(-1)!.at).toBeGreaterThan(5_000);
  });
});
