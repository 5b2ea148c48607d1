// Sessions as devices (issue #29): the list shows each signed-in device and marks this one;
// revoking a session cuts its next request (the order path's session hint included) and its open
// socket at once; the sign-in history shows failed attempts.
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { USER_CHANNEL_CLOSE, USER_CHANNEL_PROTOCOL } from "../../schemas/realtime.ts";
import { api, balance, makeUser, seedSpotPair, type TestUser, units } from "./helpers.ts";
import { BTC, USDT } from "./spot-fixtures.ts";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";
const LAPTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

async function login(u: TestUser, userAgent: string, password = u.password) {
  return api("/user/login", { body: { user_string: u.account, password, type: 1 }, headers: { "user-agent": userAgent } });
}
const tokenOf = async (u: TestUser, userAgent: string) => (await login(u, userAgent)).body.message.token as string;

/** The user's private channel opened with `token`, as the web app opens it; `closed` resolves with the close code. */
async function channel(token: string) {
  const res = await SELF.fetch("http://exchange.test/ws/user", { headers: { upgrade: "websocket", "sec-websocket-protocol": `${USER_CHANNEL_PROTOCOL}, bearer.${token}` } });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
  ws.accept();
  return { ws, closed };
}

const sessions = async (token: string) => (await api("/security/sessions", { token })).body.message.list as { id: number; device: string | null; browser: string | null; current: boolean }[];
const userStub = (id: number) => env.USER.get(env.USER.idFromName(`user:${id}`));

beforeAll(async () => {
  await seedSpotPair();
});

describe("the devices list", () => {
  it("shows each signed-in device with its browser, marking the one asking", async () => {
    const user = await makeUser();
    const phone = await tokenOf(user, PHONE);
    await tokenOf(user, LAPTOP);
    const list = await sessions(phone);
    const mine = list.find((s) => s.current)!;
    expect(mine).toMatchObject({ device: "iOS", browser: "Safari", current: true });
    expect(list.filter((s) => s.current)).toHaveLength(1);
    expect(list).toEqual(expect.arrayContaining([expect.objectContaining({ device: "Windows", browser: "Chrome", current: false })]));
    // Another user sees none of them.
    const other = await makeUser();
    expect((await sessions(other.token)).map((s) => s.id)).not.toContain(mine.id);
  });
});

describe("revoking a session", () => {
  it("cuts its next request, its next order and its open socket at once", async () => {
    const user = await makeUser({ verified: 2, balances: [{ currencyId: USDT, units: units("1000") }] });
    const phone = await tokenOf(user, PHONE);
    const laptop = await tokenOf(user, LAPTOP);
    // The laptop has been seen (so this isolate holds a session hint for its orders) and has its channel open.
    expect((await api("/user/info", { token: laptop })).body.type).toBe("ok");
    const socket = await channel(laptop);
    await expect.poll(() => userStub(user.id).socketCount()).toBeGreaterThanOrEqual(1);

    const target = (await sessions(phone)).find((s) => s.browser === "Chrome")!;
    const r = await api("/security/sessions/revoke", { token: phone, body: { id: target.id } });
    expect(r.body.message).toEqual({ revoked: 1 });

    expect(await socket.closed).toBe(USER_CHANNEL_CLOSE.sessionEnded);
    const next = await api("/user/info", { token: laptop });
    expect([next.status, next.body.type]).toEqual([401, "999"]);
    const order = await api("/transaction/walletIn", { token: laptop, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "100", num: "0.1" } });
    expect(order.body.type).toBe("999");
    expect((await balance(user.id, USDT))[1]).toBe(0n);
    // The phone goes on.
    expect((await api("/user/info", { token: phone })).body.type).toBe("ok");
    expect((await sessions(phone)).map((s) => s.id)).not.toContain(target.id);
  });

  it("{all: true} signs out every other device and keeps this one", async () => {
    const user = await makeUser();
    const phone = await tokenOf(user, PHONE);
    const laptop = await tokenOf(user, LAPTOP);
    const socket = await channel(laptop);
    const r = await api("/security/sessions/revoke", { token: phone, body: { all: true } });
    // The laptop's, and the one makeUser made.
    expect(r.body.message).toEqual({ revoked: 2 });
    expect(await socket.closed).toBe(USER_CHANNEL_CLOSE.sessionEnded);
    expect((await api("/user/info", { token: laptop })).body.type).toBe("999");
    expect((await api("/user/info", { token: user.token })).body.type).toBe("999");
    expect((await api("/user/info", { token: phone })).body.type).toBe("ok");
    expect((await sessions(phone)).map((s) => s.current)).toEqual([true]);
  });

  it("refuses this session (log out instead), another user's session and bad input, ending nothing", async () => {
    const user = await makeUser();
    const other = await makeUser();
    const mine = (await sessions(user.token))[0]!;
    const theirs = (await sessions(other.token))[0]!;
    expect((await api("/security/sessions/revoke", { token: user.token, body: { id: mine.id } })).body.code).toBe("session_current");
    expect((await api("/security/sessions/revoke", { token: user.token, body: { id: theirs.id } })).body.code).toBe("not_found");
    expect((await api("/security/sessions/revoke", { token: user.token, body: { all: false } })).status).toBe(400);
    expect((await api("/security/sessions/revoke", { token: user.token, body: {} })).status).toBe(400);
    expect((await api("/user/info", { token: other.token })).body.type).toBe("ok");
    expect((await api("/user/info", { token: user.token })).body.type).toBe("ok");
  });
});

describe("the sign-in history", () => {
  it("lists sign-ins and failed attempts with their device, newest first", async () => {
    const user = await makeUser();
    const failed = await login(user, LAPTOP, "wrong-password-1");
    expect(failed.body.code).toBe("login_failed");
    const phone = await tokenOf(user, PHONE);
    const list = (await api("/security/logins", { token: phone })).body.message.list as { at: number; ok: boolean; device: string }[];
    expect(list.map((e) => [e.ok, e.device])).toEqual([
      [true, "Safari (iOS)"],
      [false, "Chrome (Windows)"],
    ]);
    // Someone else's history stays theirs.
    const other = await makeUser();
    expect((await api("/security/logins", { token: other.token })).body.message.list).toEqual([]);
  });
});
