/**
 * The signed-in user's private channel (DESIGN §5): one reconnecting socket per logged-in tab at
 * /ws/user, carrying only this user's events (own spot orders, `closed_microorder`, C2C changes).
 *
 * The session token is offered as a Sec-WebSocket-Protocol value on every (re)connect, never put
 * in the URL (see worker/lib/user-channel.ts for why the server wants it at the upgrade). The
 * channel follows the session: a login opens it, another account's login reopens it with the new
 * token, a logout closes it. A socket the server closes as "session ended" (4001: logged out
 * elsewhere, password changed, expired), or pushed out by too many newer ones (4008), is not
 * retried with the same token. Messages are parsed
 * with the shared schema; anything else is ignored. Screens listen with `onUserEvent(type, …)` /
 * `useUserEvent`, and refetch on `reopened` (events sent while the socket was down are lost).
 */
import { useEffect, useRef } from "react";
import { atom } from "nanostores";
import { useStore } from "@nanostores/react";
import { WebSocket as ReconnectingWebSocket } from "partysocket";
import { USER_CHANNEL_CLOSE, USER_CHANNEL_PROTOCOL, USER_CHANNEL_TOKEN_PREFIX, userServerMessageSchema, type UserEvent, type UserEventType } from "../../../schemas/realtime.ts";
import { $session } from "./session.ts";
import { apiHosts, parseFrame, socketUrlFor } from "./hosts.ts";

/**
 * off: not logged in; ended: the server ended this socket for good, because the session is over
 * or the user opened too many sockets elsewhere (waits for a new login).
 */
export type UserChannelStatus = "off" | "connecting" | "open" | "ended";
export type UserEventOf<T extends UserEventType> = Extract<UserEvent, { type: T }>;

/** Retrying after these would fail again, or push another tab out in turn. */
const FINAL_CODES = new Set<number>([USER_CHANNEL_CLOSE.sessionEnded, USER_CHANNEL_CLOSE.replaced]);
const PING_MS = 30_000;

/** The subprotocols a socket offers for a token: the channel's own, then the token. */
export function channelProtocols(token: string): string[] {
  return [USER_CHANNEL_PROTOCOL, `${USER_CHANNEL_TOKEN_PREFIX}${token}`];
}

/** The part of a reconnecting socket the channel uses (partysocket in the app, a double in tests). */
export interface ChannelSocket {
  readonly readyState: number;
  addEventListener(type: "open", fn: () => void): void;
  addEventListener(type: "close", fn: (e: { code: number }) => void): void;
  addEventListener(type: "message", fn: (e: { data: unknown }) => void): void;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/**
 * Makes a socket that reconnects by itself, asking `protocols()` afresh each time (so a reconnect
 * carries the current token) and giving up when `retry(code)` says so.
 */
export type SocketFactory = (url: string, protocols: () => string[] | null, retry: (code: number) => boolean) => ChannelSocket;

/** What the channel follows: the session's token (a nanostore in the app). */
export interface TokenSource {
  get(): { token: string };
  subscribe(fn: (value: { token: string }) => void): () => void;
}

type Handler = (event: UserEvent) => void;

export class UserChannel {
  readonly $status = atom<UserChannelStatus>("off");
  private socket: ChannelSocket | null = null;
  private token = "";
  private opens = 0;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private readonly handlers = new Map<UserEventType, Set<Handler>>();
  private readonly reopenHandlers = new Set<() => void>();
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly session: TokenSource,
    private readonly createSocket: SocketFactory,
    private readonly url: () => string,
  ) {}

  /** Follows the session from now on (idempotent); returns a stop function. */
  start(): () => void {
    if (!this.unwatch) {
      this.unwatch = this.session.subscribe((s) => this.follow(s.token));
      this.follow(this.session.get().token);
    }
    return () => this.stop();
  }

  stop(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    this.disconnect();
    this.token = "";
    this.$status.set("off");
  }

  /** Listens to one kind of event; returns the unsubscribe function. */
  on<T extends UserEventType>(type: T, handler: (event: UserEventOf<T>) => void): () => void {
    let set = this.handlers.get(type);
    if (!set) {
      set = new Set();
      this.handlers.set(type, set);
    }
    const h = handler as Handler;
    set.add(h);
    return () => void this.handlers.get(type)?.delete(h);
  }

  /** Runs after a reconnect (not the first open): whatever was pushed meanwhile must be refetched. */
  onReopen(handler: () => void): () => void {
    this.reopenHandlers.add(handler);
    return () => void this.reopenHandlers.delete(handler);
  }

  private follow(token: string) {
    if (token === this.token) return;
    this.disconnect();
    this.token = token;
    if (!token) {
      this.$status.set("off");
      return;
    }
    this.connect();
  }

  private connect() {
    this.opens = 0;
    this.$status.set("connecting");
    const ws = this.createSocket(
      this.url(),
      () => (this.token ? channelProtocols(this.token) : null),
      (code) => !FINAL_CODES.has(code),
    );
    ws.addEventListener("open", () => {
      if (this.socket !== ws) return;
      this.opens += 1;
      this.$status.set("open");
      if (this.opens > 1) for (const h of [...this.reopenHandlers]) h();
    });
    ws.addEventListener("close", (e) => {
      if (this.socket !== ws) return;
      if (FINAL_CODES.has(e.code)) {
        // Not retried with this token: a new login (a new token) opens the channel again.
        this.disconnect();
        this.$status.set("ended");
      } else this.$status.set("connecting");
    });
    ws.addEventListener("message", (e) => {
      if (this.socket === ws) this.receive(e.data);
    });
    this.socket = ws;
    this.pingTimer = setInterval(() => {
      if (ws.readyState === 1) ws.send('{"type":"ping"}');
    }, PING_MS);
  }

  /**
   * Closes the socket and opens it again at `url()`: the API moved to another host (spec §7
   * failover, lib/hosts.ts). The new socket's open counts as a reopen, so screens refetch.
   */
  reopen() {
    if (!this.socket || !this.token) return;
    const opened = this.opens > 0;
    this.disconnect();
    this.connect();
    if (opened) this.opens = 1;
  }

  private disconnect() {
    clearInterval(this.pingTimer);
    const ws = this.socket;
    this.socket = null;
    ws?.close(1000, "logout");
  }

  private receive(raw: unknown) {
    const event = parseFrame(raw, userServerMessageSchema);
    if (!event || event.type === "pong") return;
    for (const h of [...(this.handlers.get(event.type) ?? [])]) h(event);
  }
}

/** The channel on the current API host (lib/hosts.ts). */
function socketUrl(): string {
  return socketUrlFor("/ws/user");
}

const partySocket: SocketFactory = (url, protocols, retry) =>
  new ReconnectingWebSocket(url, protocols, {
    minReconnectionDelay: 500,
    maxReconnectionDelay: 10_000,
    connectionTimeout: 6_000,
    shouldReconnectOnClose: (e) => retry(e.code),
  });

/** This tab's channel. */
export const userChannel = new UserChannel($session, partySocket, socketUrl);
/** The channel's connection state. */
export const $userChannelStatus = userChannel.$status;
// Spec §7 host failover: when the API moves to another host, the channel follows.
apiHosts.onChange(() => userChannel.reopen());

/** Opens this tab's channel and keeps it following the session (the app calls it once). */
export function startUserChannel(): () => void {
  return userChannel.start();
}

/** Listens to one kind of private event (imperative form). */
export function onUserEvent<T extends UserEventType>(type: T, handler: (event: UserEventOf<T>) => void): () => void {
  return userChannel.on(type, handler);
}

/**
 * Listens to one kind of private event while the component is mounted; `onReopen` runs after the
 * channel reconnects. Both handlers may change on every render without resubscribing.
 */
export function useUserEvent<T extends UserEventType>(type: T | null, handler: (event: UserEventOf<T>) => void, onReopen?: () => void): void {
  const ref = useRef(handler);
  ref.current = handler;
  const reopenRef = useRef(onReopen);
  reopenRef.current = onReopen;
  useEffect(() => {
    if (type === null) return;
    const offEvent = userChannel.on(type, (e) => ref.current(e));
    const offReopen = userChannel.onReopen(() => reopenRef.current?.());
    return () => {
      offEvent();
      offReopen();
    };
  }, [type]);
}

/** The channel's connection state, for React. */
export function useUserChannelStatus(): UserChannelStatus {
  return useStore($userChannelStatus);
}
