/**
 * UserDurableObject: one instance per user (named `user:{userId}`), that user's private channel
 * (DESIGN §2, §5): order changes, `closed_microorder`, C2C changes.
 *
 * One instance owns the user's open sockets (one per tab or device), each remembering the session
 * it was opened with, and nothing else: no storage of its own, no money, no history (a client that
 * was offline refetches over the API). One instance is enough because a user's private traffic is
 * tiny next to what one object serves (their own orders and contracts, a few tabs), and users are
 * independent of each other: the channel grows with the number of users, one object each, and no
 * event ever needs ordering across users. Being one object per user is also what makes "only that
 * user's sockets" structural: an event is pushed to the user's object, which holds no one else's.
 *
 * Sockets are hibernatable (`ctx.acceptWebSocket`; the session rides in the attachment) and pings
 * are answered by the runtime (`setWebSocketAutoResponse`) without waking the object. The Worker
 * authenticates the upgrade with the API's own session code (worker/lib/user-channel.ts) before it
 * reaches this object; every push re-checks each socket's session with that same code (one D1
 * read per distinct session among the open sockets, none when the user has no socket open), so a
 * session ended since (logout, password change, a locked account, expiry) gets nothing more: its
 * socket is closed with USER_CHANNEL_SESSION_ENDED instead. A pair object's drain does that check
 * for it: it reads the notified users' live sessions in the D1 transaction that commits what the
 * events announce and hands them over with the events, so only sessions missing from that list
 * cost a D1 read here. In objects mode the pair's drain reads no sessions (durable/pair/read-model.ts):
 * the object checks its sockets' sessions with its own session check (durable/account/sessions.ts),
 * which reads D1 once per session it does not know and is told of every revocation.
 *
 * It is also the user's account object (issue #28, durable/account/): the calls it inherits from
 * AccountObject hold the user's balances, holds and movements in its own SQLite and drain them to
 * D1. No product calls them yet; until one does, the object stores nothing.
 */
import { AccountObject } from "./account/object.ts";
import { USER_CHANNEL_CLOSE, userEventSchema, type UserEvent } from "../schemas/realtime.ts";
import { sessionOfTokenHash } from "../worker/lib/auth.ts";

/** What the Worker tells the object about a socket it has authenticated (internal headers). */
export const USER_SOCKET_HEADERS = { userId: "x-user-id", sessionId: "x-session-id", tokenHash: "x-session-token-hash", protocol: "x-channel-protocol" } as const;

/** Close code of a socket whose session is unknown, revoked or expired. */
export const USER_CHANNEL_SESSION_ENDED = USER_CHANNEL_CLOSE.sessionEnded;
/** Close code of the oldest socket when a user opens more than MAX_SOCKETS. */
export const USER_CHANNEL_TOO_MANY = USER_CHANNEL_CLOSE.replaced;
/** Sockets per user (tabs, devices); the oldest gives way to a new one. */
const MAX_SOCKETS = 16;

interface UserSocketState {
  userId: number;
  sessionId: number;
  /** SHA-256 of the session token (what D1 stores): enough to re-check, useless to replay. */
  tokenHash: string;
  openedAt: number;
}

const stateOf = (ws: WebSocket) => ws.deserializeAttachment() as UserSocketState | null;

function closeQuietly(ws: WebSocket, code: number, reason: string) {
  try {
    ws.close(code, reason);
  } catch {
    // already closing
  }
}

export class UserDurableObject extends AccountObject {
  /** Pushes run one after another, so events reach a socket in the order they were pushed. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
  }

  /**
   * Accepts a socket the Worker has already authenticated (only the Worker can reach this object:
   * its headers are the Worker's word for who the socket belongs to).
   */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected websocket", { status: 426 });
    const h = USER_SOCKET_HEADERS;
    const userId = Number(request.headers.get(h.userId));
    const sessionId = Number(request.headers.get(h.sessionId));
    const tokenHash = request.headers.get(h.tokenHash) ?? "";
    if (!Number.isSafeInteger(userId) || userId <= 0 || !Number.isSafeInteger(sessionId) || !/^[0-9a-f]{64}$/.test(tokenHash)) {
      return new Response("bad socket request", { status: 400 });
    }
    const open = this.ctx.getWebSockets();
    if (open.length >= MAX_SOCKETS) {
      const oldest = [...open].sort((a, b) => (stateOf(a)?.openedAt ?? 0) - (stateOf(b)?.openedAt ?? 0));
      for (const ws of oldest.slice(0, open.length - MAX_SOCKETS + 1)) closeQuietly(ws, USER_CHANNEL_TOO_MANY, "too many sockets");
    }
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ userId, sessionId, tokenHash, openedAt: Date.now() } satisfies UserSocketState);
    const protocol = request.headers.get(h.protocol);
    return new Response(null, { status: 101, webSocket: client, headers: protocol ? { "Sec-WebSocket-Protocol": protocol } : {} });
  }

  /**
   * Sends private events to every socket of this user whose session is still live, in order; a
   * socket whose session has ended is closed and gets none of them. Returns how many sockets got
   * the events. A batch holding an event outside the protocol (a bug in the caller) is refused
   * whole and logged, and answers 0; throws when the sessions cannot be checked (nothing is sent).
   *
   * `liveSessions`: the user's session ids that D1 showed live in the transaction that committed
   * what the events announce (the pair object's drain reads them in its own D1 batch). A socket of
   * one of those sessions gets the events without a D1 read here; any other socket's session (ended
   * since, or opened after that transaction) is checked in D1 as without the list.
   */
  async push(events: UserEvent | UserEvent[], liveSessions?: number[]): Promise<number> {
    const list = Array.isArray(events) ? events : [events];
    const run = this.queue.then(() => this.deliver(list, liveSessions));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Closes at once the sockets of sessions that have just been revoked (GET /api/security/sessions'
   * revoke, after D1 ended them); answers how many were closed.
   */
  async endSessions(sessionIds: number[]): Promise<number> {
    const ended = new Set(sessionIds);
    let closed = 0;
    for (const ws of this.ctx.getWebSockets()) {
      const state = stateOf(ws);
      if (!state || !ended.has(state.sessionId)) continue;
      closeQuietly(ws, USER_CHANNEL_SESSION_ENDED, "session ended");
      closed += 1;
    }
    return closed;
  }

  /** How many sockets this user has open (tests, tools). */
  async socketCount(): Promise<number> {
    return this.ctx.getWebSockets().length;
  }

  private async deliver(events: UserEvent[], liveSessions: number[] | undefined): Promise<number> {
    const sockets = this.ctx.getWebSockets();
    // Nobody to send to: nothing to check either (not even the events' shape).
    if (sockets.length === 0 || events.length === 0) return 0;
    const texts: string[] = [];
    for (const e of events) {
      const r = userEventSchema.safeParse(e);
      if (!r.success) {
        console.error(JSON.stringify({ level: "error", msg: "not a user event: nothing sent", issues: JSON.stringify(r.error.issues).slice(0, 300) }));
        return 0;
      }
      texts.push(JSON.stringify(r.data));
    }
    const listed = new Set(liveSessions ?? []);
    // Objects mode: the object's own session check (durable/account/sessions.ts: told of every
    // revocation, lock and review decision before D1 is written; D1 read once per session it does not
    // know), instead of a D1 read per push. The pair's drain reads no live sessions in this mode.
    if (this.env.ACCOUNTS === "objects") {
      const ids = new Map<number, number>();
      for (const ws of sockets) {
        const state = stateOf(ws);
        if (state && !listed.has(state.sessionId)) ids.set(state.sessionId, state.userId);
      }
      const now = Date.now();
      await Promise.all([...ids].map(async ([sessionId, userId]) => {
        if (await this.sessionTrust(userId).check({ sessionId, level: "user" }, now)) listed.add(sessionId);
      }));
    }
    // One check per distinct session not vouched for by the caller (tabs of one browser share a
    // token), through the API's code.
    const hashes = new Set(sockets.flatMap((ws) => {
      const state = stateOf(ws);
      return state && !listed.has(state.sessionId) ? [state.tokenHash] : [];
    }));
    const liveUser = new Map<string, number | null>();
    await Promise.all([...hashes].map(async (hash) => liveUser.set(hash, (await sessionOfTokenHash(this.env.DB, hash))?.id ?? null)));
    let delivered = 0;
    for (const ws of sockets) {
      const state = stateOf(ws);
      if (!state || (!listed.has(state.sessionId) && liveUser.get(state.tokenHash) !== state.userId)) {
        closeQuietly(ws, USER_CHANNEL_SESSION_ENDED, "session ended");
        continue;
      }
      try {
        for (const text of texts) ws.send(text);
        delivered += 1;
      } catch {
        // closing under us: the client refetches when it reconnects
      }
    }
    return delivered;
  }

  /** The client only pings (answered by the runtime without waking us); anything else is ignored. */
  override async webSocketMessage(): Promise<void> {}

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    // 1005/1006 cannot be echoed (InvalidAccessError): answer a normal closure.
    closeQuietly(ws, code === 1005 || code === 1006 ? 1000 : code, "bye");
  }
}
