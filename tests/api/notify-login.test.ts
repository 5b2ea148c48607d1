/**
 * A login from a new device or address (issue #16 §1): the owner is told, in the login's own D1
 * batch, with the device (browser and system from the User-Agent), the address and the Beijing
 * time. Not at the very first login (nothing to compare with), not from a device and address seen
 * before (a browser update is the same device), once however many logins race, never to anyone else.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, makeUser, solvedCaptcha, uniqueEmail, type TestUser } from "./helpers.ts";
import { userSocket } from "./seconds-fixtures.ts";
import { describeDevice } from "../../worker/domain/auth/devices.ts";

const CHROME_WIN = (v = "131.0.0.0") => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v} Safari/537.36`;
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const SAFARI_IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";

type Item = { id: number; kind: string; title: string; body: string; link: string };

async function inbox(token: string, lang = "en"): Promise<{ total: number; data: Item[] }> {
  return (await api("/notifications?limit=50", { token, lang })).body.message;
}

function login(user: { account: string; password: string }, ua: string | null, ip: string) {
  const headers: Record<string, string> = { "cf-connecting-ip": ip };
  if (ua !== null) headers["user-agent"] = ua;
  return api("/user/login", { body: { user_string: user.account, password: user.password }, headers });
}

async function registered(ua: string, ip: string) {
  const account = uniqueEmail("dev");
  const password = "Fresh2026pass";
  const captcha = await solvedCaptcha();
  const r = await api("/user/register", {
    body: { type: 1, user_string: account, password, re_password: password, country_code: "86", ...captcha },
    headers: { "user-agent": ua, "cf-connecting-ip": ip },
  });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return { account, password, token: r.body.message.token as string };
}

describe("a login from a new device or address", () => {
  it("is not news at registration or from the device and address it came from, even after a browser update", async () => {
    const u = await registered(CHROME_WIN(), "203.0.113.20");
    expect((await inbox(u.token)).total).toBe(0);
    const again = await login(u, CHROME_WIN("132.0.1.2"), "203.0.113.20");
    expect(again.body.type).toBe("ok");
    expect((await inbox(again.body.message.token)).total).toBe(0);
  });

  it("tells the owner once about a new device, with the device, the address and the time, and tells their open tab", async () => {
    const u = await registered(CHROME_WIN(), "203.0.113.21");
    const other = await makeUser();
    const row = (await env.DB.prepare("SELECT id FROM users WHERE account = ?").bind(u.account).first<{ id: number }>())!;
    const tab = await userSocket({ id: row.id, account: u.account, password: u.password, token: u.token } satisfies TestUser);
    const before = Date.now();
    const logins = await Promise.all([1, 2, 3].map(() => login(u, FIREFOX_LINUX, "203.0.113.21")));
    expect(logins.every((r) => r.body.type === "ok")).toBe(true);
    const items = await inbox(u.token);
    expect(items.total).toBe(1);
    expect(items.data[0]).toMatchObject({ kind: "login_new_device", title: "Login from a new device", link: "/security" });
    const time = /signed in at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \(Beijing time\)/.exec(items.data[0]!.body)?.[1];
    expect(time, items.data[0]!.body).toBeDefined();
    // Beijing time is UTC+8.
    expect(Math.abs(Date.parse(`${time!.replace(" ", "T")}+08:00`) - before)).toBeLessThan(120_000);
    expect(items.data[0]!.body).toContain("from Firefox (Linux), address 203.0.113.21.");
    expect((await inbox(u.token, "zh")).data[0]!.body).toContain("在 Firefox (Linux)（地址 203.0.113.21）登录");
    for (let i = 0; i < 500 && tab.messages.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(tab.messages).toContainEqual({ type: "notification" });
    tab.ws.close();
    // Seen before now: no second item.
    await login(u, FIREFOX_LINUX, "203.0.113.21");
    expect((await inbox(u.token)).total).toBe(1);
    expect((await inbox(other.token)).total).toBe(0);
  });

  it("tells the owner about a known device from a new address", async () => {
    const u = await registered(SAFARI_IPHONE, "203.0.113.22");
    await login(u, SAFARI_IPHONE, "198.51.100.22");
    const items = await inbox(u.token);
    expect(items.total).toBe(1);
    expect(items.data[0]!.body).toContain("from Safari (iOS), address 198.51.100.22.");
  });

  it("says nothing at the first login of an account that has none recorded, and nothing for a failed login", async () => {
    const u = await makeUser({ password: "Owner1234" });
    // makeUser signs in without the login route: nothing recorded yet.
    expect((await env.DB.prepare("SELECT count(*) AS n FROM login_devices WHERE user_id = ?").bind(u.id).first<{ n: number }>())!.n).toBe(0);
    expect((await login({ account: u.account, password: "Owner1234" }, CHROME_WIN(), "203.0.113.23")).body.type).toBe("ok");
    expect((await inbox(u.token)).total).toBe(0);
    expect((await login({ account: u.account, password: "Wrong1234" }, FIREFOX_LINUX, "203.0.113.99")).body.code).toBe("login_failed");
    expect((await inbox(u.token)).total).toBe(0);
    expect((await login({ account: u.account, password: "Owner1234" }, null, "203.0.113.23")).body.type).toBe("ok");
    const items = await inbox(u.token);
    expect(items.total).toBe(1);
    expect(items.data[0]!.body).toContain("from Unknown device, address 203.0.113.23.");
  });
});

describe("the device description", () => {
  it("names the browser and the system without versions", () => {
    expect(describeDevice(CHROME_WIN())).toBe("Chrome (Windows)");
    expect(describeDevice(FIREFOX_LINUX)).toBe("Firefox (Linux)");
    expect(describeDevice(SAFARI_IPHONE)).toBe("Safari (iOS)");
    expect(describeDevice("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36")).toBe("Chrome (Android)");
    expect(describeDevice("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15")).toBe("Safari (macOS)");
    expect(describeDevice(`${CHROME_WIN()} Edg/131.0.0.0`)).toBe("Edge (Windows)");
    expect(describeDevice("curl/8.5.0")).toBe("curl");
    expect(describeDevice("")).toBe("Unknown device");
    expect(describeDevice(undefined)).toBe("Unknown device");
  });
});
