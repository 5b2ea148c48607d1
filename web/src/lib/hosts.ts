/**
 * API host failover (spec §7): a deployment may publish the same API under several hosts, for
 * regions where one domain gets blocked. When home, login, register or the account check fail
 * (no answer, a timeout or a 5xx), the client retries up to 3 times with a delay doubling from
 * 1 s, each time on the least-failed host, and the pair sockets follow the chosen host.
 *
 * The hosts come from the build: `VITE_API_HOSTS`, a comma-separated list of origins
 * (`https://api.example.com,https://api.example.net`); unset or empty means the page's own origin
 * only, written "" here (relative URLs, as before). The pure parts (`HostPool`, `withFailover`)
 * take their clock through `sleep`, so tests run them without waiting.
 */

/** The configured API origins, "" standing for the page's own origin. */
export function parseHosts(raw: string | undefined): string[] {
  const hosts = (raw ?? "")
    .split(",")
    .map((h) => h.trim().replace(/\/+$/, ""))
    .filter((h) => h === "" || /^https?:\/\/[^/?#\s]+$/i.test(h));
  const unique = [...new Set(hosts.filter((h) => h !== ""))];
  return unique.length > 0 ? unique : [""];
}

/** The hosts in use and how often each has failed; the current one is where requests go. */
export class HostPool {
  private readonly failures: number[];
  private index = 0;
  private readonly listeners = new Set<(host: string) => void>();

  constructor(readonly hosts: readonly string[]) {
    if (hosts.length === 0) throw new Error("HostPool needs at least one host");
    this.failures = hosts.map(() => 0);
  }

  get current(): string {
    return this.hosts[this.index]!;
  }

  /** Failures counted per host, in list order (for tests and diagnostics). */
  failureCounts(): number[] {
    return [...this.failures];
  }

  /**
   * Counts a failure of `host` and moves to the least-failed host. Ties go to the first host
   * after the failed one in list order, so two equally good hosts take turns. With one host
   * nothing moves. Returns the host now in use.
   */
  fail(host: string): string {
    const failed = this.hosts.indexOf(host);
    if (failed < 0) return this.current;
    this.failures[failed]! += 1;
    if (this.hosts.length === 1) return this.current;
    let best = -1;
    for (let step = 1; step <= this.hosts.length; step++) {
      const i = (failed + step) % this.hosts.length;
      if (best < 0 || this.failures[i]! < this.failures[best]!) best = i;
    }
    if (best !== this.index) {
      this.index = best;
      for (const fn of this.listeners) fn(this.current);
    }
    return this.current;
  }

  /** Called with the new host whenever the current one changes. Returns the unsubscribe. */
  onChange(fn: (host: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

export interface FailoverOptions<T> {
  pool: HostPool;
  /** Whether an outcome counts as a host failure: network errors, timeouts, 5xx answers. */
  failed: (outcome: { ok: true; value: T } | { ok: false; error: unknown }) => boolean;
  /** Waits `ms` (setTimeout in the app; a fake clock in tests). */
  sleep: (ms: number) => Promise<void>;
  /** Retries after the first attempt (spec: 3). */
  retries?: number;
  /** The first delay; each next one doubles (spec: 1000 ms). */
  baseDelayMs?: number;
}

/**
 * Runs `attempt` on the current host; after a failure counts it against that host, waits
 * 1 s, 2 s, 4 s… and tries again on the host the pool now picks, at most `retries` more times.
 * The last outcome is returned (or thrown) as it is, failed or not.
 */
export async function withFailover<T>(attempt: (host: string) => Promise<T>, o: FailoverOptions<T>): Promise<T> {
  const retries = o.retries ?? 3;
  const base = o.baseDelayMs ?? 1000;
  for (let i = 0; ; i++) {
    const host = o.pool.current;
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await attempt(host) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (i >= retries || !o.failed(outcome)) {
      if (outcome.ok) return outcome.value;
      throw outcome.error;
    }
    o.pool.fail(host);
    await o.sleep(base * 2 ** i);
  }
}

/** The app's hosts, from the build's VITE_API_HOSTS. */
export const apiHosts = new HostPool(parseHosts(import.meta.env.VITE_API_HOSTS as string | undefined));

/** An API path ("/api/…") on the current host. */
export function apiUrl(path: string, host: string = apiHosts.current): string {
  return host === "" ? path : `${host}${path}`;
}

/** A WebSocket URL for a path ("/ws?pair=1") on the current host. */
export function socketUrlFor(path: string, host: string = apiHosts.current): string {
  if (host === "") {
    const proto = window.location.protocol === "https:" ? "wss" : "ws";
    return `${proto}://${window.location.host}${path}`;
  }
  return `${host.replace(/^http/i, "ws")}${path}`;
}

/** A socket frame read against `schema`: the message, or null for a binary frame, bad JSON or a shape it does not know. */
export function parseFrame<T>(raw: unknown, schema: { safeParse: (v: unknown) => { success: true; data: T } | { success: false } }): T | null {
  if (typeof raw !== "string") return null;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
