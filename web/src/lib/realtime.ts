/**
 * The realtime socket (DESIGN §5): one reconnecting WebSocket per trading pair at /ws?pair={id},
 * shared by every screen that listens to that pair. Subscribers register a topic and a handler;
 * the channel (re)subscribes every topic each time the socket opens, so a dropped connection
 * resumes with fresh snapshots. Messages are parsed with the shared zod schemas and anything else
 * is ignored. A pair socket is public: the user's own order events come on the user's channel
 * (./userChannel.ts).
 *
 * What a topic's messages mean (snapshots, `seq` gaps) is the market store's business
 * (./market/); it asks for a fresh snapshot with `requestSnapshot`. A channel closes a few seconds
 * after its last subscriber leaves, so moving between the exchange and the chart keeps it.
 */
import { useEffect, useRef, useState } from "react";
import { WebSocket as ReconnectingWebSocket } from "partysocket";
import { serverMessageSchema, type ServerMessage } from "../../../schemas/realtime.ts";
import { apiHosts, parseFrame, socketUrlFor } from "./hosts.ts";

export type SocketStatus = "connecting" | "open" | "closed";
export type TopicMessage = Exclude<ServerMessage, { type: "error" | "pong" }>;

type TopicHandler = (msg: TopicMessage) => void;
type StatusHandler = (status: SocketStatus, reopened: boolean) => void;

const PING_MS = 30_000;
const LINGER_MS = 5_000;

/** The pair's socket on the current API host (lib/hosts.ts), read again at every reconnect. */
function socketUrl(pairId: number): string {
  return socketUrlFor(`/ws?pair=${pairId}`);
}

class PairChannel {
  private ws: ReconnectingWebSocket | null = null;
  private readonly topics = new Map<string, Set<TopicHandler>>();
  private readonly statusHandlers = new Set<StatusHandler>();
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;
  private opens = 0;
  status: SocketStatus = "connecting";

  constructor(
    readonly pairId: number,
    private readonly onIdle: (channel: PairChannel) => void,
  ) {}

  private get users(): number {
    let n = this.statusHandlers.size;
    for (const set of this.topics.values()) n += set.size;
    return n;
  }

  /** Closes the socket and opens it again (on the API host now in use); subscriptions resume. */
  reconnect() {
    this.ws?.reconnect();
  }

  private connect() {
    if (this.ws) return;
    this.opens = 0;
    const ws = new ReconnectingWebSocket(() => socketUrl(this.pairId), [], {
      minReconnectionDelay: 500,
      maxReconnectionDelay: 10_000,
      connectionTimeout: 6_000,
    });
    ws.addEventListener("open", () => {
      this.opens += 1;
      this.subscribeAll();
      this.setStatus("open", this.opens > 1);
    });
    ws.addEventListener("close", () => this.setStatus(this.ws ? "connecting" : "closed", false));
    ws.addEventListener("message", (e: MessageEvent) => this.receive(e.data));
    this.ws = ws;
    this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_MS);
  }

  private subscribeAll() {
    for (const topic of this.topics.keys()) this.send({ type: "sub", topic });
  }

  private disconnect() {
    clearInterval(this.pingTimer);
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000, "idle");
    this.status = "closed";
  }

  private setStatus(status: SocketStatus, reopened: boolean) {
    this.status = status;
    for (const h of [...this.statusHandlers]) h(status, reopened);
  }

  private send(msg: object) {
    if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify(msg));
  }

  private receive(raw: unknown) {
    const msg = parseFrame(raw, serverMessageSchema);
    if (!msg || msg.type === "pong" || msg.type === "error") return;
    const handlers = this.topics.get(msg.topic);
    if (handlers) for (const h of [...handlers]) h(msg);
  }

  private retain() {
    clearTimeout(this.lingerTimer);
    this.connect();
  }

  private release() {
    if (this.users > 0) return;
    clearTimeout(this.lingerTimer);
    this.lingerTimer = setTimeout(() => {
      if (this.users > 0) return;
      this.disconnect();
      this.onIdle(this);
    }, LINGER_MS);
  }

  subscribe(topic: string, handler: TopicHandler): () => void {
    this.retain();
    let set = this.topics.get(topic);
    if (!set) {
      set = new Set();
      this.topics.set(topic, set);
    }
    // A new listener gets a fresh snapshot (the server answers every sub).
    this.send({ type: "sub", topic });
    set.add(handler);
    return () => {
      const current = this.topics.get(topic);
      current?.delete(handler);
      if (current && current.size === 0) {
        this.topics.delete(topic);
        this.send({ type: "unsub", topic });
      }
      this.release();
    };
  }

  /** Asks again for a topic someone listens to; the server answers with a fresh snapshot. */
  resubscribe(topic: string) {
    if (this.topics.has(topic)) this.send({ type: "sub", topic });
  }

  onStatus(handler: StatusHandler): () => void {
    this.retain();
    this.statusHandlers.add(handler);
    return () => {
      this.statusHandlers.delete(handler);
      this.release();
    };
  }
}

const channels = new Map<number, PairChannel>();

// Spec §7 host failover: when the API moves to another host, the sockets close and reopen there.
apiHosts.onChange(() => {
  for (const ch of channels.values()) ch.reconnect();
});

function channel(pairId: number): PairChannel {
  let ch = channels.get(pairId);
  if (!ch) {
    ch = new PairChannel(pairId, (idle) => {
      if (channels.get(idle.pairId) === idle) channels.delete(idle.pairId);
    });
    channels.set(pairId, ch);
  }
  return ch;
}

/** Topic names of a pair (spec §7). */
export const topics = {
  depth: (currencyId: number, legalId: number) => `market_depth_${currencyId}_${legalId}`,
  deals: (currencyId: number, legalId: number) => `market_detail_${currencyId}_${legalId}`,
  day: (currencyId: number, legalId: number) => `daymarket_${currencyId}_${legalId}`,
  kline: (currencyId: number, legalId: number, period: string) => `kline_${currencyId}_${legalId}_${period}`,
};

/** Subscribes to a topic of a pair (imperative form, for non-React code). */
export function subscribeTopic(pairId: number, topic: string, handler: TopicHandler): () => void {
  return channel(pairId).subscribe(topic, handler);
}

/** Asks a pair's socket for a fresh snapshot of a topic (after a gap in its `seq`). */
export function requestSnapshot(pairId: number, topic: string): void {
  channels.get(pairId)?.resubscribe(topic);
}

/**
 * Listens to one topic while the component is mounted. The handler may change on every render;
 * the subscription changes only with the pair or the topic. Pass null to listen to nothing.
 */
export function usePairTopic(pairId: number | null, topic: string | null, handler: TopicHandler): void {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    if (pairId === null || topic === null) return;
    return channel(pairId).subscribe(topic, (msg) => ref.current(msg));
  }, [pairId, topic]);
}

/**
 * The connection state of a pair's socket; `onReopen` runs after a reconnect (not the first
 * open), when anything pushed while the socket was down has to be fetched again.
 */
export function useSocketStatus(pairId: number | null, onReopen?: () => void): SocketStatus {
  const [status, setStatus] = useState<SocketStatus>("connecting");
  const ref = useRef(onReopen);
  ref.current = onReopen;
  useEffect(() => {
    if (pairId === null) return;
    const ch = channel(pairId);
    const off = ch.onStatus((s, reopened) => {
      setStatus(s);
      if (reopened) ref.current?.();
    });
    setStatus(ch.status);
    return off;
  }, [pairId]);
  return status;
}
