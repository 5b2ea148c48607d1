/**
 * PairDurableObject: one instance per trading pair (named `pair:{pairId}`), owning everything that
 * must be serial for it: the desks (spot book, seconds contracts with the index ticks, leveraged
 * positions), their SQLite, the typed outbox towards D1, the one alarm and the public fan-out.
 *
 * A thin shell: RPC methods, the alarm and the socket hooks, composing `storage`, `scheduler`,
 * `outbox` (drained by `drain`), `fanout` and the desks. Money never lives here: the Worker holds
 * funds in D1 first; each command's state, outbox entry and alarm are written in ONE synchronous
 * transaction, and the drain applies the outbox to D1 through the ledger module, exactly once.
 */
import { DurableObject } from "cloudflare:workers";
import type { KlinePeriod, SpotEngine } from "../engine/index.ts";
import { userNotifier } from "../../worker/lib/notify.ts";
import { devClockInObject, devClockOn, setDevOffset } from "../../worker/lib/clock.ts";
import { RECENT_DEALS, SpotDesk, loadPairInfo, type Deal, type PairInfo, type PairState, type PlaceInput, type PlaceResult } from "./desks/spot.ts";
import { SecondsDesk, type AcceptInput, type AcceptResult, type ContractVerdict } from "./desks/seconds.ts";
import { AlertsDesk, alertStatements, type AddAlertResult, type AlertInput } from "./desks/alerts.ts";
import { ConditionalDesk, type ConditionalInput, type ConditionalResult, type Unseen } from "./desks/conditional.ts";
import { LeverDesk, type LeverAcceptInput, type LeverAcceptResult, type LeverCommandResult, type LeverVerdict } from "./desks/lever.ts";
import { acceptPairSocket, closePairSocket, createFanout } from "./fanout.ts";
import { announceLever, byUser } from "./notices.ts";
import { spotCommitter } from "./commit.ts";
import { Outbox } from "./outbox.ts";
import { Scheduler } from "./scheduler.ts";
import { DrainRunner } from "./drain.ts";
import { PairStorage } from "./storage.ts";
import type { BookTop } from "../engine/index-price.ts";
import { PairLegs } from "./legs.ts";
import { leverCloseKey, leverOpenKey, leverRevokeKey, leverTermsKey, type LeverTermsColumns } from "./desks/lever-objects.ts";
import { SECONDS_TERMS_SQL, secondsOpenKey, secondsTermsKey, type SecondsTerms } from "./desks/seconds-objects.ts";
import { userAddress } from "../account/address.ts";

/** What the pair knows of the seconds terms (`secondsTermsNow`): each (duration, currency)'s key, or an edit under way until `changing`. */
interface SecondsTermsState {
  keys?: Record<string, string>;
  changing?: number;
}

/** How long an operator's lever edit may stay "changing" in the pair object before it reads D1's settings itself. */
export const LEVER_TERMS_CHANGING_MS = 10_000;
import { migrateMoney } from "../money/index.ts";
import { accountsOnObjects, sendLegs } from "../../worker/lib/accounts.ts";
import { pairReadModel } from "./read-model.ts";
import type { DrainMode } from "./drain.ts";

export type { Deal, PairInfo, PairState, PlaceInput, PlaceResult } from "./desks/spot.ts";

export class PairDurableObject extends DurableObject<Env> {
  private readonly store: PairStorage;
  private readonly scheduler: Scheduler;
  private readonly outbox: Outbox;
  private readonly spot: SpotDesk;
  private readonly seconds: SecondsDesk;
  private readonly lever: LeverDesk;
  private readonly alerts: AlertsDesk;
  private readonly conditional: ConditionalDesk;
  private readonly fanout: ReturnType<typeof createFanout>;
  private readonly drains: DrainRunner;
  /** Runs spot commands as one committed step (commit.ts). */
  private readonly commit: ReturnType<typeof spotCommitter>;
  /** `ACCOUNTS=objects` (worker/lib/accounts.ts): the legs' outbox towards the account objects (legs.ts); null otherwise. */
  private readonly legs: PairLegs | null;
  /** The seconds terms as the pair trusts them (memory over meta `seconds_terms`): secondsTermsNow. */
  private secondsTerms: SecondsTermsState | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new PairStorage(ctx.storage);
    this.scheduler = new Scheduler(this.store);
    // Each drained batch's private events go to their owners' channels, one push per user. Not
    // awaited: the drain (and so the ledger) never waits on a user's channel, which may live far
    // away; the notifier's one stub per user keeps each user's events in order.
    const notify = userNotifier(env);
    this.outbox = new Outbox(this.store, env.DB, (notices, live) => {
      for (const [userId, events] of byUser(notices)) void notify(userId, events, live?.get(userId));
    });
    this.spot = new SpotDesk(this.store);
    this.conditional = new ConditionalDesk(this.store, this.spot);
    // The quotation table's row rides in each drain batch (it was a D1 round trip of its own after it);
    // in objects mode inside the batch's read-model row (read-model.ts), which also carries the spot rows.
    if (accountsOnObjects(env)) this.outbox.readModel = pairReadModel(env, () => this.spot.tickerRow());
    this.outbox.alongEachBatch(() => {
      if (this.outbox.readModel) return [];
      const ticker = this.spot.tickerStatement(env.DB);
      return ticker ? [ticker] : [];
    });
    // Expiries start the drain of what they settled without waiting for it; a running drain also
    // settles contracts that expire between its batches (the next alarm may only come after it).
    this.drains = new DrainRunner((mode, hurried) => this.drainOnce(mode, hurried), () => this.outbox.pending(), this.scheduler, () => this.outbox.hurry());
    this.seconds = new SecondsDesk(this.store, this.scheduler, this.outbox, this.spot, () => Promise.resolve(this.drains.inBackground()));
    // Limit orders are banded around the same index the ticks record (an external feed included).
    this.spot.bandReference = (top) => this.seconds.readIndex(top);
    this.outbox.beforeEachBatch(() => {
      if (this.spot.info) this.seconds.settleDue(Date.now());
    });
    this.lever = new LeverDesk(this.store, this.scheduler, this.outbox, this.seconds, () => this.spot.info, (ids) => void announceLever(env, ids));
    this.scheduler.handle("sweep", (now) => this.lever.sweepDue(this.spot.engine ? this.spot.top() : null, now, () => this.drain()));
    // An acceptance's outbox entry: a running drain takes it too (it stops only at an empty outbox,
    // and its due row stays until nothing waits), otherwise the drain is due now (as spot commits).
    const drainDue = (at: number) => {
      if (!(this.drains.busy && this.scheduler.has("drain"))) this.scheduler.at("drain", at);
    };
    this.seconds.drainDue = drainDue;
    this.lever.drainDue = drainDue;
    this.fanout = createFanout(this.spot.fanoutHost(() => ctx.getWebSockets()));
    // Price alerts fire in the transaction of the fill that reached them; their D1 rows ride in the drain batch.
    const spot = this.spot;
    this.alerts = new AlertsDesk(this.store, this.outbox, {
      symbol: () => spot.info!.symbol,
      price: (u) => spot.price(u),
      last: () => spot.top().last,
      windowOpen: (ms, now) => spot.windowOpen(ms, now),
    });
    this.outbox.alongEachBatch((entries) => alertStatements(env.DB, entries));
    this.legs = accountsOnObjects(env) ? new PairLegs(this.store, `pair:${ctx.id.toString()}`, (to, legs) => sendLegs(env, to, legs)) : null;
    if (this.legs) {
      this.spot.legsMode = true;
      this.seconds.legs = this.legs;
      this.lever.legs = this.legs;
      const legs = this.legs;
      this.scheduler.handle("legs", () => legs.deliver());
    }
    this.commit = spotCommitter({ store: this.store, spot: this.spot, outbox: this.outbox, scheduler: this.scheduler, seconds: this.seconds, fanout: this.fanout, draining: () => this.drains.busy, alerts: this.alerts, settle: () => this.conditional.settle(), legs: this.legs ?? undefined });
    ctx.blockConcurrencyWhile(async () => {
      await devClockInObject(env, ctx.storage);
      this.store.migrate();
      this.legs?.migrate(migrateMoney);
      this.scheduler.resume();
      const stored = this.store.meta("info");
      if (stored) this.load(JSON.parse(stored) as PairInfo);
    });
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
  }

  /** Rebuilds the desks' in-memory state from SQLite (as after an eviction). */
  private load(info: PairInfo) {
    this.spot.load(info);
    this.conditional.load();
  }

  /** Loads the pair from D1 on first use (the object learns which pair it is), or its desks from SQLite. */
  private async ensure(pairId: number): Promise<SpotDesk> {
    const info = this.spot.info;
    if (info && info.pairId !== pairId) throw new Error(`pair object ${info.pairId} asked for pair ${pairId}`);
    if (this.spot.engine) return this.spot;
    const known = info ?? (await loadPairInfo(this.env.DB, pairId));
    if (this.spot.engine) return this.spot;
    if (!info) this.store.setMeta("info", JSON.stringify(known));
    this.load(known);
    return this.spot;
  }

  /**
   * The pair's state as this object holds it (open, minimum notional). An object stored before
   * session 16 learns `open` from D1 once (then it is kept with the pair's info, as the rest is).
   */
  async pairState(pairId: number): Promise<PairState> {
    const info = (await this.ensure(pairId)).info!;
    if (info.open === undefined) {
      const row = await this.env.DB.prepare("SELECT open FROM pairs WHERE id = ?").bind(pairId).first<{ open: number }>();
      if (info.open === undefined) {
        info.open = Number(row?.open ?? 0) === 1;
        this.store.setMeta("info", JSON.stringify(info));
      }
    }
    return { open: info.open, minNotional: String(info.minNotional) };
  }

  /**
   * A change to the pair (worker/domain/spot/pairs.ts `setPairState`, after D1's row): from this
   * call on, an order priced on the old state is refused at `place` (PAIR_CHANGED). A new minimum
   * rebuilds the engine's rules from SQLite, as after an eviction.
   */
  async pairSet(pairId: number, change: { open?: boolean; minNotional?: string }): Promise<PairState> {
    const info = (await this.ensure(pairId)).info!;
    if (change.open !== undefined) info.open = change.open;
    const minChanged = change.minNotional !== undefined && Number(change.minNotional) !== info.minNotional;
    if (change.minNotional !== undefined) info.minNotional = Number(change.minNotional);
    this.store.setMeta("info", JSON.stringify(info));
    if (minChanged) this.load(info);
    return this.pairState(pairId);
  }

  /** `ACCOUNTS=objects`: an order priced on a state this pair no longer has (closed, another minimum): PAIR_CHANGED, nothing recorded. */
  private async pairChanged(input: PlaceInput): Promise<PlaceResult | null> {
    const state = await this.pairState(input.pairId);
    if (state.open && state.minNotional === input.minNotional) return null;
    return { ok: false, code: "PAIR_CHANGED", filled: 0, remaining: 0, status: "rejected", pair: state };
  }

  // Spot commands (RPC) on funds the Worker already holds in D1.
  /** Books an order whose funds are already frozen in D1. */
  async place(input: PlaceInput): Promise<PlaceResult> {
    const spot = await this.ensure(input.pairId);
    // Objects mode only (the D1 path sends no minimum): a boolean and a string comparison.
    if (input.minNotional !== undefined && !(spot.info!.open === true && String(spot.info!.minNotional) === input.minNotional)) return (await this.pairChanged(input)) ?? this.place({ ...input, minNotional: undefined });
    const r = this.commit(() => [spot.placeOne(input)])[0]!;
    // A refusal's release leg reaches the owner's object before the refusal is answered.
    if (this.legs && !r.ok) await this.legs.deliver();
    return r;
  }

  /** Books the orders of one batch request in order, in one transaction (each its own engine command). */
  async placeMany(inputs: PlaceInput[]): Promise<PlaceResult[]> {
    if (inputs.length === 0) return [];
    const pairId = inputs[0]!.pairId;
    if (inputs.some((i) => i.pairId !== pairId)) throw new Error("placeMany: orders of different pairs");
    const spot = await this.ensure(pairId);
    const first = inputs[0]!;
    if (first.minNotional !== undefined && !(spot.info!.open === true && String(spot.info!.minNotional) === first.minNotional)) {
      const changed = await this.pairChanged(first);
      if (changed) return inputs.map(() => changed);
    }
    const placed = this.commit(() => {
      spot.prefetch(inputs.map((i) => i.orderId));
      return inputs.map((input) => spot.placeOne(input));
    });
    if (this.legs && placed.some((r) => !r.ok)) await this.legs.deliver();
    return placed;
  }

  /** `ACCOUNTS=objects`: delivers the due legs now and answers whether any still wait (tests and tools). */
  async deliverLegs(): Promise<boolean> {
    if (!this.legs) return false;
    await this.legs.deliver();
    return this.legs.pending();
  }

  /** Cancels a user's open order; the release reaches D1 through the outbox. */
  async cancel(pairId: number, orderId: number, userId: number): Promise<{ ok: boolean; code?: string }> {
    const spot = await this.ensure(pairId);
    return this.commit(() => [spot.cancelOne(orderId, userId)])[0]!;
  }

  /** Cancels several of one user's orders; returns, per id, whether it was open and is now cancelled. */
  async cancelMany(pairId: number, orderIds: number[], userId: number): Promise<boolean[]> {
    const spot = await this.ensure(pairId);
    return this.commit(() => orderIds.map((id) => spot.cancelOne(id, userId))).map((r) => r.ok);
  }

  // Price alerts (desks/alerts.ts): the route has written the D1 row first; these keep the object's copy.
  /** Takes an active alert in; refused when the last trade already reached its level. */
  async addAlert(pairId: number, input: AlertInput): Promise<AddAlertResult> {
    await this.ensure(pairId);
    return this.store.transaction(() => this.alerts.add(input));
  }
  /** Forgets one of a user's alerts; false when the object did not hold it (fired, or never here). */
  async removeAlert(pairId: number, alertId: number, userId: number): Promise<boolean> {
    await this.ensure(pairId);
    return this.store.transaction(() => this.alerts.remove(alertId, userId));
  }
  /** How many alerts wait on this pair (tests and tools). */
  async alertCount(pairId: number): Promise<number> {
    await this.ensure(pairId);
    return this.alerts.size();
  }

  // Conditional orders (desks/conditional.ts) on funds the Worker already holds in D1.
  /** Watches a stop-limit, OCO (its limit leg booked now) or trailing stop. */
  async placeConditional(input: ConditionalInput): Promise<ConditionalResult> {
    await this.ensure(input.pairId);
    const r = this.commit(() => [this.conditional.place(input)])[0]!;
    // A refusal released the hold through the outbox (or its legs): drain so the funds are back when the user reads it.
    if (this.legs && !r.ok) await this.legs.deliver();
    if (!r.ok) await this.drain();
    return r;
  }

  /** Before a placement: the last price, and how many of the user's conditional orders this pair watches. */
  async conditionalTop(pairId: number, userId: number): Promise<{ last: number | null; open: number }> {
    const spot = await this.ensure(pairId);
    return { last: spot.top().last, open: this.conditional.openCount(userId) };
  }

  /** Cancels one of a user's conditional orders; `unseen` is what D1 froze for one this object never saw. */
  async cancelConditional(pairId: number, id: number, userId: number, unseen: Unseen | null): Promise<{ ok: boolean; code?: string }> {
    await this.ensure(pairId);
    const r = this.commit(() => [this.conditional.cancel(id, userId, unseen)])[0]!;
    if (this.legs && r.ok) await this.legs.deliver();
    if (r.ok) await this.drain();
    return r;
  }

  /** `ACCOUNTS=objects`: the orphan sweep (or a cancel) asks about a `spot_cond:{id}` hold: known, or recorded as refused now (desks/conditional.ts `verdict`). */
  async conditionalVerdict(pairId: number, id: number, userId: number): Promise<"known" | "tombstoned"> {
    await this.ensure(pairId);
    return this.store.transaction(() => this.conditional.verdict(id, userId));
  }

  /** The reconciler asks about a conditional order D1 still shows as submitted (desks/conditional.ts `orphan`). */
  async conditionalOrphan(pairId: number, id: number, userId: number, unseen: Unseen): Promise<"known" | "tombstoned"> {
    await this.ensure(pairId);
    const verdict = this.commit(() => [this.conditional.orphan(id, userId, unseen)])[0]!;
    if (verdict === "tombstoned") await this.drain();
    return verdict;
  }

  /** Cancels a user's given open orders and every open conditional order of theirs on this pair, in one transaction. */
  async cancelAll(pairId: number, userId: number, orderIds: number[]): Promise<{ orders: number; conditionals: number }> {
    const spot = await this.ensure(pairId);
    const [orders, conditionals] = this.commit(() => {
      // Orders first (an OCO's leg among them), then the conditional orders.
      const cancelled = orderIds.map((id) => spot.cancelOne(id, userId).ok);
      const conds = this.conditional.openOf(userId).map((id) => this.conditional.cancel(id, userId, null).ok);
      return [cancelled.filter(Boolean).length, conds.filter(Boolean).length];
    });
    await this.drain();
    return { orders: orders!, conditionals: conditionals! };
  }

  /** The reconciler asks about an order D1 shows as submitted: known, or tombstoned now (never booked later). */
  async tombstone(pairId: number, orderId: number, userId?: number): Promise<"known" | "tombstoned" | "not_yours"> {
    const spot = await this.ensure(pairId);
    // The id is another user's order (a hold drawn with a taken id): this user's hold has no order here.
    if (userId !== undefined) {
      const owner = spot.ownerOf(orderId);
      if (owner !== null && owner !== userId) return "not_yours";
    }
    if (spot.known(orderId)) return "known";
    spot.tombstone(orderId);
    return "tombstoned";
  }

  // Seconds contracts (desks/seconds.ts, which registers its own tick and expiry work): accept one whose
  // money D1 already holds; tell the reconciler whether a held one is known (else tombstone it); ticks.
  async acceptSeconds(input: AcceptInput): Promise<AcceptResult> {
    await this.ensure(input.pairId);
    const terms = input.objects?.terms;
    if (terms !== undefined) {
      // Objects mode: the pair open, and the terms the contract was priced on the ones D1 has (no D1 batch guards them).
      if ((await this.pairState(input.pairId)).open !== true) return this.seconds.refuseNow(input, "pair_off", Date.now());
      if ((await this.secondsTermsNow(input.seconds, input.currencyId)) !== terms) return this.seconds.refuseNow(input, "stale_terms", Date.now());
    }
    const r = this.seconds.acceptNow(input, Date.now());
    // Objects mode: a fresh acceptance committed its open fee's legs (desks/seconds-objects.ts
    // `secondsOpenLegs`): they go now, and the answer waits for the user's own (the fee out of their hold).
    if (r.ok && r.fresh && this.legs) await this.legs.deliverAndWait([secondsOpenKey(input.orderId)], userAddress(input.userId));
    return r;
  }

  /**
   * The seconds terms of one (duration, currency) as D1 has them (seconds-objects.ts
   * `secondsTermsKey`), or "changing" while an operator's edit is on its way (config.ts
   * `saveOption` / `savePayable`: changing, D1, changed). Read from D1 once per (duration, currency)
   * after each edit, and when a "changing" outlived LEVER_TERMS_CHANGING_MS (an edit that died).
   */
  private async secondsTermsNow(seconds: number, currencyId: number): Promise<string> {
    const stored = this.secondsTerms ?? (this.secondsTerms = JSON.parse(this.store.meta("seconds_terms") ?? "{}") as SecondsTermsState);
    if (stored.changing !== undefined && Date.now() < stored.changing) return "changing";
    const k = `${seconds}:${currencyId}`;
    const known = stored.changing === undefined ? stored.keys?.[k] : undefined;
    if (known !== undefined) return known;
    const row = await this.env.DB.prepare(SECONDS_TERMS_SQL).bind(seconds, currencyId).first<SecondsTerms>();
    const key = secondsTermsKey(row);
    // Unless an edit was told meanwhile (newer than this read): then this contract waits for it.
    if (this.secondsTerms !== stored) return "changing";
    const keys = stored.changing === undefined ? { ...stored.keys, [k]: key } : { [k]: key };
    this.secondsTerms = { keys };
    this.store.setMeta("seconds_terms", JSON.stringify(this.secondsTerms));
    return key;
  }

  /**
   * The cut-over from D1's balances (worker/domain/ledger/account-objects.ts `carryOverOpenFees`):
   * every contract and position in this pair ran on D1's path, which took its open fee at the open
   * (a pending limit's at its request), so none may take it again from its hold on the objects:
   * each is marked paid (`fee_paid` 1), its settle or close then spends no fee. A pending limit
   * with a fee is marked 2 instead: D1 would give its fee back at a revoke, so the cut-over holds
   * that fee in its fee shard (`lever_fee:{id}`), which its revoke spends to the user and its fill
   * releases (desks/lever-objects.ts). Answers how many rows it marked (0 the second time) and
   * every position marked 2 (each time: the cut-over opens their holds from D1's rows it marks so).
   */
  async feesPaidOnD1(pairId: number): Promise<{ contracts: number; positions: number; held: number[] }> {
    await this.ensure(pairId);
    return this.store.transaction(() => {
      const contracts = this.store.sql.exec("UPDATE contracts SET fee_paid = 1 WHERE fee_paid = 0").rowsWritten;
      const pending = this.store.sql.exec("UPDATE lever_positions SET fee_paid = 2 WHERE fee_paid = 0 AND status = 1 AND fee > 0").rowsWritten;
      const positions = pending + this.store.sql.exec("UPDATE lever_positions SET fee_paid = 1 WHERE fee_paid = 0").rowsWritten;
      const held = this.store.sql
        .exec<{ id: number }>("SELECT id FROM lever_positions WHERE fee_paid = 2 ORDER BY id")
        .toArray()
        .map((r) => Number(r.id));
      return { contracts, positions, held };
    });
  }

  /** An operator's edit of the seconds terms starts: contracts are refused ("stale_terms", priced again) until `secondsTermsChanged`. */
  async secondsTermsChanging(pairId: number): Promise<void> {
    await this.ensure(pairId);
    this.secondsTerms = { changing: Date.now() + LEVER_TERMS_CHANGING_MS };
    this.store.setMeta("seconds_terms", JSON.stringify(this.secondsTerms));
  }

  /** The edit is in D1, or failed: every (duration, currency) is read from D1 again at its next contract. */
  async secondsTermsChanged(pairId: number): Promise<void> {
    await this.ensure(pairId);
    this.secondsTerms = {};
    this.store.setMeta("seconds_terms", JSON.stringify(this.secondsTerms));
  }
  secondsVerdict(pairId: number, orderId: number): Promise<ContractVerdict> {
    return this.ensure(pairId).then(() => this.seconds.verdictNow(orderId, Date.now()));
  }
  /** The valuation reference of a window (desks/seconds.ts `referencePrice`), in price ticks; null = the pair never had an index. */
  referencePrice(pairId: number, from: number, to: number) {
    return this.ensure(pairId).then(() => this.seconds.referencePrice(from, to));
  }
  ticks(pairId: number, from: number, to: number, page: number, limit: number) {
    return this.ensure(pairId).then(() => this.seconds.ticks(from, to, page, limit));
  }
  /** One tick with its neighbours (a settlement's verification); read only. */
  tickWindow(pairId: number, tickId: number, n: number) {
    return this.ensure(pairId).then(() => this.seconds.tickWindow(tickId, n));
  }

  // Lever desk: the index now (recorded as a tick if due) to price a hold, null = no market price;
  // accept a position whose money D1 already holds; the reconciler's question (known, or tombstoned now).
  leverQuote(pairId: number): Promise<{ tickId: number; price: number } | null> {
    return this.ensure(pairId).then((spot) => this.store.transaction(() => this.lever.quote(spot.engine ? spot.top() : null, Date.now())));
  }
  async acceptLever(input: LeverAcceptInput): Promise<LeverAcceptResult> {
    const spot = await this.ensure(input.pairId);
    if (input.terms !== undefined) {
      // Objects mode: the pair open, and the settings the open was priced on the ones this object holds (D1's).
      if ((await this.pairState(input.pairId)).open !== true) return { ok: false, code: "pair_off" };
      if ((await this.leverTermsNow(input.pairId)) !== input.terms) return { ok: false, code: "stale_terms" };
    }
    const r = this.store.transaction(() => this.lever.accept(input, spot.top(), Date.now()));
    // Objects mode: a position opened at once committed its open fee's legs (desks/lever-objects.ts
    // `leverOpenLegs`): they go now, and the answer waits for the user's own (a pending limit commits none).
    if (r.ok && r.fresh && this.legs) await this.legs.deliverAndWait([leverOpenKey(input.positionId)], userAddress(input.userId));
    return r;
  }

  /**
   * The pair's lever settings as D1 has them (lever-objects.ts `leverTermsKey`), or "changing"
   * while an operator's edit is on its way (config.ts `saveLeverSettings`: changing, D1, changed).
   * Never told (an object from before session 16), or told "changing" longer ago than
   * LEVER_TERMS_CHANGING_MS (an edit that died half-way): read from D1 once, here.
   */
  private async leverTermsNow(pairId: number): Promise<string> {
    const stored = this.store.meta("lever_terms");
    const t = stored ? (JSON.parse(stored) as { key: string; until?: number }) : null;
    if (t && (t.until === undefined || Date.now() < t.until)) return t.key;
    const row = await this.env.DB.prepare("SELECT * FROM lever_pairs WHERE pair_id = ?").bind(pairId).first<LeverTermsColumns>();
    const key = leverTermsKey(row);
    // Unless a push came meanwhile (it is newer than this read).
    const now = this.store.meta("lever_terms");
    if (now !== stored) return now ? (JSON.parse(now) as { key: string }).key : key;
    this.store.setMeta("lever_terms", JSON.stringify({ key }));
    return key;
  }

  /** An operator's edit of the lever settings starts: opens are refused ("stale_terms") until `leverTermsChanged`. */
  async leverTermsChanging(pairId: number): Promise<void> {
    await this.ensure(pairId);
    this.store.setMeta("lever_terms", JSON.stringify({ key: "changing", until: Date.now() + LEVER_TERMS_CHANGING_MS }));
  }

  /** The edit is in D1 (`key`: the settings now), or failed (null: the object reads D1's again). */
  async leverTermsChanged(pairId: number, key: string | null): Promise<void> {
    await this.ensure(pairId);
    if (key === null) this.store.setMeta("lever_terms", JSON.stringify({ key: "changing", until: 0 }));
    else this.store.setMeta("lever_terms", JSON.stringify({ key }));
  }
  leverVerdict(pairId: number, positionId: number): Promise<LeverVerdict> {
    return this.ensure(pairId).then(() => this.store.transaction(() => this.lever.verdict(positionId, Date.now())));
  }

  // The owner's commands on a position (close at the index, cancel a pending open, set TP/SL in
  // ticks, null clears): each reaches D1 before it answers.
  leverClose(pairId: number, positionId: number, userId: number): Promise<LeverCommandResult> {
    return this.leverCommand(pairId, positionId, userId, (top, now) => this.lever.close(positionId, userId, top, now));
  }
  leverCancel(pairId: number, positionId: number, userId: number): Promise<LeverCommandResult> {
    return this.leverCommand(pairId, positionId, userId, (_top, now) => this.lever.cancel(positionId, userId, now));
  }
  leverSetStops(pairId: number, positionId: number, userId: number, stopProfit: number | null, stopLoss: number | null): Promise<LeverCommandResult> {
    return this.leverCommand(pairId, positionId, userId, (top, now) => this.lever.setStops(positionId, userId, stopProfit, stopLoss, top, now));
  }

  private async leverCommand(pairId: number, positionId: number, userId: number, run: (top: BookTop, now: number) => LeverCommandResult): Promise<LeverCommandResult> {
    const spot = await this.ensure(pairId);
    const r = this.store.transaction(() => run(spot.top(), Date.now()));
    if (r.ok) await this.drain();
    // Objects mode: a close's or a cancel's legs go now, and the answer waits for the owner's own
    // (the payout, or all a pending open held, back in their lever balance); setting stops commits none.
    if (r.ok && this.legs) await this.legs.deliverAndWait([leverCloseKey(positionId), leverRevokeKey(positionId)], userAddress(userId));
    // Objects mode: the position as the object holds it now (drained: closed or revoked, as D1's row), the command's answer.
    if (r.ok && this.legs) return { ok: true, position: this.lever.row(positionId) ?? undefined };
    return r;
  }

  /** Takes the overnight fee of `day` (days since the epoch, UTC) from every position held over it, once. */
  async leverOvernight(pairId: number, day: number): Promise<number> {
    await this.ensure(pairId);
    const n = this.lever.overnight(day, Date.now());
    if (n > 0) await this.drain();
    if (n > 0 && this.legs) this.legs.deliverInBackground();
    return n;
  }

  /** A position's status in the object (tests and tools). */
  async leverStatus(pairId: number, positionId: number): Promise<number | null> {
    await this.ensure(pairId);
    return this.lever.status(positionId);
  }

  // Views for the API: best prices (market orders' limits, the order form); the book's `levels` per
  // side with the depth topic's seq; newest deals; candles between two times (ms); 24 h statistics.
  async top(pairId: number): Promise<{ bestBid: number | null; bestAsk: number | null; last: number | null }> {
    return (await this.ensure(pairId)).top();
  }
  /** The pair's index now (what limit orders are banded around), in price ticks; null = none (not two-sided). */
  async index(pairId: number): Promise<number | null> {
    return this.seconds.readIndex((await this.ensure(pairId)).top());
  }
  /** The reference that values this coin for money now: the index, else the newest index tick; null = the pair never had an index. */
  async referenceNow(pairId: number): Promise<number | null> {
    return this.seconds.readIndex((await this.ensure(pairId)).top()) ?? this.seconds.lastTick()?.price ?? null;
  }
  async depth(pairId: number, levels = 6): Promise<{ seq: number; bids: [string, string][]; asks: [string, string][] }> {
    return { seq: this.fanout.depthSeq(), ...(await this.ensure(pairId)).depthLevels(levels) };
  }
  async deals(pairId: number, limit = RECENT_DEALS): Promise<Deal[]> {
    return (await this.ensure(pairId)).deals(limit);
  }
  async bars(pairId: number, period: KlinePeriod, from: number, to: number, limit = 500) {
    return (await this.ensure(pairId)).bars(period, from, to, limit);
  }
  async dayMarket(pairId: number) {
    return (await this.ensure(pairId)).dayMarket(Date.now());
  }

  /** Applies the outbox to D1 now (one drain at a time: drain.ts); answers how many rows were applied. */
  drain(): Promise<number> {
    return this.drains.drain();
  }

  private drainOnce(mode: DrainMode, hurried: () => boolean): Promise<number> {
    const info = this.spot.info;
    if (!info) return Promise.resolve(0);
    return this.outbox.drain(info, mode, hurried);
  }

  /** DEV_CLOCK=on only (worker/lib/clock.ts): the clock moved ahead; re-arms the alarm for what is now due. */
  devClockMoved(offsetMs: number): void {
    if (!devClockOn(this.env)) return;
    setDevOffset(offsetMs);
    this.scheduler.resume();
  }

  /** The one alarm: runs every kind of work that is due (drain, index heartbeat, contract expiries). */
  override async alarm(): Promise<void> {
    await this.scheduler.run();
  }

  // Read-only views for tests and tools: the pair, the book, when each kind of work is due.
  get pairInfo(): PairInfo | null {
    return this.spot.info;
  }
  get book(): SpotEngine | null {
    return this.spot.engine;
  }
  dueTimes() {
    return { next: this.scheduler.next(), ...this.scheduler.dues() };
  }

  // The public socket (hibernation API): topics only, never a user's private events.
  override async fetch(request: Request): Promise<Response> {
    await this.ensure(Number(new URL(request.url).searchParams.get("pair")));
    return acceptPairSocket(this.ctx, request);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.fanout.onMessage(ws, message);
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    this.fanout.forget(ws);
    closePairSocket(ws, code);
  }
  override async webSocketError(ws: WebSocket): Promise<void> {
    this.fanout.forget(ws);
  }
}
