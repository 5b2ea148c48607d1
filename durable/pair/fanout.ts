/**
 * WebSocket fan-out of a pair object: subscriptions kept in each socket's attachment (so they
 * survive hibernation), snapshots on subscribe, and publication after every command. Public topics
 * only: a pair socket knows no user. Owners' order events leave through the outbox to each user's
 * own channel (notices.ts, durable/user.ts).
 *
 * Public state topics (depth, day market) are conflated: at most one message per topic every
 * CONFLATE_MS (longer for a large audience: `conflationWindow`), carrying the latest state and a
 * rising `seq` (persisted, so it keeps rising across restarts). The first change after a quiet
 * spell goes out at once; later ones wait for the window in an in-memory timer, which never touches the object's alarm (if the object is evicted with a
 * timer pending, no seq was spent, so clients see no gap, only the next change). A socket that
 * subscribes while a conflated message is pending gets that message as its snapshot. Deals and
 * candles go out with every command (nothing dropped).
 */
import { clientMessageSchema, type ServerMessage } from "../../schemas/realtime.ts";
import type { KlinePeriod, SpotEngine } from "../engine/index.ts";
import type { AppliedResult, Bar, DayMarketOut, Deal, PairInfo } from "./desks/spot.ts";

export interface PairSocketState {
  topics: string[];
}

/** Accepts a pair socket (hibernation API) with no topics yet; anything but an upgrade gets 426. */
export function acceptPairSocket(ctx: DurableObjectState, request: Request): Response {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected websocket", { status: 426 });
  const { 0: client, 1: server } = new WebSocketPair();
  ctx.acceptWebSocket(server);
  server.serializeAttachment({ topics: [] } satisfies PairSocketState);
  return new Response(null, { status: 101, webSocket: client });
}

/** Answers a socket's close (1005/1006 cannot be echoed, InvalidAccessError: a normal closure instead). */
export function closePairSocket(ws: WebSocket, code: number): void {
  ws.close(code === 1005 || code === 1006 ? 1000 : code, "bye");
}

/** What the fan-out needs from the object (kept narrow so it is testable on its own). */
export interface FanoutHost {
  readonly pairInfo: PairInfo | null;
  readonly book: SpotEngine | null;
  sockets(): WebSocket[];
  depthLevels(levels?: number): { bids: [string, string][]; asks: [string, string][] };
  deals(limit?: number): Deal[];
  dayMarket(now: number): DayMarketOut;
  currentBars(): { period: KlinePeriod; bar: Bar }[];
  price(units: number): string;
  qty(units: number): string;
  /** Persisted counters (the topics' seq). */
  counter(key: string): number;
  setCounter(key: string, value: number): void;
}

const MAX_TOPICS = 16;
/** The shortest window of a conflated topic: at most one message per topic every 100 ms. */
export const CONFLATE_MS = 100;
/**
 * The window widens with the audience so that one conflated topic costs at most this many sends a
 * second (each send costs the pair's thread ~20 µs here): up to 250 followers it stays 100 ms,
 * 1,000 followers get the latest state every 400 ms, and never less often than MAX_CONFLATE_MS.
 */
export const SENDS_PER_SECOND_PER_TOPIC = 2500;
export const MAX_CONFLATE_MS = 1000;

/** The conflation window of a topic with `followers` sockets. */
export function conflationWindow(followers: number): number {
  return Math.min(MAX_CONFLATE_MS, Math.max(CONFLATE_MS, Math.ceil((followers * 1000) / SENDS_PER_SECOND_PER_TOPIC)));
}

type Conflated = "depth" | "day";
/** Meta keys of the conflated topics' seq ("depthSeq" is the key the object used before the split). */
const SEQ_KEY: Record<Conflated, string> = { depth: "depthSeq", day: "daySeq" };

function send(ws: WebSocket, msg: ServerMessage) {
  try {
    ws.send(JSON.stringify(msg));
  } catch {
    // A socket closing under us is not an error of the command that triggered the send.
  }
}

export function topicsOf(info: PairInfo) {
  const s = `${info.currencyId}_${info.legalId}`;
  return { depth: `market_depth_${s}`, detail: `market_detail_${s}`, day: `daymarket_${s}`, kline: `kline_${s}_` };
}

/**
 * Each socket's topics, read from its attachment once per socket while the object lives (the
 * attachment is what survives hibernation; every change goes through saveState, which writes both).
 * Every command with a fill looks at every socket, so with 1,000 viewers deserialising each
 * attachment each time was most of the fan-out's cost.
 */
const socketStates = new WeakMap<WebSocket, PairSocketState | null>();
const stateOf = (ws: WebSocket): PairSocketState | null => {
  let state = socketStates.get(ws);
  if (state === undefined) {
    state = (ws.deserializeAttachment() as PairSocketState | null) ?? null;
    socketStates.set(ws, state);
  }
  return state;
};
const saveState = (ws: WebSocket, state: PairSocketState) => {
  ws.serializeAttachment(state);
  socketStates.set(ws, state);
};

export function createFanout(host: FanoutHost, clock: () => number = Date.now) {
  /**
   * Who follows each topic, in memory: built from the sockets' attachments on first use (after a
   * start or a wake from hibernation) and kept up to date by sub, unsub and close, so a send loop
   * touches only that topic's followers, never every socket of the pair.
   */
  let followers: Map<string, Set<WebSocket>> | null = null;
  const index = (): Map<string, Set<WebSocket>> => {
    if (followers) return followers;
    followers = new Map();
    for (const ws of host.sockets()) for (const topic of stateOf(ws)?.topics ?? []) follow(ws, topic);
    return followers;
  };
  function follow(ws: WebSocket, topic: string) {
    const map = followers!;
    let set = map.get(topic);
    if (!set) map.set(topic, (set = new Set()));
    set.add(ws);
  }
  function unfollow(ws: WebSocket, topic: string) {
    const set = followers?.get(topic);
    if (!set) return;
    set.delete(ws);
    if (set.size === 0) followers!.delete(topic);
  }

  const conflation: Record<Conflated, { lastSent: number; timer: ReturnType<typeof setTimeout> | null; awaiting: Set<WebSocket> }> = {
    depth: { lastSent: 0, timer: null, awaiting: new Set() },
    day: { lastSent: 0, timer: null, awaiting: new Set() },
  };

  /** The conflated message of `kind` as the state stands now. */
  function stateMessage(kind: Conflated, info: PairInfo, seq: number, snapshot: boolean): ServerMessage {
    const t = topicsOf(info);
    if (kind === "depth") {
      const d = host.depthLevels();
      return { type: "market_depth", topic: t.depth, snapshot, seq, currency_id: info.currencyId, legal_id: info.legalId, bids: d.bids, asks: d.asks };
    }
    return { type: "daymarket", topic: t.day, snapshot, seq, currency_id: info.currencyId, legal_id: info.legalId, data: host.dayMarket(clock()) };
  }

  /** Sends the latest state of `kind` to its subscribers under the next seq. */
  function emit(kind: Conflated) {
    const c = conflation[kind];
    c.lastSent = clock();
    const info = host.pairInfo;
    if (!info || !host.book) return;
    const topic = kind === "depth" ? topicsOf(info).depth : topicsOf(info).day;
    const subscribers = index().get(topic);
    const awaiting = c.awaiting;
    c.awaiting = new Set();
    if (!subscribers || subscribers.size === 0) return;
    const seq = host.counter(SEQ_KEY[kind]) + 1;
    host.setCounter(SEQ_KEY[kind], seq);
    let update: string | undefined;
    let snapshot: string | undefined;
    for (const ws of subscribers) {
      // Serialised once per kind of message, whatever the number of subscribers.
      const text = awaiting.has(ws) ? (snapshot ??= JSON.stringify(stateMessage(kind, info, seq, true))) : (update ??= JSON.stringify(stateMessage(kind, info, seq, false)));
      try {
        ws.send(text);
      } catch {
        // closing socket
      }
    }
  }

  /** Notes that `kind` changed: sent now after a quiet spell, otherwise once the window ends. */
  function changed(kind: Conflated) {
    const c = conflation[kind];
    if (c.timer !== null) return;
    const info = host.pairInfo;
    const topic = info ? (kind === "depth" ? topicsOf(info).depth : topicsOf(info).day) : "";
    const wait = c.lastSent + conflationWindow(index().get(topic)?.size ?? 0) - clock();
    if (wait <= 0) return emit(kind);
    c.timer = setTimeout(() => {
      c.timer = null;
      emit(kind);
    }, wait);
  }

  async function snapshot(ws: WebSocket, topic: string) {
    const info = host.pairInfo;
    if (!info || !host.book) return;
    const t = topicsOf(info);
    const kind: Conflated | null = topic === t.depth ? "depth" : topic === t.day ? "day" : null;
    if (kind) {
      // A pending message carries newer state than now-minus-nothing: it doubles as the snapshot.
      if (conflation[kind].timer !== null) conflation[kind].awaiting.add(ws);
      else send(ws, stateMessage(kind, info, host.counter(SEQ_KEY[kind]), true));
    } else if (topic === t.detail) {
      send(ws, { type: "market_detail", topic, snapshot: true, data: host.deals(20) });
    } else if (topic.startsWith(t.kline)) {
      const period = topic.slice(t.kline.length) as KlinePeriod;
      const bar = host.currentBars().find((b) => b.period === period)?.bar ?? null;
      send(ws, { type: "kline", topic, snapshot: true, period, bar });
    }
  }

  return {
    /** The depth topic's current seq (the REST depth answer carries it too). */
    depthSeq(): number {
      return host.counter(SEQ_KEY.depth);
    },

    async onMessage(ws: WebSocket, raw: string | ArrayBuffer) {
      if (typeof raw !== "string" || raw.length > 1024) return send(ws, { type: "error", message: "bad message" });
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return send(ws, { type: "error", message: "bad json" });
      }
      const r = clientMessageSchema.safeParse(parsed);
      if (!r.success) return send(ws, { type: "error", message: "bad message" });
      const msg = r.data;
      const state = stateOf(ws) ?? { topics: [] };
      if (msg.type === "ping") return send(ws, { type: "pong" });
      if (msg.type === "sub") {
        if (!state.topics.includes(msg.topic)) {
          if (state.topics.length >= MAX_TOPICS) return send(ws, { type: "error", message: "too many topics" });
          index();
          state.topics.push(msg.topic);
          saveState(ws, state);
          follow(ws, msg.topic);
        }
        return snapshot(ws, msg.topic);
      }
      if (msg.type === "unsub") {
        state.topics = state.topics.filter((t) => t !== msg.topic);
        saveState(ws, state);
        unfollow(ws, msg.topic);
        return;
      }
    },

    /**
     * Fans out what the commands of one committed transaction changed (one command, or a batch):
     * the conflated depth and day market, the new deals and the current candles. Candles are only
     * built when some socket follows them.
     */
    publish(results: AppliedResult[]) {
      const info = host.pairInfo;
      if (!info || !host.book || results.length === 0) return;
      const events = results.flatMap((r) => r.events);
      const fills = events.filter((e) => e.type === "fill");
      if (results.some((r) => r.depth.length > 0)) changed("depth");
      if (fills.length > 0) changed("day");
      if (fills.length === 0) return;
      const t = topicsOf(info);
      const following = index();
      const dealFollowers = following.get(t.detail);
      if (dealFollowers && dealFollowers.size > 0) {
        const now = clock();
        const deals = fills.map((f) => ({ time: now, direction: f.takerSide, price: host.price(f.price), amount: host.qty(f.qty) })).reverse();
        const dealsText = JSON.stringify({ type: "market_detail", topic: t.detail, snapshot: false, data: deals } satisfies ServerMessage);
        for (const ws of dealFollowers) {
          try {
            ws.send(dealsText);
          } catch {
            // closing socket
          }
        }
      }
      let bars: ReturnType<FanoutHost["currentBars"]> | undefined;
      for (const [topic, set] of following) {
        if (!topic.startsWith(t.kline) || set.size === 0) continue;
        const period = topic.slice(t.kline.length) as KlinePeriod;
        const bar = (bars ??= host.currentBars()).find((b) => b.period === period)?.bar;
        if (!bar) continue;
        const text = JSON.stringify({ type: "kline", topic, snapshot: false, period, bar } satisfies ServerMessage);
        for (const ws of set) {
          try {
            ws.send(text);
          } catch {
            // closing socket
          }
        }
      }
    },

    /** A socket closed or failed: it follows nothing any more. */
    forget(ws: WebSocket) {
      for (const topic of stateOf(ws)?.topics ?? []) unfollow(ws, topic);
    },
  };
}
