/**
 * PairDurableObject: one instance per trading pair (named `pair:{pairId}`).
 *
 * One instance owns everything that must be serial for a pair: its desks (spot order book,
 * seconds contracts with the index ticks, leveraged positions), their SQLite, the typed outbox towards
 * D1, the single alarm, and the WebSocket fan-out of the pair's topics. One instance is enough because a book is
 * a single serial sequence of commands: the object's single-threaded execution is exactly the
 * ordering a matching engine needs, and one pair's traffic fits one object (see bench/README.md).
 *
 * This class is a thin shell: RPC methods, the alarm and the socket hooks, composing `storage`,
 * `scheduler`, `outbox`, `fanout` and the desks. Money never lives here: the Worker freezes funds
 * in D1 first; each command's state, journal, outbox entry and alarm are written in ONE
 * synchronous transaction, and the scheduler's drain applies the outbox to D1 through the ledger
 * module in batches keyed by (pair, batch), so an alarm that fires twice applies nothing twice.
 */
import { DurableObject } from "cloudflare:workers";
import type { KlinePeriod, SpotEngine } from "../engine/index.ts";
import { userNotifier } from "../../worker/lib/notify.ts";
import { RECENT_DEALS, SpotDesk, loadPairInfo, type AppliedResult, type Deal, type PairInfo, type PlaceInput, type PlaceResult } from "./desks/spot.ts";
import { SecondsDesk, type AcceptInput, type AcceptResult, type ContractVerdict } from "./desks/seconds.ts";
import { LeverDesk, type LeverAcceptInput, type LeverAcceptResult, type LeverCommandResult, type LeverVerdict } from "./desks/lever.ts";
import { createFanout, type PairSocketState } from "./fanout.ts";
import { byUser, orderNotices } from "./notices.ts";
import { Outbox } from "./outbox.ts";
import { Scheduler } from "./scheduler.ts";
import { notifyUser } from "../../worker/lib/notify.ts";
import { positionsForEvents } from "../../worker/domain/lever/positions.ts";
import type { UserEvent } from "../../schemas/realtime.ts";
import { PairStorage } from "./storage.ts";

/** While a drain runs in the background, its due row is kept this far ahead (a crash leaves it due). */
const DRAIN_RECHECK_MS = 1000;

export type { Deal, PairInfo, PlaceInput, PlaceResult } from "./desks/spot.ts";

export class PairDurableObject extends DurableObject<Env> {
  private readonly store: PairStorage;
  private readonly scheduler: Scheduler;
  private readonly outbox: Outbox;
  private readonly spot: SpotDesk;
  private readonly seconds: SecondsDesk;
  private readonly lever: LeverDesk;
  private readonly fanout: ReturnType<typeof createFanout>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new PairStorage(ctx.storage);
    this.scheduler = new Scheduler(this.store);
    // Each drained batch's private events go to their owners' channels, one push per user. Not
    // awaited: the drain (and so the ledger) never waits on a user's channel, which may live far
    // away; the notifier's one stub per user keeps each user's events in order.
    const notify = userNotifier(env);
    this.outbox = new Outbox(this.store, env.DB, (notices) => {
      for (const [userId, events] of byUser(notices)) void notify(userId, events);
    });
    this.spot = new SpotDesk(this.store);
    // The expiry handler starts the drain of what it settled and returns: contracts due while D1
    // applies the earlier ones are fixed by the next alarm, not after that drain.
    this.seconds = new SecondsDesk(this.store, this.scheduler, this.outbox, this.spot, () => Promise.resolve(this.drainInBackground()));
    // A drain that runs while contracts expire settles them between its batches (the next alarm
    // may only come once the drain is done), so they ride this drain instead of waiting for it.
    this.outbox.beforeEachBatch(() => {
      if (this.spot.info) this.seconds.settleDue(Date.now());
    });
    this.lever = new LeverDesk(this.store, this.scheduler, this.outbox, this.seconds, () => this.spot.info);
    this.scheduler.handle("sweep", (now) => this.lever.sweepDue(this.spot.engine ? this.spot.top() : null, now, () => this.drain()));
    this.outbox.whenApplied((entries) => {
      const lever = entries.flatMap((e) => (e.kind === "lever" ? [e] : []));
      this.lever.applied(lever);
      // The owners hear of it once D1 has it (best effort, after this transaction).
      if (lever.length > 0) void this.announceLever(lever.map((e) => e.event.positionId));
    });
    this.fanout = createFanout(this.spot.fanoutHost(() => ctx.getWebSockets()));
    // The alarm does not wait for D1: it starts the drain (or joins the one running) and keeps the
    // drain's row due a little later, so expiries and sweeps due meanwhile run on the next alarm
    // instead of queueing behind the drain. The row is dropped only once the outbox is empty; a
    // crash mid-drain leaves it due, and the next alarm drains again (the drain is idempotent).
    this.scheduler.handle("drain", (now) => {
      this.drainInBackground();
      return Promise.resolve(now + DRAIN_RECHECK_MS);
    });
    ctx.blockConcurrencyWhile(async () => {
      this.store.migrate();
      this.scheduler.resume();
      const stored = this.store.meta("info");
      if (stored) this.load(JSON.parse(stored) as PairInfo);
    });
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
  }

  /** Rebuilds the desks' in-memory state from SQLite (as after an eviction). */
  private load(info: PairInfo) {
    this.spot.load(info);
  }

  /** Loads the pair from D1 on first use (the object learns which pair it is). */
  private async ensure(pairId: number): Promise<SpotDesk> {
    const info = this.spot.info;
    if (info && info.pairId !== pairId) throw new Error(`pair object ${info.pairId} asked for pair ${pairId}`);
    if (this.spot.engine) return this.spot;
    if (info) {
      this.load(info);
      return this.spot;
    }
    const loaded = await loadPairInfo(this.env.DB, pairId);
    if (!this.spot.engine) {
      this.store.setMeta("info", JSON.stringify(loaded));
      this.load(loaded);
    }
    return this.spot;
  }

  // ---------------------------------------------------------------- commands (RPC)

  /** Books an order whose funds are already frozen in D1. */
  async place(input: PlaceInput): Promise<PlaceResult> {
    const spot = await this.ensure(input.pairId);
    return this.commit(() => [spot.placeOne(input)])[0]!;
  }

  /**
   * Books several orders of one request (the batch endpoint) in their given order, in one call and
   * one storage transaction: each order is still its own engine command and journal row, but the
   * batch shares one outbox entry, one write of the counters and candles, and one alarm.
   */
  async placeMany(inputs: PlaceInput[]): Promise<PlaceResult[]> {
    if (inputs.length === 0) return [];
    const pairId = inputs[0]!.pairId;
    if (inputs.some((i) => i.pairId !== pairId)) throw new Error("placeMany: orders of different pairs");
    const spot = await this.ensure(pairId);
    return this.commit(() => inputs.map((input) => spot.placeOne(input)));
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

  /**
   * Runs spot commands and writes all they produced in one synchronous transaction (book, journal,
   * candles, the outbox entry with the owners' order events, the drain's due time, an index tick),
   * then fans out the public messages. If the storage write fails, the desk drops its in-memory
   * book, rebuilt from storage next call.
   */
  private commit<T>(run: () => T[]): T[] {
    let out: T[] = [];
    let published: AppliedResult[] = [];
    try {
      this.store.transaction(() => {
        this.spot.begin();
        out = run();
        published = this.spot.takePublished();
        const entry = this.spot.finish();
        if (entry) {
          const spot = this.spot;
          const notices = orderNotices(published, { pairId: spot.info!.pairId, price: (u) => spot.price(u), qty: (u) => spot.qty(u) });
          this.outbox.append(notices.length > 0 ? { ...entry, notices } : entry);
          this.scheduler.at("drain", entry.at);
        }
        this.seconds.tick(this.spot.top(), Date.now());
      });
    } catch (err) {
      this.spot.drop();
      this.scheduler.forget();
      throw err;
    }
    this.fanout.publish(published);
    return out;
  }

  /**
   * Asked by the reconciler about an order that D1 still shows as submitted: "known" when the
   * object has seen it (the outbox will settle it), otherwise a tombstone is written so the order
   * can never be booked later, and the caller may release the hold.
   */
  async tombstone(pairId: number, orderId: number): Promise<"known" | "tombstoned"> {
    const spot = await this.ensure(pairId);
    if (spot.known(orderId)) return "known";
    spot.tombstone(orderId);
    return "tombstoned";
  }

  // Seconds contracts (desks/seconds.ts, which registers its own tick and expiry work): accept one whose
  // money D1 already holds; tell the reconciler whether a held one is known (else tombstone it); ticks.
  acceptSeconds(input: AcceptInput): Promise<AcceptResult> {
    return this.ensure(input.pairId).then(() => this.seconds.acceptNow(input, Date.now()));
  }
  secondsVerdict(pairId: number, orderId: number): Promise<ContractVerdict> {
    return this.ensure(pairId).then(() => this.seconds.verdictNow(orderId, Date.now()));
  }
  ticks(pairId: number, from: number, to: number, page: number, limit: number) {
    return this.ensure(pairId).then(() => this.seconds.ticks(from, to, page, limit));
  }

  // ---------------------------------------------------------------- lever desk

  /** The index now (recorded as a tick if due), for pricing a position's hold; null = no market price. */
  async leverQuote(pairId: number): Promise<{ tickId: number; price: number } | null> {
    const spot = await this.ensure(pairId);
    return this.store.transaction(() => this.lever.quote(spot.engine ? spot.top() : null, Date.now()));
  }

  /** Accepts a position whose money is already held in D1 (index, exposure, count, then pending or trading). */
  async acceptLever(input: LeverAcceptInput): Promise<LeverAcceptResult> {
    const spot = await this.ensure(input.pairId);
    return this.store.transaction(() => this.lever.accept(input, spot.top(), Date.now()));
  }

  /** Asked by the reconciler about a position D1 still shows as held: known, or tombstoned now. */
  async leverVerdict(pairId: number, positionId: number): Promise<LeverVerdict> {
    await this.ensure(pairId);
    return this.store.transaction(() => this.lever.verdict(positionId, Date.now()));
  }

  /** The owner closes a trading position at the index; the close reaches D1 before this answers. */
  async leverClose(pairId: number, positionId: number, userId: number): Promise<LeverCommandResult> {
    const spot = await this.ensure(pairId);
    const r = this.store.transaction(() => this.lever.close(positionId, userId, spot.top(), Date.now()));
    if (r.ok) await this.drain();
    return r;
  }

  /** The owner cancels a pending limit open (revoked); the refund reaches D1 before this answers. */
  async leverCancel(pairId: number, positionId: number, userId: number): Promise<LeverCommandResult> {
    await this.ensure(pairId);
    const r = this.store.transaction(() => this.lever.cancel(positionId, userId, Date.now()));
    if (r.ok) await this.drain();
    return r;
  }

  /** The owner sets a position's take-profit and stop-loss (prices in ticks; null clears). */
  async leverSetStops(pairId: number, positionId: number, userId: number, stopProfit: number | null, stopLoss: number | null): Promise<LeverCommandResult> {
    const spot = await this.ensure(pairId);
    const r = this.store.transaction(() => this.lever.setStops(positionId, userId, stopProfit, stopLoss, spot.top(), Date.now()));
    if (r.ok) await this.drain();
    return r;
  }

  /** Takes the overnight fee of `day` (days since the epoch, UTC) from every position held over it, once. */
  async leverOvernight(pairId: number, day: number): Promise<number> {
    await this.ensure(pairId);
    const n = this.lever.overnight(day, Date.now());
    if (n > 0) await this.drain();
    return n;
  }

  /** Sends each changed position to its owner's channel as D1 now shows it (never throws). */
  private async announceLever(ids: number[]): Promise<void> {
    try {
      const byUser = new Map<number, UserEvent[]>();
      for (const { userId, position } of await positionsForEvents(this.env.DB, [...new Set(ids)])) {
        byUser.set(userId, [...(byUser.get(userId) ?? []), { type: "lever_position", data: position }]);
      }
      await Promise.all([...byUser].map(([userId, events]) => notifyUser(this.env, userId, events)));
    } catch (err) {
      console.error(JSON.stringify({ level: "warn", msg: "lever_position events not sent", error: String(err) }));
    }
  }

  /** A position's status in the object (tests and tools). */
  async leverStatus(pairId: number, positionId: number): Promise<number | null> {
    await this.ensure(pairId);
    return this.lever.status(positionId);
  }

  /** Best prices, for market orders' protective limits and the order form. */
  async top(pairId: number): Promise<{ bestBid: number | null; bestAsk: number | null; last: number | null }> {
    return (await this.ensure(pairId)).top();
  }

  /** Order book of `levels` per side as decimal strings, with the depth topic's sequence number. */
  async depth(pairId: number, levels = 6): Promise<{ seq: number; bids: [string, string][]; asks: [string, string][] }> {
    const spot = await this.ensure(pairId);
    return { seq: this.fanout.depthSeq(), ...spot.depthLevels(levels) };
  }

  /** Newest deals, newest first. */
  async deals(pairId: number, limit = RECENT_DEALS): Promise<Deal[]> {
    return (await this.ensure(pairId)).deals(limit);
  }

  /** Candles of one period between two times (ms), oldest first. */
  async bars(pairId: number, period: KlinePeriod, from: number, to: number, limit = 500) {
    return (await this.ensure(pairId)).bars(period, from, to, limit);
  }

  /** 24-hour statistics from real trades only. */
  async dayMarket(pairId: number) {
    return (await this.ensure(pairId)).dayMarket(Date.now());
  }

  /**
   * Applies the outbox to D1 now (the alarm does the same when the drain is due); returns how many
   * rows were applied. See outbox.ts for the batching and its exactly-once key.
   */
  drain(): Promise<number> {
    // One drain at a time: a caller that comes while one runs joins it. The running drain reads the
    // outbox again after each batch, so it also applies whatever the caller appended before joining.
    this.draining ??= this.drainOnce().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  private draining: Promise<number> | null = null;

  private async drainOnce(): Promise<number> {
    const info = this.spot.info;
    if (!info) return 0;
    const applied = await this.outbox.drain(info);
    if (applied > 0) await this.spot.publishTicker(this.env.DB);
    return applied;
  }

  /** Starts (or joins) a drain without waiting for it; its due row goes once nothing waits for D1. */
  private drainInBackground(): void {
    this.drain().then(
      () => {
        if (!this.outbox.pending()) this.scheduler.clear("drain");
      },
      (err: unknown) => {
        this.scheduler.at("drain", Date.now() + DRAIN_RECHECK_MS);
        console.error(JSON.stringify({ level: "error", event: "drain_failed", error: String(err) }));
      },
    );
  }

  /** The one alarm: runs every kind of work that is due (drain, index heartbeat, contract expiries). */
  override async alarm(): Promise<void> {
    await this.scheduler.run();
  }

  // ---------------------------------------------------------------- read-only views (tests, tools)

  get pairInfo(): PairInfo | null {
    return this.spot.info;
  }

  get book(): SpotEngine | null {
    return this.spot.engine;
  }

  /** When the alarm should fire, per kind of due work. */
  dueTimes() {
    return { next: this.scheduler.next(), ...this.scheduler.dues() };
  }

  // ---------------------------------------------------------------- WebSocket (hibernation API)

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    await this.ensure(Number(url.searchParams.get("pair")));
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected websocket", { status: 426 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ topics: [] } satisfies PairSocketState);
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.fanout.onMessage(ws, message);
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    // 1005/1006 cannot be echoed (InvalidAccessError): answer a normal closure.
    ws.close(code === 1005 || code === 1006 ? 1000 : code, "bye");
  }
}
