/**
 * The pair's money when balances live in the account objects (issue #28, `ACCOUNTS=objects`):
 * every spot fill, release and refusal becomes legs (durable/money) committed in the pair's own
 * SQLite in the same transaction as the book, the journal and the D1 outbox entry, and delivered
 * from there at least once to the users' account objects and the fee shards, each applying a leg
 * once by its key. The pair never holds money: it spends and releases the holds the Worker made in
 * the users' objects (`spot_order:{id}`) before it booked the orders.
 *
 * Keys, one per event and party: `trade:{pair}:{trade}:buyer|seller|fee`, `spot_order:{id}:done`
 * (what a finished order, filled, expired or cancelled, leaves of its hold) and
 * `spot_order:{id}:refused` (the whole hold of an order the pair refused). Every fill balances per
 * currency (the core checks it at commit): the buyer's hold pays the seller and the seller's the
 * buyer, each less the fee, which goes to fee shard `pairId mod SYSTEM_SHARDS`: one shard per pair,
 * so a delivery round takes all of a pair's fee legs to one object in one call (and P pairs spread
 * over the shards), instead of touching every shard each round.
 */
import { settleFill, releaseDelta, type DoneEvent, type FillEvent } from "../engine/index.ts";
import { MoneyCore, type Leg, type LegResult, type Op, type SqlPort, type SqlValue } from "../money/index.ts";
import { shardOf, systemAddress, SYSTEM_USERS, userAddress } from "../account/address.ts";
import type { PairStorage } from "./storage.ts";

/** The account kind spot orders hold and credit (D1's spot wallet account). */
export const SPOT_KIND = "change";
export const spotHold = (orderId: number) => `spot_order:${orderId}`;
/** A conditional order's hold (stop-limit, OCO, trailing): its OCO leg and its child spend from it too (desks/conditional.ts). */
export const condHold = (condId: number) => `spot_cond:${condId}`;
/** Which hold an order's money is in: its own `spot_order:{id}`, or its conditional order's (SpotDesk.holdOf). */
export type HoldOf = (orderId: number) => string;

const amt = (n: bigint, what: string): number => {
  if (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${what} out of range: ${n}`);
  return Number(n);
};

function leg(key: string, to: string, ops: Op[]): Leg[] {
  const kept = ops.filter((op) => op.amt > 0);
  return kept.length > 0 ? [{ key, to, ops: kept }] : [];
}

export interface PairCurrencies {
  pairId: number;
  currencyId: number;
  legalId: number;
}

/** One fill's legs: the buyer's and the seller's (each spending their order's hold) and the fee shard's. */
export function fillLegs(info: PairCurrencies, pair: Parameters<typeof settleFill>[0], ev: FillEvent, holdOf: HoldOf = spotHold): Leg[] {
  const s = settleFill(pair, ev);
  const base = String(info.currencyId);
  const quote = String(info.legalId);
  const buyerIsTaker = ev.takerSide === "buy";
  const buyOrder = Number(buyerIsTaker ? ev.takerId : ev.makerId);
  const sellOrder = Number(buyerIsTaker ? ev.makerId : ev.takerId);
  // The buyer froze `reserved` for this fill (at its own limit), pays `paid` and gets the difference back now.
  const reserved = -s.buyer.quote.frozen;
  const back = s.buyer.quote.available;
  const key = `trade:${info.pairId}:${ev.tradeId}`;
  return [
    ...leg(`${key}:buyer`, userAddress(Number(s.buyer.account)), [
      { t: "spend", hold: holdOf(buyOrder), cur: quote, amt: amt(reserved - back, "buyer's cost") },
      { t: "release", hold: holdOf(buyOrder), cur: quote, amt: amt(back, "buyer's price improvement") },
      { t: "credit", kind: SPOT_KIND, cur: base, amt: amt(s.buyer.base.available, "buyer's coins") },
    ]),
    ...leg(`${key}:seller`, userAddress(Number(s.seller.account)), [
      { t: "spend", hold: holdOf(sellOrder), cur: base, amt: amt(-s.seller.base.frozen, "seller's coins") },
      { t: "credit", kind: SPOT_KIND, cur: quote, amt: amt(s.seller.quote.available, "seller's proceeds") },
    ]),
    ...leg(`${key}:fee`, systemAddress(SYSTEM_USERS.fees, shardOf(info.pairId)), [
      { t: "credit", kind: SPOT_KIND, cur: base, amt: amt(s.fee.base.available, "buyer's fee") },
      { t: "credit", kind: SPOT_KIND, cur: quote, amt: amt(s.fee.quote.available, "seller's fee") },
    ]),
  ];
}

/**
 * A commit's fill legs as one leg per receiver: a batch of twenty orders filled against one maker
 * makes three legs (the taker's, the maker's, the fee shard's) instead of sixty, so the pair's
 * outbox, the delivery and each receiver's keys handle three. The leg is one movement (its key):
 * the receiver writes one row per account and currency for the whole commit (money/core.ts
 * `stage`), and a statement shows the commit's trades as one line per currency, as D1's ledger
 * shows a drain batch's. The merged leg's key is the commit's (`trade:{pair}:{commit}:{receiver}`, once per commit:
 * the event key is claimed in the pair first) and it stands where the receiver's first fill leg
 * stood: every later leg of the commit to that receiver (an order's done release) still follows
 * the fills of its hold. A receiver with one fill leg in the commit (one order a request) keeps it
 * as it was. The merged leg is applied whole or refused whole, as each fill leg was.
 */
export function perReceiver(legs: readonly Leg[], commit: string): Leg[] {
  const fills = new Map<string, Leg[]>();
  for (const l of legs) if (l.key.startsWith("trade:")) fills.set(l.to, [...(fills.get(l.to) ?? []), l]);
  if ([...fills.values()].every((ls) => ls.length === 1)) return [...legs];
  const out: Leg[] = [];
  for (const l of legs) {
    const group = l.key.startsWith("trade:") ? fills.get(l.to)! : null;
    if (!group || group.length === 1) out.push(l);
    else if (group[0] === l) out.push({ key: `trade:${commit}:${l.to}`, to: l.to, ops: group.flatMap((g) => g.ops) });
  }
  return out;
}

/**
 * What a finished order (filled, expired, cancelled) leaves of its hold goes back to its owner;
 * `keep` of it stays in the hold (an OCO's leg cancelled by its stop firing: the child's part).
 */
export function doneLegs(info: PairCurrencies, pair: Parameters<typeof releaseDelta>[0], ev: DoneEvent, holdOf: HoldOf = spotHold, keep = 0n): Leg[] {
  const d = releaseDelta(pair, ev);
  const id = Number(ev.id);
  const [cur, units] = ev.reservationAsset === "base" ? [String(info.currencyId), d.base.available] : [String(info.legalId), d.quote.available];
  return leg(`${spotHold(id)}:done`, userAddress(Number(ev.owner)), [{ t: "release", hold: holdOf(id), cur, amt: amt(units - keep, "released reservation") }]);
}

/** An order the pair refused (band, no liquidity, the engine's checks): its whole hold goes back. */
export function refusedLegs(info: PairCurrencies, order: { orderId: number; userId: number; side: "buy" | "sell"; reservedUnits: string }, holdOf: HoldOf = spotHold): Leg[] {
  const cur = String(order.side === "buy" ? info.legalId : info.currencyId);
  return leg(`${spotHold(order.orderId)}:refused`, userAddress(order.userId), [
    { t: "release", hold: holdOf(order.orderId), cur, amt: amt(BigInt(order.reservedUnits), "reserved units") },
  ]);
}

/** A conditional order's own funds going back (its cancel, its OCO leg's fill, a refusal): keyed once per order and reason. */
export function condReleaseLegs(info: PairCurrencies, o: { id: number; owner: number; side: "buy" | "sell" }, units: bigint, why: string): Leg[] {
  const cur = String(o.side === "buy" ? info.legalId : info.currencyId);
  return leg(`${condHold(o.id)}:${why}`, userAddress(o.owner), [{ t: "release", hold: condHold(o.id), cur, amt: amt(units, "conditional order's own funds") }]);
}

/**
 * How long legs committed by the spot path wait before a delivery takes them (`deliverSoon`): the
 * commits of that moment reach each receiver in one call instead of one call each (a receiver's
 * call costs it a transaction, its keys and an alarm whatever it carries). The money is in the
 * pair's outbox from the commit on; only its arrival in the accounts waits this much longer.
 */
export const DELIVER_AFTER_MS = 30;
/** When the scheduler's `legs` alarm, written with the legs, delivers them if that moment's delivery never ran (the object stopped first). */
export const DELIVER_FALLBACK_MS = 500;

/**
 * How long an answer waits at most for its user's own legs (`deliverAndWait`): past it the user's
 * object is slow or away, the legs stay owed and arrive with the retries, and the answer goes.
 */
export const OWN_LEGS_WAIT_MS = 2_000;

/** Sends of one delivery run (each after a call is answered) before it ends and answers; a call to deliver() starts the next run. */
const STEPS_PER_RUN = 256;

/** Hands a group of legs to the object `to` names; answers one result per leg (worker/lib/accounts.ts `sendLegs`). */
export type LegSender = (to: string, legs: Leg[]) => Promise<LegResult[]>;

/**
 * The pair's outbox of legs: the money core over the pair's SQLite (its `money_*` tables beside
 * the pair's own), committing inside the spot transaction and delivering with the core's retries
 * (doubling backoff from 100 ms up to 5 s, with jitter) until each receiver answers.
 */
export class PairLegs {
  readonly core: MoneyCore;
  /** >0 while the caller's own storage transaction is open: the core's transactions join it. */
  private inside = 0;
  private sends: [to: string, call: Promise<void>][] = [];
  private running: Promise<number | null> | null = null;
  private again = false;
  /** Wakes a run waiting on its calls out: legs were committed meanwhile (a receiver with no call out takes them now). */
  private wake: (() => void) | null = null;
  private soon: ReturnType<typeof setTimeout> | null = null;
  /** Answers waiting for legs to be answered by their receivers (`deliverAndWait`). */
  private readonly waiters = new Set<{ keys: Set<string>; done: () => void }>();

  constructor(
    private readonly store: PairStorage,
    name: string,
    private readonly send: LegSender,
  ) {
    const sql: SqlPort = {
      run: (q, ...p: SqlValue[]) => store.sql.exec(q, ...p).rowsWritten,
      query: <T>(q: string, ...p: SqlValue[]) => store.sql.exec(q, ...p).toArray() as T[],
      transaction: <T>(fn: () => T): T => (this.inside > 0 ? fn() : store.transaction(fn)),
    };
    this.core = new MoneyCore(name, {
      sql,
      clock: { now: () => Date.now() },
      random: { next: Math.random },
      transport: {
        send: (_from, to, legs) => {
          this.sends.push([
            to,
            this.send(to, legs).then(
              (results) => {
                results.forEach((r, i) => {
                  if (r === "refused") console.error(JSON.stringify({ level: "error", msg: "leg refused by its account", to, key: legs[i]?.key }));
                });
                this.core.acknowledge(legs.map((l) => l.key));
                if (this.waiters.size > 0) this.answered(legs);
              },
              (err: unknown) => console.error(JSON.stringify({ level: "warn", msg: "leg delivery failed; retrying", to, error: String(err).slice(0, 300) })),
            ),
          ]);
        },
      },
    });
  }

  /** Creates the core's tables (once per object, under blockConcurrencyWhile). */
  migrate(migrate: (sql: SqlPort) => void): void {
    migrate({
      run: (q, ...p: SqlValue[]) => this.store.sql.exec(q, ...p).rowsWritten,
      query: <T>(q: string, ...p: SqlValue[]) => this.store.sql.exec(q, ...p).toArray() as T[],
      transaction: <T>(fn: () => T): T => this.store.transaction(fn),
    });
  }

  /** Commits legs as one event; call inside the storage transaction that made them. */
  commitInside(key: string, legs: Leg[]): void {
    if (legs.length === 0) return;
    this.inside++;
    try {
      this.core.commit({ key, legs });
    } finally {
      this.inside--;
    }
  }

  /** Whether legs wait for an answer (the rows of answered legs are deleted first). */
  pending(): boolean {
    this.core.flushAnswered();
    return this.store.one("SELECT 1 AS x FROM money_outbox LIMIT 1") !== undefined;
  }

  /**
   * Delivers now and answers once the legs of `events` to `to` are answered by that receiver (or
   * after `maxMs`): what answers a user's open or close is then what their next read of their
   * balances shows (the open fee out of `frozen`, a close's payout in), as one D1 transaction did.
   * The other receivers' legs (a fee shard, the treasury) go in the same run and are not waited
   * for. A receiver that does not answer in time keeps its legs owed: retried until it does.
   */
  async deliverAndWait(events: readonly string[], to: string, maxMs = OWN_LEGS_WAIT_MS): Promise<void> {
    // The events' legs to that receiver still in the outbox (`{event}:…`, keys are unique).
    const keys = events.flatMap((event) =>
      this.store.sql
        .exec<{ key: string }>("SELECT key FROM money_outbox WHERE dest = ? AND key > ? AND key < ?", to, `${event}:`, `${event};`)
        .toArray()
        .map((r) => r.key)
        .filter((key) => !this.core.isAnswered(key)),
    );
    if (keys.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      const w = {
        keys: new Set(keys),
        done: () => {
          this.waiters.delete(w);
          clearTimeout(timer);
          resolve();
        },
      };
      this.waiters.add(w);
      timer = setTimeout(w.done, maxMs);
    });
    this.deliverInBackground();
    await waited;
  }

  /** Legs a receiver answered: the waiters whose keys are all answered go. */
  private answered(legs: readonly Leg[]): void {
    for (const w of [...this.waiters]) {
      for (const l of legs) w.keys.delete(l.key);
      if (w.keys.size === 0) w.done();
    }
  }

  /**
   * A delivery DELIVER_AFTER_MS from now (one for every commit of that moment). If the object
   * stops first, the scheduler's `legs` row, written with the legs, delivers them.
   */
  deliverSoon(): void {
    if (this.soon !== null) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      this.deliverInBackground();
    }, DELIVER_AFTER_MS);
  }

  /**
   * A delivery nobody waits for. A failure of the pair's own storage is logged, never left as an
   * unhandled rejection: the legs stay in the outbox, and the scheduler's `legs` row delivers them.
   */
  deliverInBackground(): void {
    this.deliver().catch((err: unknown) => console.error(JSON.stringify({ level: "error", event: "legs_delivery_failed", error: String(err).slice(0, 300) })));
  }

  /**
   * Delivers every due leg (grouped per receiver, one call each) and waits for the answers;
   * answers when legs are next due (a failed receiver's retry), or null when none wait. One run at
   * a time: a call during a run makes that run go round once more. Each receiver has at most one
   * call out, and the run sends again as soon as ANY call is answered: a receiver's next legs
   * (those committed since its last call) leave when its own answer comes, never waiting for the
   * slowest receiver of a round (a hot user's object, a shard behind a long call).
   */
  deliver(): Promise<number | null> {
    if (this.running) {
      this.again = true;
      this.wake?.();
      return this.running;
    }
    const run = this.rounds().finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  private async rounds(): Promise<number | null> {
    /** The calls out, by receiver (each removes itself once answered or failed). */
    const out = new Map<string, Promise<void>>();
    for (let step = 0; step < STEPS_PER_RUN; step++) {
      this.again = false;
      this.sends = [];
      const { sent } = this.core.deliverDue(new Set(out.keys()));
      for (const [to, call] of this.sends) out.set(to, call.finally(() => out.delete(to)));
      this.sends = [];
      if (out.size === 0) {
        if (sent === 0 && !this.again) break;
        continue;
      }
      await Promise.race([...out.values(), new Promise<void>((resolve) => (this.wake = resolve))]);
      this.wake = null;
    }
    await Promise.all(out.values());
    // The answered legs' rows go with the next commit's transaction; with no delivery coming (no
    // commit in the last moment) they go now, so an idle pair's outbox is empty.
    if (this.soon === null) this.core.flushAnswered();
    return this.core.nextDue();
  }
}
