/**
 * Issue #17 (a): what the local runtime charges for the hops an order makes, with none of our work
 * in them. Driven by bench/floor.mjs (16 in flight, runtime CPU per request from /proc):
 *   POST /raw       a 404 without Hono (the HTTP request alone)
 *   POST /api/none  a 404 through Hono with the exchange's middleware shape (request id, locale,
 *                   CORS check, security headers, JSON error body)
 *   POST /api/d1    the above + the JSON body read + ONE D1 batch of 3 small statements
 *                   (a movement row, a balance update, an order row)
 *   POST /api/rpc   the above + ONE RPC into a Durable Object that runs one SQLite transaction
 *                   (an order row and a counter)
 *   POST /api/call  the above + ONE RPC into the object that writes nothing (the call alone;
 *                   rpc minus call is what one small commit costs)
 *   POST /api/both  the D1 batch, then the RPC: the least an order does
 *   POST /setup     creates the D1 tables (once, before measuring)
 */
import { DurableObject } from "cloudflare:workers";
import { Hono } from "hono";

// Plain JavaScript (no workers types in the Node typecheck); bindings: DB (D1), BOOK (FloorObject).
export class FloorObject extends DurableObject {
  ready = false;
  place(id, userId, price, qty) {
    const sql = this.ctx.storage.sql;
    if (!this.ready) {
      sql.exec("CREATE TABLE IF NOT EXISTS book (id INTEGER PRIMARY KEY, user_id INTEGER, price INTEGER, qty INTEGER)");
      sql.exec("CREATE TABLE IF NOT EXISTS counters (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
      this.ready = true;
    }
    this.ctx.storage.transactionSync(() => {
      sql.exec("INSERT INTO book (id, user_id, price, qty) VALUES (?, ?, ?, ?)", id, userId, price, qty);
      sql.exec("INSERT INTO counters (k, v) VALUES ('orders', 1) ON CONFLICT(k) DO UPDATE SET v = v + 1");
    });
    return { id, status: "open" };
  }
  /** Writes nothing: what the call alone costs, next to `place` (the same call and one commit). */
  noop(id) {
    return { id, status: "none" };
  }
}

const app = new Hono();
// The exchange's middleware shape (worker/app.ts): request id and locale, then response headers; the CORS check.
app.use("*", async (c, next) => {
  c.set("requestId", c.req.header("cf-ray") ?? crypto.randomUUID());
  c.set("locale", c.req.header("lang") ?? c.req.query("lang") ?? "en");
  await next();
  // Set on the answer in place, as worker/app.ts does since session 22 (c.header here copied the Response per header).
  const h = c.res.headers;
  h.set("x-request-id", c.get("requestId"));
  if (!h.has("cache-control")) h.set("Cache-Control", "no-store");
  h.set("X-Content-Type-Options", "nosniff");
  h.set("Referrer-Policy", "strict-origin-when-cross-origin");
});
app.use("*", async (_c, next) => next());
app.notFound((c) => c.json({ type: "error", code: 404, message: "Not found" }, 404));

let seq = 0;
const nextId = () => Date.now() * 4096 + (seq++ % 4096);

function freeze(db, id) {
  const key = `freeze:${id}`;
  return db.batch([
    db.prepare("INSERT INTO movements (key, kind, created_at) VALUES (?, 'freeze', ?)").bind(key, Date.now()),
    db.prepare("UPDATE balances SET available = available - ?, frozen = frozen + ? WHERE user_id = ?").bind(10, 10, 1),
    db.prepare("INSERT INTO orders (id, user_id, price, qty, created_at) VALUES (?, ?, ?, ?, ?)").bind(id, 1, 100, 1, Date.now()),
  ]);
}

const book = (env) => env.BOOK.get(env.BOOK.idFromName("pair-1"));

app.post("/api/d1", async (c) => {
  const body = await c.req.json();
  const id = nextId();
  await freeze(c.env.DB, id);
  return c.json({ type: "ok", data: { order_id: String(id), price: body.price } });
});
app.post("/api/rpc", async (c) => {
  const body = await c.req.json();
  const r = await book(c.env).place(nextId(), 1, body.price, body.num);
  return c.json({ type: "ok", data: r });
});
app.post("/api/call", async (c) => {
  const body = await c.req.json();
  const r = await book(c.env).noop(nextId(), 1, body.price, body.num);
  return c.json({ type: "ok", data: r });
});
app.post("/api/both", async (c) => {
  const body = await c.req.json();
  const id = nextId();
  await freeze(c.env.DB, id);
  const r = await book(c.env).place(id, 1, body.price, body.num);
  return c.json({ type: "ok", data: r });
});

export default {
  async fetch(request, env, ctx) {
    const path = new URL(request.url).pathname;
    if (path === "/raw") return new Response(null, { status: 404 });
    if (path === "/setup") {
      await env.DB.batch([
        env.DB.prepare("CREATE TABLE IF NOT EXISTS movements (key TEXT PRIMARY KEY, kind TEXT NOT NULL, created_at INTEGER NOT NULL)"),
        env.DB.prepare("CREATE TABLE IF NOT EXISTS balances (user_id INTEGER PRIMARY KEY, available INTEGER NOT NULL CHECK (available >= 0), frozen INTEGER NOT NULL CHECK (frozen >= 0))"),
        env.DB.prepare("CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, price INTEGER NOT NULL, qty INTEGER NOT NULL, created_at INTEGER NOT NULL)"),
        env.DB.prepare("INSERT OR REPLACE INTO balances (user_id, available, frozen) VALUES (1, 1000000000000, 0)"),
      ]);
      return new Response("ok");
    }
    return app.fetch(request, env, ctx);
  },
};
