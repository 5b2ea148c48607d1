/**
 * The notification centre's own surface (issue #16 §1): paging, language, read marks, isolation
 * and exactly-once per event key. Each event's own notification is tested with that event.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, makeUser } from "./helpers.ts";
import { notificationsStatement, notificationStatement } from "../../worker/domain/notifications/inbox.ts";
import { NOTIFICATION_READS_PER_MINUTE } from "../../worker/routes/notifications.ts";

async function put(userId: number, key: string, params: Record<string, string> = { amount: "12.5", currency: "USDT" }) {
  await env.DB.batch([notificationStatement(env.DB, { userId, kind: "deposit_credited", key, params, link: "/recharge" })]);
}

describe("notification centre", () => {
  it("lists one's items newest first with the unread count, in the request's language", async () => {
    const u = await makeUser();
    await put(u.id, "deposit:1:credited");
    await put(u.id, "deposit:2:credited", { amount: "3", currency: "BTC" });
    const en = await api("/notifications?page=1&limit=1", { token: u.token });
    expect(en.status).toBe(200);
    expect(en.body.message.total).toBe(2);
    expect(en.body.message.unread).toBe(2);
    expect(en.body.message.data).toHaveLength(1);
    expect(en.body.message.data[0]).toMatchObject({ kind: "deposit_credited", title: "Deposit credited", link: "/recharge", read: false });
    expect(en.body.message.data[0].body).toContain("3 BTC");
    expect(en.body.message.data[0].created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const zh = await api("/notifications", { token: u.token, lang: "zh" });
    expect(zh.body.message.data.map((n: { title: string }) => n.title)).toEqual(["充值已到账", "充值已到账"]);
  });

  it("never shows or marks another user's items", async () => {
    const a = await makeUser();
    const b = await makeUser();
    await put(a.id, "deposit:9:credited");
    const mine = await api("/notifications", { token: a.token });
    const id = mine.body.message.data[0].id;
    expect((await api("/notifications", { token: b.token })).body.message.total).toBe(0);
    const marked = await api("/notifications/read", { token: b.token, body: { ids: [id] } });
    expect(marked.body.message.unread).toBe(0);
    expect((await api("/notifications", { token: a.token })).body.message.unread).toBe(1);
  });

  it("marks chosen items or all of them read", async () => {
    const u = await makeUser();
    for (const k of ["a", "b", "c"]) await put(u.id, `deposit:${k}:credited`);
    const ids = (await api("/notifications", { token: u.token })).body.message.data.map((n: { id: number }) => n.id);
    expect((await api("/notifications/read", { token: u.token, body: { ids: [ids[0]] } })).body.message.unread).toBe(2);
    expect((await api("/notifications", { token: u.token })).body.message.data[0].read).toBe(true);
    expect((await api("/notifications/read", { token: u.token, body: { all: true } })).body.message.unread).toBe(0);
  });

  it("keeps one item per event however often the event is applied, even in parallel", async () => {
    const u = await makeUser();
    await Promise.all(Array.from({ length: 8 }, () => put(u.id, "deposit:77:credited")));
    await env.DB.batch(notificationsStatement(env.DB, [1, 2, 3].map(() => ({ userId: u.id, kind: "deposit_credited" as const, key: "deposit:77:credited" }))));
    expect((await api("/notifications", { token: u.token })).body.message.total).toBe(1);
  });

  it("refuses bad input with a translated error and needs a login", async () => {
    const u = await makeUser();
    expect((await api("/notifications")).body.type).toBe("999");
    for (const body of [{}, { ids: [] }, { ids: ["x"] }, { all: false }, { ids: [1], all: true }, { ids: Array.from({ length: 101 }, (_, i) => i + 1) }]) {
      const r = await api("/notifications/read", { token: u.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.type).toBe("error");
    }
    for (const q of ["page=0", "limit=51", "page=x"]) {
      const r = await api(`/notifications?${q}`, { token: u.token, lang: "zh" });
      expect(r.status, q).toBe(400);
    }
  });

  it(`lets at most ${NOTIFICATION_READS_PER_MINUTE} inbox reads a minute through per user, then answers too_many_requests`, async () => {
    const [u, other] = await Promise.all([makeUser(), makeUser()]);
    await put(u.id, "deposit:1:credited");
    const reads = await Promise.all(
      Array.from({ length: 2 * NOTIFICATION_READS_PER_MINUTE + 5 }, (_, i) =>
        i % 2 === 0 ? api("/notifications?limit=1", { token: u.token }) : api("/notifications/read", { token: u.token, body: { all: true } }),
      ),
    );
    // Twice the limit and five: even a burst that straddles a minute's end (the counter starts
    // again) has at least five refused; within one minute, all but the limit are.
    const refused = reads.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(5);
    expect(refused.length).toBeLessThanOrEqual(NOTIFICATION_READS_PER_MINUTE + 5);
    expect(refused[0]!.body).toMatchObject({ type: "error", code: "too_many_requests", message: "Too many requests, please try again later" });
    expect(reads.filter((r) => r.status !== 429 && r.status !== 200)).toEqual([]);
    // another user reads on
    expect((await api("/notifications", { token: other.token })).status).toBe(200);
  });
});
