/**
 * The web client of the user's private channel (web/src/lib/userChannel.ts): it follows the
 * session (login opens, logout closes, another login reopens with the new token), offers the token
 * as a subprotocol on every connect, stops retrying a session the server ended, and hands parsed
 * events to their listeners.
 */
import { atom } from "nanostores";
import { afterEach, describe, expect, it } from "vitest";
import { USER_CHANNEL_PROTOCOL } from "../../schemas/realtime.ts";
import { UserChannel, type ChannelSocket, type SocketFactory } from "../../web/src/lib/userChannel.ts";

const TOKEN_A = "a".repeat(43);
const TOKEN_B = "b".repeat(43);

/** A socket double: the test plays the server and the reconnect loop. */
class FakeSocket implements ChannelSocket {
  readyState = 0;
  closedWith: number | null = null;
  sent: string[] = [];
  private listeners: Record<string, ((e: any) => void)[]> = {};
  constructor(
    readonly url: string,
    readonly protocols: () => string[] | null,
    readonly retry: (code: number) => boolean,
  ) {}
  addEventListener(type: string, fn: (e: any) => void) {
    (this.listeners[type] ??= []).push(fn);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close(code = 1000) {
    this.closedWith ??= code;
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    for (const fn of this.listeners.open ?? []) fn({});
  }
  drop(code: number) {
    this.readyState = 3;
    for (const fn of this.listeners.close ?? []) fn({ code });
  }
  message(data: unknown) {
    for (const fn of this.listeners.message ?? []) fn({ data: typeof data === "string" ? data : JSON.stringify(data) });
  }
}

const running: (() => void)[] = [];
afterEach(() => {
  for (const stop of running.splice(0)) stop();
});

function setup(token = "") {
  const session = atom({ token });
  const sockets: FakeSocket[] = [];
  const factory: SocketFactory = (url, protocols, retry) => {
    const s = new FakeSocket(url, protocols, retry);
    sockets.push(s);
    return s;
  };
  const channel = new UserChannel(session, factory, () => "ws://exchange.test/ws/user");
  const stop = channel.start();
  running.push(stop);
  return { session, sockets, channel, stop };
}

describe("user channel client", () => {
  it("stays closed while logged out and opens at login, offering the token as a subprotocol, not in the URL", () => {
    const { session, sockets, channel } = setup();
    expect(sockets).toHaveLength(0);
    expect(channel.$status.get()).toBe("off");
    session.set({ token: TOKEN_A });
    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.url).toBe("ws://exchange.test/ws/user");
    expect(sockets[0]!.protocols()).toEqual([USER_CHANNEL_PROTOCOL, `bearer.${TOKEN_A}`]);
    expect(channel.$status.get()).toBe("connecting");
    sockets[0]!.open();
    expect(channel.$status.get()).toBe("open");
  });

  it("closes at logout and reopens with the new token when someone else logs in", () => {
    const { session, sockets, channel } = setup(TOKEN_A);
    sockets[0]!.open();
    session.set({ token: "" });
    expect(sockets[0]!.closedWith).toBe(1000);
    expect(channel.$status.get()).toBe("off");
    session.set({ token: TOKEN_B });
    expect(sockets).toHaveLength(2);
    expect(sockets[1]!.protocols()).toEqual([USER_CHANNEL_PROTOCOL, `bearer.${TOKEN_B}`]);
    // A late close of the old socket does not disturb the new one.
    sockets[0]!.drop(1000);
    expect(channel.$status.get()).toBe("connecting");
    sockets[1]!.open();
    expect(channel.$status.get()).toBe("open");
  });

  it("reconnects after a drop and tells listeners to refetch, but not on the first open", () => {
    const { sockets, channel } = setup(TOKEN_A);
    let reopened = 0;
    channel.onReopen(() => reopened++);
    const s = sockets[0]!;
    s.open();
    expect(reopened).toBe(0);
    expect(s.retry(1006)).toBe(true);
    s.drop(1006);
    expect(channel.$status.get()).toBe("connecting");
    // The reconnect loop asks for the protocols again: still this session's token.
    expect(s.protocols()).toEqual([USER_CHANNEL_PROTOCOL, `bearer.${TOKEN_A}`]);
    s.open();
    expect(reopened).toBe(1);
  });

  it("does not fight back when a newer tab pushed it out (no reconnect that would push out another)", () => {
    const { sockets, channel } = setup(TOKEN_A);
    expect(sockets[0]!.retry(4008)).toBe(false);
    sockets[0]!.drop(4008);
    expect(channel.$status.get()).toBe("ended");
    expect(sockets).toHaveLength(1);
  });

  it("gives up on a session the server ended, until a new login", () => {
    const { session, sockets, channel } = setup(TOKEN_A);
    const s = sockets[0]!;
    expect(s.retry(4001)).toBe(false);
    s.drop(4001);
    expect(channel.$status.get()).toBe("ended");
    expect(sockets).toHaveLength(1);
    session.set({ token: TOKEN_B });
    expect(sockets).toHaveLength(2);
    expect(channel.$status.get()).toBe("connecting");
  });

  it("hands each event to the listeners of its type, and ignores what is not a user event", () => {
    const { sockets, channel } = setup(TOKEN_A);
    const orders: unknown[] = [];
    const c2c: unknown[] = [];
    const off = channel.on("order", (e) => orders.push(e.order_id));
    channel.on("c2c_order", (e) => c2c.push(e.is_sure));
    const s = sockets[0]!;
    s.open();
    s.message({ type: "order", pair_id: 1, order_id: 7, status: "filled", filled: "0.1", price: "100.00" });
    s.message({ type: "c2c_order", id: 3, is_sure: 3 });
    s.message({ type: "order", order_id: 8 });
    s.message("{not json");
    s.message({ type: "pong" });
    expect(orders).toEqual([7]);
    expect(c2c).toEqual([3]);
    off();
    s.message({ type: "order", pair_id: 1, order_id: 9, status: "open", filled: "0", price: "1.00" });
    expect(orders).toEqual([7]);
  });

  it("closes for good when stopped", () => {
    const { sockets, channel, stop, session } = setup(TOKEN_A);
    stop();
    expect(sockets[0]!.closedWith).toBe(1000);
    expect(channel.$status.get()).toBe("off");
    session.set({ token: TOKEN_B });
    expect(sockets).toHaveLength(1);
  });

  it("moves to the API host now in use when asked (spec §7 failover), and counts it as a reopen", () => {
    const session = atom({ token: TOKEN_A });
    const sockets: FakeSocket[] = [];
    let host = "ws://api.example.com";
    const channel = new UserChannel(session, (url, protocols, retry) => {
      const s = new FakeSocket(url, protocols, retry);
      sockets.push(s);
      return s;
    }, () => `${host}/ws/user`);
    running.push(channel.start());
    sockets[0]!.open();
    let reopened = 0;
    channel.onReopen(() => (reopened += 1));
    host = "ws://api.example.net";
    channel.reopen();
    expect(sockets[0]!.closedWith).toBe(1000);
    expect(sockets[1]!.url).toBe("ws://api.example.net/ws/user");
    expect(sockets[1]!.protocols()).toEqual([USER_CHANNEL_PROTOCOL, `bearer.${TOKEN_A}`]);
    sockets[1]!.open();
    expect(reopened).toBe(1);
  });

  it("does not open a channel for a logged-out tab when the host changes", () => {
    const { sockets, channel } = setup();
    channel.reopen();
    expect(sockets).toHaveLength(0);
  });
});
