/**
 * The browser tests' Workers, kept by vitest's own process for the whole run (started
 * from tests/e2e/global-setup.ts) and handed to the test files through a small HTTP service on
 * 127.0.0.1 (tests/e2e/exchange.ts is the files' side).
 *
 * - Every file leases a Worker no other file has used: started on a fresh copy of the seeded D1,
 *   so a file never sees another's balances, orders, settings, clock or sessions. A released Worker
 *   is thrown away (that is the reset: a fresh copy of the seeded state), and a replacement starts
 *   in the background. One more is kept started than files wait, so the next file rarely waits for
 *   a start, and no file process loads wrangler.
 * - A file that needs other settings (extra `vars`, e.g. the dev clock) gets a private Worker
 *   started with them, never reused.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { startServer, type TestServer } from "./server.ts";

/** What a file receives for its lease: where its Worker answers, and its --persist-to folder. */
export interface Lease {
  id: number;
  baseUrl: string;
  persistDir: string;
}

interface Waiter {
  resolve(server: TestServer): void;
  reject(err: unknown): void;
}

class ServerPool {
  private readonly ready: TestServer[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly leased = new Map<number, TestServer>();
  private readonly stopping = new Set<Promise<void>>();
  private starting = 0;
  private nextId = 1;
  private closed = false;

  /** A Worker of the shared kind (no extra vars) that no file has used, or a private one with `vars`. */
  async lease(vars: Record<string, string>): Promise<Lease> {
    const server = Object.keys(vars).length > 0 ? await startServer(vars) : await this.takeFresh();
    const id = this.nextId++;
    this.leased.set(id, server);
    return { id, baseUrl: server.baseUrl, persistDir: server.persistDir };
  }

  /**
   * Starts `count` Workers ahead of any lease (the run's first browser files each take one), so
   * the one-off work before them (the bundle, the seeded D1, the starts) is done while other
   * projects' files run.
   */
  warm(count: number): void {
    while (!this.closed && this.ready.length + this.starting < count) this.startOne();
  }

  /** Throws the Worker away; the pool starts a replacement. */
  release(id: number): void {
    const server = this.leased.get(id);
    if (!server) return;
    this.leased.delete(id);
    this.stop(server);
    this.refill();
  }

  private takeFresh(): Promise<TestServer> {
    const server = this.ready.shift();
    const next = server ? Promise.resolve(server) : new Promise<TestServer>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.refill();
    return next;
  }

  /** Starts Workers until every waiting file has one coming, plus one spare. */
  private refill(): void {
    while (!this.closed && this.ready.length + this.starting < this.waiters.length + 1) this.startOne();
  }

  private startOne(): void {
    this.starting += 1;
    startServer().then(
      (server) => {
        this.starting -= 1;
        const waiter = this.waiters.shift();
        if (this.closed) this.stop(server);
        else if (waiter) waiter.resolve(server);
        else this.ready.push(server);
      },
      (err: unknown) => {
        this.starting -= 1;
        // A start that fails is the waiting file's failure (its hook reports it), not a hang.
        this.waiters.shift()?.reject(err);
      },
    );
  }

  private stop(server: TestServer): void {
    const done = server.dispose().catch((err: unknown) => console.warn(`disposing a browser test server failed: ${String(err)}`));
    this.stopping.add(done);
    void done.finally(() => this.stopping.delete(done));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(new Error("the run is ending"));
    for (const server of [...this.ready.splice(0), ...this.leased.values()]) this.stop(server);
    this.leased.clear();
    while (this.stopping.size > 0 || this.starting > 0) {
      await Promise.all(this.stopping);
      if (this.starting > 0) await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/**
 * Starts the service; its address goes to the files (vitest's provide/inject). POST /lease
 * {vars} answers with a Lease once a Worker is ready; POST /release {id}.
 */
export async function startPool(): Promise<{ url: string; warm(count: number): void; close(): Promise<void> }> {
  const pool = new ServerPool();
  const http: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const answer = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    void (async () => {
      try {
        if (req.method === "POST" && req.url === "/lease") {
          const { vars = {} } = (await body(req)) as { vars?: Record<string, string> };
          const lease = await pool.lease(vars);
          // A file that went away while waiting never releases: hand the Worker straight back.
          if (res.destroyed) pool.release(lease.id);
          else answer(200, lease);
        } else if (req.method === "POST" && req.url === "/release") {
          pool.release(Number((await body(req)).id));
          answer(200, {});
        } else {
          answer(404, { error: `no ${req.method} ${req.url}` });
        }
      } catch (err) {
        answer(500, { error: err instanceof Error ? err.stack : String(err) });
      }
    })();
  });
  // A lease may wait minutes for the seeded template on a cold, loaded machine.
  http.requestTimeout = 0;
  http.headersTimeout = 0;
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    warm: (count) => pool.warm(count),
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await pool.close();
    },
  };
}
