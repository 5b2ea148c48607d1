/**
 * Support tickets (issue #16 §2): a user opens, reads, answers and closes their own tickets; an
 * operator answers from the console (publicly, notifying the user once, or in an internal note the
 * user never sees) and moves the ticket through its states; history is append-only.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, makeUser, seedSpotPair, type TestUser } from "./helpers.ts";
import { makeOperator, seedWalletCurrencies, uploadImage, USDT } from "./wallet-fixtures.ts";
import { TICKETS_PER_HOUR } from "../../worker/domain/support/tickets.ts";
import { JOBS } from "../../worker/scheduled.ts";
import { supportAutoCloseJob } from "../../worker/jobs/support-autoclose.ts";
import { AUTO_CLOSE_MS } from "../../schemas/support.ts";

const open = (user: TestUser, body: Record<string, unknown>, lang = "en") => api("/support/tickets", { token: user.token, body, lang });
const complaint = (user: TestUser, extra: Record<string, unknown> = {}) => open(user, { category: "complaint", subject: "Slow withdrawal", body: "My withdrawal has been pending for two days.", ...extra });

async function opened(user: TestUser, extra: Record<string, unknown> = {}): Promise<number> {
  const r = await complaint(user, extra);
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
  return r.body.message.id as number;
}

const detail = (user: TestUser, id: number) => api(`/support/tickets/${id}`, { token: user.token });
const reply = (op: TestUser, id: number, body: string, internal?: boolean) =>
  api(`/admin/support/tickets/${id}/reply`, { token: op.token, body: { body, ...(internal === undefined ? {} : { internal }) } });
const setStatus = (op: TestUser, id: number, status: string) => api(`/admin/support/tickets/${id}/status`, { token: op.token, body: { status } });
const say = (user: TestUser, id: number, body: string) => api(`/support/tickets/${id}/messages`, { token: user.token, body: { body } });

const ticketCount = async () => (await env.DB.prepare("SELECT count(*) AS n FROM support_tickets").first<{ n: number }>())!.n;
const eventCount = async () => (await env.DB.prepare("SELECT count(*) AS n FROM support_events").first<{ n: number }>())!.n;

/** A deposit claim of the user's, straight in its table (the wallet tests cover how claims are made). */
async function depositOf(user: TestUser): Promise<number> {
  await seedWalletCurrencies();
  const pic = await uploadImage(user);
  const r = await env.DB.prepare("INSERT INTO deposits (user_id, currency_id, amount, address, pic, created_at) VALUES (?, ?, ?, 'TXaddr', ?, ?) RETURNING id")
    .bind(user.id, USDT, 12_500_000_000, pic, Date.now())
    .first<{ id: number }>();
  return r!.id;
}

async function spotOrderOf(user: TestUser): Promise<number> {
  await seedSpotPair();
  const id = 900_000_000 + Math.floor(Math.random() * 1_000_000);
  await env.DB.prepare(
    "INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, created_at, updated_at) VALUES (?, ?, 1, 'buy', 'limit', 6000000, 500000, 1, 3, 1, ?, ?)",
  )
    .bind(id, user.id, Date.now(), Date.now())
    .run();
  return id;
}

describe("a user's tickets", () => {
  it("opens a ticket with pictures, lists it and reads its conversation", async () => {
    const u = await makeUser();
    const pics = [await uploadImage(u), await uploadImage(u)];
    const r = await complaint(u, { images: pics });
    expect(r.status).toBe(200);
    const t = r.body.message;
    expect(t).toMatchObject({ category: "complaint", subject: "Slow withdrawal", status: "new", related_kind: null, related_id: null, last_reply_by: "user" });
    expect(t.events).toHaveLength(1);
    expect(t.events[0]).toMatchObject({ kind: "message", author: "user", body: "My withdrawal has been pending for two days." });
    expect(t.events[0].images).toEqual(pics.map((p) => `/api/new/upload/file/${p}`));

    const list = await api("/support/tickets", { token: u.token });
    expect(list.body.message.total).toBe(1);
    expect(list.body.message.lists[0]).toMatchObject({ id: t.id, subject: "Slow withdrawal", status: "new" });
    expect((await detail(u, t.id)).body.message.events).toHaveLength(1);
  });

  it("lists tickets newest activity first, in pages", async () => {
    const u = await makeUser();
    const op = await makeOperator();
    const first = await opened(u, { subject: "First" });
    const second = await opened(u, { subject: "Second" });
    await opened(u, { subject: "Third" });
    // activity on the first ticket brings it to the top
    await env.DB.prepare("UPDATE support_tickets SET updated_at = updated_at - 60000 WHERE user_id = ?").bind(u.id).run();
    expect((await reply(op, first, "We are looking into it")).body.type).toBe("ok");
    const page1 = await api("/support/tickets?page=1&limit=2", { token: u.token });
    expect(page1.body.message.total).toBe(3);
    expect(page1.body.message.lists.map((t: { subject: string }) => t.subject)[0]).toBe("First");
    const page2 = await api("/support/tickets?page=2&limit=2", { token: u.token });
    expect(page2.body.message.lists).toHaveLength(1);
    expect([...page1.body.message.lists, ...page2.body.message.lists].map((t: { id: number }) => t.id)).toContain(second);
  });

  it("answers 404 for someone else's ticket, for reading, writing and closing alike", async () => {
    const owner = await makeUser();
    const other = await makeUser();
    const id = await opened(owner);
    const before = await eventCount();
    for (const r of [await detail(other, id), await say(other, id, "hello"), await api(`/support/tickets/${id}/close`, { token: other.token, method: "POST" }), await detail(other, 987654321)]) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect(await eventCount()).toBe(before);
    expect((await api("/support/tickets", { token: other.token })).body.message.total).toBe(0);
    expect((await api("/support/tickets")).body.type).toBe("999");
  });

  it("links a ticket about an order only to one of the user's own orders", async () => {
    const u = await makeUser();
    const other = await makeUser();
    const deposit = await depositOf(u);
    const theirs = await depositOf(other);
    const spot = await spotOrderOf(u);

    const ok = await open(u, { category: "order", subject: "Deposit not credited", body: "Sent hours ago", related_kind: "deposit", related_id: deposit });
    expect(ok.body.message).toMatchObject({ category: "order", related_kind: "deposit", related_id: deposit });
    const spotOk = await open(u, { category: "complaint", subject: "Order stuck", body: "Limit order", related_kind: "spot", related_id: String(spot) });
    expect(spotOk.body.message).toMatchObject({ related_kind: "spot", related_id: spot });

    const before = await ticketCount();
    for (const [kind, id] of [["deposit", theirs], ["withdrawal", deposit], ["c2c", 123456], ["spot", deposit]] as const) {
      const r = await open(u, { category: "order", subject: "x", body: "y", related_kind: kind, related_id: id }, "zh");
      expect(r.status, `${kind} ${id}`).toBe(404);
      expect(r.body.code).toBe("support_related_not_found");
      expect(r.body.message).toBe("未找到您的该笔订单：请选择您自己的订单");
    }
    expect(await ticketCount()).toBe(before);

    const recent = await api("/support/orders?kind=deposit", { token: u.token });
    expect(recent.body.message).toEqual([expect.objectContaining({ id: deposit, name: "USDT", amount: "125", unit: "USDT" })]);
    expect((await api("/support/orders?kind=spot", { token: u.token })).body.message[0]).toMatchObject({ id: spot, name: "BTC/USDT", side: "buy", amount: "0.5", unit: "BTC" });
    expect((await api("/support/orders?kind=deposit", { token: other.token })).body.message.map((o: { id: number }) => o.id)).toEqual([theirs]);
  });

  it("refuses bad input with a translated 400 and writes nothing", async () => {
    const u = await makeUser();
    const stranger = await makeUser();
    const theirPic = await uploadImage(stranger);
    const mine = await uploadImage(u);
    const tickets = await ticketCount();
    const events = await eventCount();
    const bad: [Record<string, unknown>, string][] = [
      [{ subject: "s", body: "b" }, "support_category"],
      [{ category: "praise", subject: "s", body: "b" }, "support_category"],
      [{ category: "question", subject: "  ", body: "b" }, "support_subject"],
      [{ category: "question", subject: "s", body: "" }, "support_body"],
      [{ category: "question", subject: "x".repeat(121), body: "b" }, "too_long"],
      [{ category: "question", subject: "s", body: "b".repeat(4001) }, "too_long"],
      [{ category: "order", subject: "s", body: "b" }, "support_related_required"],
      [{ category: "question", subject: "s", body: "b", related_kind: "spot" }, "support_related_required"],
      [{ category: "question", subject: "s", body: "b", related_id: 5 }, "support_related_required"],
      [{ category: "order", subject: "s", body: "b", related_kind: "futures", related_id: 5 }, "support_related_kind"],
      [{ category: "order", subject: "s", body: "b", related_kind: "spot", related_id: -3 }, "support_related_id"],
      [{ category: "question", subject: "s", body: "b", images: [mine, mine, mine, mine, mine] }, "support_images_limit"],
      [{ category: "question", subject: "s", body: "b", images: [theirPic] }, "picture_required"],
      [{ category: "question", subject: "s", body: "b", images: ["not-an-upload"] }, "picture_required"],
    ];
    for (const [body, code] of bad) {
      const r = await open(u, body, "es");
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code, JSON.stringify(body)).toBe(code);
      expect(r.body.message).not.toMatch(/^[a-z_]+$/);
    }
    const id = await opened(u);
    for (const body of [{}, { body: "" }, { body: "ok", images: "x" }]) {
      const r = await api(`/support/tickets/${id}/messages`, { token: u.token, body, lang: "kr" });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await api("/support/tickets/abc", { token: u.token })).status).toBe(400);
    expect((await api("/support/tickets?limit=1000", { token: u.token })).status).toBe(400);
    expect((await api("/support/orders?kind=house", { token: u.token })).status).toBe(400);
    expect(await ticketCount()).toBe(tickets + 1);
    expect(await eventCount()).toBe(events + 1);
  });

  it(`lets no more than ${TICKETS_PER_HOUR} tickets an hour through, even in parallel`, async () => {
    const u = await makeUser();
    const results = await Promise.all(Array.from({ length: TICKETS_PER_HOUR + 5 }, (_, i) => complaint(u, { subject: `Ticket ${i}` })));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(TICKETS_PER_HOUR);
    expect(limited).toHaveLength(5);
    expect(limited[0]!.body.code).toBe("too_many_requests");
    const n = await env.DB.prepare("SELECT count(*) AS n FROM support_tickets WHERE user_id = ?").bind(u.id).first<{ n: number }>();
    expect(n!.n).toBe(TICKETS_PER_HOUR);
    // another user is not held back
    expect((await complaint(await makeUser())).status).toBe(200);
  });

  it("closes one's ticket, after which nobody can write on it", async () => {
    const u = await makeUser();
    const op = await makeOperator();
    const id = await opened(u);
    const closed = await api(`/support/tickets/${id}/close`, { token: u.token, method: "POST" });
    expect(closed.body.message.status).toBe("closed");
    expect(closed.body.message.events.at(-1)).toMatchObject({ kind: "status", author: "user", from_status: "new", to_status: "closed" });
    const again = await api(`/support/tickets/${id}/close`, { token: u.token, method: "POST" });
    expect(again.body.message.events).toHaveLength(closed.body.message.events.length);
    const r = await say(u, id, "one more thing");
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("support_closed");
    expect((await reply(op, id, "hello")).body.code).toBe("support_closed");
    expect((await setStatus(op, id, "open")).body.code).toBe("support_transition");
  });
});

describe("the console", () => {
  it("is for operators only", async () => {
    const u = await makeUser();
    const id = await opened(u);
    for (const r of [await api("/admin/support/tickets", { token: u.token }), await reply(u, id, "hi"), await setStatus(u, id, "resolved")]) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("no_permission");
    }
  });

  it("queues waiting tickets oldest first with waiting and first-response times, filtered by status and category", async () => {
    const op = await makeOperator();
    const a = await makeUser();
    const b = await makeUser();
    const older = await opened(a, { subject: "Older" });
    const newer = await opened(b, { subject: "Newer" });
    const answered = await opened(b, { subject: "Answered", category: "feedback" });
    await env.DB.prepare("UPDATE support_tickets SET last_user_at = last_user_at - 3600000 WHERE id = ?").bind(older).run();
    await reply(op, answered, "Thanks for the feedback");

    const q = await api("/admin/support/tickets?limit=100", { token: op.token });
    const ids = q.body.message.lists.map((t: { id: number }) => t.id);
    expect(ids.indexOf(older)).toBeLessThan(ids.indexOf(newer));
    expect(ids.indexOf(newer)).toBeLessThan(ids.indexOf(answered));
    const row = q.body.message.lists.find((t: { id: number }) => t.id === older);
    expect(row).toMatchObject({ account: a.account, user_id: a.id, own: false, first_response_seconds: null, status: "new" });
    expect(row.waiting_seconds).toBeGreaterThanOrEqual(3600);
    const done = q.body.message.lists.find((t: { id: number }) => t.id === answered);
    expect(done).toMatchObject({ status: "open", waiting_seconds: null, last_reply_by: "support" });
    expect(done.first_response_seconds).toBeGreaterThanOrEqual(0);

    const feedback = await api("/admin/support/tickets?category=feedback&status=open&limit=100", { token: op.token });
    expect(feedback.body.message.lists.map((t: { id: number }) => t.id)).toContain(answered);
    expect(feedback.body.message.lists.every((t: { category: string; status: string }) => t.category === "feedback" && t.status === "open")).toBe(true);
    expect((await api("/admin/support/tickets?status=waiting", { token: op.token, lang: "zh" })).status).toBe(400);
  });

  it("never shows internal notes to the user, nor notifies them of one", async () => {
    const u = await makeUser();
    const op = await makeOperator();
    const id = await opened(u);
    const note = await reply(op, id, "User has two open withdrawals, check with finance", true);
    expect(note.body.message.events.at(-1)).toMatchObject({ kind: "note", author: "support", operator_id: op.id, operator_account: op.account });
    expect(note.body.message.status).toBe("new");
    const seen = await detail(u, id);
    expect(JSON.stringify(seen.body)).not.toContain("finance");
    expect(seen.body.message.events.every((e: { kind: string }) => e.kind !== "note")).toBe(true);
    expect(JSON.stringify((await api("/support/tickets", { token: u.token })).body)).not.toContain("finance");
    expect((await api("/notifications", { token: u.token })).body.message.total).toBe(0);
  });

  it("notifies the user of a public reply exactly once, in their language", async () => {
    const u = await makeUser();
    const op = await makeOperator();
    const id = await opened(u, { subject: "Where is my BTC" });
    const r = await reply(op, id, "It was sent, see the transaction id");
    expect(r.body.message.status).toBe("open");
    const replyId = r.body.message.events.at(-1).id;
    const inbox = await api("/notifications", { token: u.token, lang: "zh" });
    expect(inbox.body.message.total).toBe(1);
    expect(inbox.body.message.data[0]).toMatchObject({ kind: "support_reply", link: `/support/ticket?id=${id}` });
    expect(inbox.body.message.data[0].body).toContain("Where is my BTC");
    const row = await env.DB.prepare("SELECT event_key FROM notifications WHERE user_id = ?").bind(u.id).first<{ event_key: string }>();
    expect(row!.event_key).toBe(`support:${replyId}:reply`);
    // a second reply is a second event, a second notification
    await reply(op, id, "Anything else?");
    expect((await api("/notifications", { token: u.token })).body.message.total).toBe(2);
    const seen = await detail(u, id);
    expect(seen.body.message.events.filter((e: { author: string; kind: string }) => e.author === "support" && e.kind === "message").map((e: { body: string }) => e.body)).toEqual([
      "It was sent, see the transaction id",
      "Anything else?",
    ]);
  });

  it("gives one notification per reply when operators answer in parallel, and opens the ticket once", async () => {
    const u = await makeUser();
    const [op1, op2] = [await makeOperator(), await makeOperator()];
    const id = await opened(u);
    const results = await Promise.all([op1, op2, op1, op2].map((op, i) => reply(op, id, `answer ${i}`)));
    expect(results.map((r) => r.body.type)).toEqual(["ok", "ok", "ok", "ok"]);
    const events = (await detail(u, id)).body.message.events;
    const replies = events.filter((e: { kind: string; author: string }) => e.kind === "message" && e.author === "support");
    expect(replies).toHaveLength(4);
    expect(events.filter((e: { kind: string }) => e.kind === "status").map((e: { to_status: string }) => e.to_status)).toEqual(["open"]);
    const keys = await env.DB.prepare("SELECT event_key FROM notifications WHERE user_id = ? ORDER BY event_key").bind(u.id).all<{ event_key: string }>();
    expect(keys.results.map((k) => k.event_key)).toEqual(replies.map((e: { id: number }) => `support:${e.id}:reply`).sort());
  });

  it("refuses an operator their own ticket, and audits the refusal", async () => {
    const op = await makeOperator();
    const id = await opened(op);
    const before = await eventCount();
    for (const r of [await reply(op, id, "answering myself"), await reply(op, id, "note", true), await setStatus(op, id, "resolved")]) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("own_record");
    }
    expect(await eventCount()).toBe(before);
    const refused = await env.DB.prepare("SELECT action FROM audit_log WHERE operator_id = ? AND target_type = 'support_ticket' ORDER BY id").bind(op.id).all<{ action: string }>();
    expect(refused.results.map((a) => a.action)).toEqual(["support.reply.refused", "support.note.refused", "support.status.refused"]);
    const listed = await api("/admin/support/tickets?limit=100", { token: op.token });
    expect(listed.body.message.lists.find((t: { id: number }) => t.id === id).own).toBe(true);
    // another operator may handle it; the database refuses the owner even past the check
    expect((await reply(await makeOperator(), id, "I'll take it")).body.type).toBe("ok");
    await expect(
      env.DB.prepare("INSERT INTO support_events (id, ticket_id, kind, author_role, author_id, body, created_at) VALUES (1, ?, 'note', 'operator', ?, 'x', 1)").bind(id, op.id).run(),
    ).rejects.toThrow(/own_record/);
  });

  it("audits every reply, note and change of state", async () => {
    const u = await makeUser();
    const op = await makeOperator();
    const id = await opened(u);
    await reply(op, id, "public");
    await reply(op, id, "private", true);
    await setStatus(op, id, "resolved");
    const rows = await env.DB.prepare("SELECT action, detail FROM audit_log WHERE operator_id = ? AND target_type = 'support_ticket' AND target_id = ? ORDER BY id").bind(op.id, String(id)).all<{ action: string; detail: string }>();
    expect(rows.results.map((r) => r.action)).toEqual(["support.reply", "support.note", "support.status"]);
    expect(JSON.parse(rows.results[2]!.detail)).toMatchObject({ from: "open", to: "resolved", user_id: u.id });
  });
});

describe("the ticket's states and history", () => {
  it("moves new → open → pending_customer → resolved → closed, and a user reply reopens", async () => {
    const u = await makeUser();
    const op = await makeOperator();
    const id = await opened(u);
    expect((await setStatus(op, id, "open")).body.message.status).toBe("open");
    expect((await setStatus(op, id, "pending_customer")).body.message.status).toBe("pending_customer");
    expect((await say(u, id, "Here is the screenshot")).body.message.status).toBe("open");
    expect((await setStatus(op, id, "resolved")).body.message.status).toBe("resolved");
    const reopened = await say(u, id, "It happened again");
    expect(reopened.body.message.status).toBe("open");
    expect(reopened.body.message.events.slice(-2)).toMatchObject([
      { kind: "message", author: "user", body: "It happened again" },
      { kind: "status", author: "user", from_status: "resolved", to_status: "open" },
    ]);
    // a reply on an open ticket changes no state
    expect((await say(u, id, "Still there?")).body.message.events.at(-1)).toMatchObject({ kind: "message" });
    expect((await setStatus(op, id, "closed")).body.message.status).toBe("closed");
    const steps = (await detail(u, id)).body.message.events.filter((e: { kind: string }) => e.kind === "status").map((e: { from_status: string; to_status: string }) => `${e.from_status}>${e.to_status}`);
    expect(steps).toEqual(["new>open", "open>pending_customer", "pending_customer>open", "open>resolved", "resolved>open", "open>closed"]);
  });

  it("refuses steps outside the machine", async () => {
    const u = await makeUser();
    const op = await makeOperator();
    const id = await opened(u);
    const back = await setStatus(op, id, "new");
    expect(back.status).toBe(409);
    expect(back.body.code).toBe("support_transition");
    await setStatus(op, id, "resolved");
    expect((await setStatus(op, id, "pending_customer")).body.code).toBe("support_transition");
    expect((await setStatus(op, id, "bogus")).status).toBe(400);
    await expect(env.DB.prepare("UPDATE support_tickets SET status = 'new' WHERE id = ?").bind(id).run()).rejects.toThrow(/state_conflict/);
  });

  it("keeps the history append-only", async () => {
    const u = await makeUser();
    const id = await opened(u);
    await expect(env.DB.prepare("UPDATE support_events SET body = 'edited' WHERE ticket_id = ?").bind(id).run()).rejects.toThrow(/append-only/);
    await expect(env.DB.prepare("DELETE FROM support_events WHERE ticket_id = ?").bind(id).run()).rejects.toThrow(/append-only/);
    await expect(env.DB.prepare("DELETE FROM support_tickets WHERE id = ?").bind(id).run()).rejects.toThrow(/kept/);
    expect((await detail(u, id)).body.message.events[0].body).toBe("My withdrawal has been pending for two days.");
  });

  it("closes a ticket by itself 7 days after it was resolved, unless the user wrote again", async () => {
    const u = await makeUser();
    const op = await makeOperator();
    const stale = await opened(u, { subject: "Stale" });
    const fresh = await opened(u, { subject: "Fresh" });
    const revived = await opened(u, { subject: "Revived" });
    for (const id of [stale, fresh, revived]) await setStatus(op, id, "resolved");
    await say(u, revived, "Not fixed after all");
    const now = Date.now();
    await env.DB.prepare("UPDATE support_tickets SET resolved_at = ? WHERE id IN (?, ?)").bind(now - AUTO_CLOSE_MS - 1000, stale, revived).run();

    // the every-minute cron runs the job; a cron that fires twice closes nothing twice
    expect(JOBS["* * * * *"]).toContain(supportAutoCloseJob);
    await supportAutoCloseJob.run(env, { cron: "* * * * *", now });
    await supportAutoCloseJob.run(env, { cron: "* * * * *", now });
    const stateOf = async (id: number) => (await detail(u, id)).body.message;
    const s = await stateOf(stale);
    expect(s.status).toBe("closed");
    expect(s.events.filter((e: { to_status: string }) => e.to_status === "closed")).toEqual([expect.objectContaining({ author: "system", from_status: "resolved" })]);
    expect((await stateOf(fresh)).status).toBe("resolved");
    expect((await stateOf(revived)).status).toBe("open");
  });
});
