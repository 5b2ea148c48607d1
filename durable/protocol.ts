/**
 * WebSocket side of a pair object: subscriptions kept in each socket's attachment (so they survive
 * hibernation), snapshots on subscribe, and fan-out after every command. Private order events go
 * only to sockets that logged in with that user's session token.
 */
import { clientMessageSchema, type ServerMessage } from "../schemas/realtime.ts";
import type { CommandResult, KlinePeriod, SpotEngine } from "./engine/index.ts";
import type { Deal, PairInfo } from "./pair.ts";

export interface PairSocketState {
  topics: string[];
  userId: number | null;
}

/** What the protocol needs from the object (kept narrow so the protocol is testable on its own). */
export interface PairHost {
  readonly pairInfo: PairInfo | null;
  readonly book: SpotEngine | null;
  readonly database: D1Database;
  sockets(): WebSocket[];
  depthMessage(engine: SpotEngine, levels?: number): { seq: number; bids: [string, string][]; asks: [string, string][] };
  deals(pairId: number, limit?: number): Promise<Deal[]>;
  dayMarketOut(now: number): { open: string | null; high: string | null; low: string | null; close: string | null; volume: string; change: string };
  currentBars(): { period: KlinePeriod; bar: { time: number; open: string; high: string; low: string; close: string; volume: string } }[];
  price(units: number): string;
  qty(units: number): string;
}

const MAX_TOPICS = 16;

function send(ws: WebSocket, msg: ServerMessage) {
  try {
    ws.send(JSON.stringify(msg));
  } catch {
    // A socket closing under us is not an error of the command that triggered the send.
  }
}

async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function createPairProtocol(host: PairHost) {
  const topicsOf = (info: PairInfo) => {
    const s = `${info.currencyId}_${info.legalId}`;
    return { depth: `market_depth_${s}`, detail: `market_detail_${s}`, day: `daymarket_${s}`, kline: `kline_${s}_` };
  };

  async function snapshot(ws: WebSocket, topic: string) {
    const info = host.pairInfo;
    const engine = host.book;
    if (!info || !engine) return;
    const t = topicsOf(info);
    if (topic === t.depth) {
      const d = host.depthMessage(engine);
      send(ws, { type: "market_depth", topic, snapshot: true, seq: d.seq, currency_id: info.currencyId, legal_id: info.legalId, bids: d.bids, asks: d.asks });
    } else if (topic === t.detail) {
      send(ws, { type: "market_detail", topic, snapshot: true, data: await host.deals(info.pairId, 20) });
    } else if (topic === t.day) {
      send(ws, { type: "daymarket", topic, snapshot: true, currency_id: info.currencyId, legal_id: info.legalId, data: host.dayMarketOut(Date.now()) });
    } else if (topic.startsWith(t.kline)) {
      const period = topic.slice(t.kline.length) as KlinePeriod;
      const bar = host.currentBars().find((b) => b.period === period)?.bar ?? null;
      send(ws, { type: "kline", topic, snapshot: true, period, bar });
    }
  }

  return {
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
      const state = (ws.deserializeAttachment() as PairSocketState | null) ?? { topics: [], userId: null };
      if (msg.type === "ping") return send(ws, { type: "pong" });
      if (msg.type === "sub") {
        if (!state.topics.includes(msg.topic)) {
          if (state.topics.length >= MAX_TOPICS) return send(ws, { type: "error", message: "too many topics" });
          state.topics.push(msg.topic);
          ws.serializeAttachment(state);
        }
        return snapshot(ws, msg.topic);
      }
      if (msg.type === "unsub") {
        state.topics = state.topics.filter((t) => t !== msg.topic);
        ws.serializeAttachment(state);
        return;
      }
      if (msg.type === "login") {
        const row = await host.database.prepare(
          "SELECT user_id FROM sessions WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > ?",
        )
          .bind(await sha256Hex(msg.token), Date.now())
          .first<{ user_id: number }>();
        if (!row) return send(ws, { type: "error", message: "login failed" });
        // Re-read after the await: a "sub" handled meanwhile must not be overwritten by a stale copy.
        const fresh = (ws.deserializeAttachment() as PairSocketState | null) ?? { topics: [], userId: null };
        fresh.userId = row.user_id;
        ws.serializeAttachment(fresh);
        return send(ws, { type: "logged_in", user_id: row.user_id });
      }
    },

    /**
     * Fans out what the commands of one committed transaction changed (one command, or a batch):
     * one depth message with the book as it now stands, the new deals, the current candles and day
     * market, then each owner's order events in the order they happened. Candles and the day
     * market are only built when some socket follows them.
     */
    publish(results: Extract<CommandResult, { ok: true }>[]) {
      const info = host.pairInfo;
      const engine = host.book;
      if (!info || !engine || results.length === 0) return;
      const sockets = host.sockets();
      if (sockets.length === 0) return;
      const t = topicsOf(info);
      const now = Date.now();
      const events = results.flatMap((r) => r.events);
      const fills = events.filter((e) => e.type === "fill");
      const depth = results.some((r) => r.depth.length > 0) ? host.depthMessage(engine) : null;
      const deals = fills.map((f) => ({ time: now, direction: f.takerSide, price: host.price(f.price), amount: host.qty(f.qty) })).reverse();
      let barsMemo: ReturnType<PairHost["currentBars"]> | undefined;
      const bars = () => (barsMemo ??= fills.length > 0 ? host.currentBars() : []);
      let dayMemo: ReturnType<PairHost["dayMarketOut"]> | null | undefined;
      const day = () => (dayMemo === undefined ? (dayMemo = fills.length > 0 ? host.dayMarketOut(now) : null) : dayMemo);
      // Private order updates, per owner.
      const privateByUser = new Map<number, ServerMessage[]>();
      const filledBy = new Map<number, number>();
      for (const e of events) {
        if (e.type === "fill") {
          filledBy.set(Number(e.takerId), (filledBy.get(Number(e.takerId)) ?? 0) + e.qty);
          filledBy.set(Number(e.makerId), (filledBy.get(Number(e.makerId)) ?? 0) + e.qty);
          const push = (owner: number, id: number, remaining: number) => {
            const list = privateByUser.get(owner) ?? [];
            list.push({ type: "order", order_id: id, status: remaining === 0 ? "filled" : "partial", filled: host.qty(e.qty), price: host.price(e.price) });
            privateByUser.set(owner, list);
          };
          push(Number(e.makerOwner), Number(e.makerId), e.makerRemaining);
          push(Number(e.takerOwner), Number(e.takerId), e.takerRemaining);
        } else if (e.type === "booked" || (e.type === "done" && e.reason !== "filled")) {
          const owner = Number(e.owner);
          const list = privateByUser.get(owner) ?? [];
          list.push({
            type: "order",
            order_id: Number(e.id),
            status: e.type === "booked" ? "open" : "cancelled",
            filled: host.qty(filledBy.get(Number(e.id)) ?? 0),
            price: e.type === "booked" ? host.price(e.price) : null,
          });
          privateByUser.set(owner, list);
        }
      }
      for (const ws of sockets) {
        const state = ws.deserializeAttachment() as PairSocketState | null;
        if (!state) continue;
        for (const topic of state.topics) {
          if (depth && topic === t.depth) {
            send(ws, { type: "market_depth", topic, snapshot: false, seq: depth.seq, currency_id: info.currencyId, legal_id: info.legalId, bids: depth.bids, asks: depth.asks });
          } else if (deals.length > 0 && topic === t.detail) {
            send(ws, { type: "market_detail", topic, snapshot: false, data: deals });
          } else if (topic === t.day && fills.length > 0) {
            const data = day();
            if (data) send(ws, { type: "daymarket", topic, snapshot: false, currency_id: info.currencyId, legal_id: info.legalId, data });
          } else if (fills.length > 0 && topic.startsWith(t.kline)) {
            const period = topic.slice(t.kline.length) as KlinePeriod;
            const bar = bars().find((b) => b.period === period)?.bar;
            if (bar) send(ws, { type: "kline", topic, snapshot: false, period, bar });
          }
        }
        if (state.userId !== null) for (const m of privateByUser.get(state.userId) ?? []) send(ws, m);
      }
    },
  };
}
