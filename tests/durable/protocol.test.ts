import { describe, expect, it } from "vitest";
import { createFanout, type FanoutHost, type PairSocketState } from "../../durable/pair/fanout.ts";

/** A socket double with the hibernation API's attachment calls. */
function fakeSocket() {
  let attachment: unknown = { topics: [], userId: null } satisfies PairSocketState;
  const sent: any[] = [];
  return {
    sent,
    serializeAttachment: (v: unknown) => (attachment = structuredClone(v)),
    deserializeAttachment: () => structuredClone(attachment),
    send: (m: string) => sent.push(JSON.parse(m)),
  };
}

/** A host whose session lookup waits until the test releases it. */
function slowHost() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const host = {
    pairInfo: null,
    book: null,
    database: {
      prepare: () => ({ bind: () => ({ first: async () => (await gate, { user_id: 42 }) }) }),
    },
    sockets: () => [],
  } as unknown as FanoutHost;
  return { host, release };
}

describe("pair socket protocol", () => {
  it("keeps a subscription that arrives while a login is still being checked", async () => {
    const { host, release } = slowHost();
    const protocol = createFanout(host);
    const ws = fakeSocket();
    const login = protocol.onMessage(ws as unknown as WebSocket, JSON.stringify({ type: "login", token: "t".repeat(43) }));
    await protocol.onMessage(ws as unknown as WebSocket, JSON.stringify({ type: "sub", topic: "market_depth_1_3" }));
    release();
    await login;
    expect(ws.deserializeAttachment()).toEqual({ topics: ["market_depth_1_3"], userId: 42 });
    expect(ws.sent).toContainEqual({ type: "logged_in", user_id: 42 });
  });

  it("refuses more than 16 topics on one socket", async () => {
    const protocol = createFanout(slowHost().host);
    const ws = fakeSocket();
    for (let i = 0; i < 17; i++) await protocol.onMessage(ws as unknown as WebSocket, JSON.stringify({ type: "sub", topic: `kline_${i}_3_1min` }));
    expect((ws.deserializeAttachment() as PairSocketState).topics).toHaveLength(16);
    expect(ws.sent.at(-1)).toEqual({ type: "error", message: "too many topics" });
  });
});
