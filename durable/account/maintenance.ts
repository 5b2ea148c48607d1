/**
 * The maintenance switch in the objects (issue #28, session 15; docs/architecture/account-objects.md,
 * "The synchronous path without D1 (session 15)"). With `ACCOUNTS=objects` the calls that start a
 * money move of a user action (a hold, a transfer, a cancel's lookup, the treasury's cover) check
 * the switch in the object they run in, in that same call, instead of the Worker reading D1's
 * `settings` row on the way.
 *
 * Where the object learns it: `MAINTENANCE_SHARDS` switch objects (`maintenance:{k}`, instances of
 * the account object class), each holding the switch as the operator last set it (pushed by
 * worker/lib/maintenance.ts `setMaintenance`, in its own storage; one never told reads D1 once).
 * An object asks its switch object and may trust an "off" for `MAINTENANCE_LEASE_MS` from the moment
 * it asked (a lease); an "on" is never remembered (asked again at the next call, so turning the
 * switch off takes effect at once). The switch object remembers the latest end of any lease it
 * gave; turning the switch on answers how long that still runs, and the operator's request waits it
 * out before it answers. So when the operator's request has answered "on", no object starts a hold,
 * a transfer or a cancel any more (requests already past the check finish as before,
 * `MAINTENANCE_SETTLE_MS`).
 *
 * Cost: a comparison per call while the lease holds; one object-to-object call (no D1) per
 * `MAINTENANCE_LEASE_MS` per active object.
 */

/** D1's `settings` row of the switch: "0" (off) or the time in ms the window started. */
export const MAINTENANCE_KEY = "maintenance";

/** Switch objects: an active object asks one of them once per lease (at 100,000 active accounts about 310 calls/s each); the operator tells them all. */
export const MAINTENANCE_SHARDS = 64;
/** How long an object may trust an "off" from the moment it asked; the longest an "on" waits before it answers. */
export const MAINTENANCE_LEASE_MS = 5_000;
/** Added to the wait for leases to run out: the clocks of two objects may differ by this much. */
export const MAINTENANCE_SKEW_MS = 500;
/** The marker of the objects' refusal; the Worker answers it as `maintenance` (503). */
export const MAINTENANCE_REFUSED = "account_maintenance_on";

export const maintenanceAddress = (k: number) => `maintenance:${k}`;

/** The switch object an account object asks (spread by the account's own number). */
export function maintenanceShardOf(n: number): number {
  const k = Math.trunc(n) % MAINTENANCE_SHARDS;
  return k < 0 ? k + MAINTENANCE_SHARDS : k;
}

/** A switch object's answer to an object asking: the state, and whether it may be trusted for a lease. */
export interface MaintenanceLeaseAnswer {
  on: boolean;
}

/** What the requesting object remembers: an "off" until `until` (its own clock). */
export class MaintenanceLease {
  private until = 0;
  /** Leases asked for (tests count them). */
  asked = 0;

  constructor(private readonly ask: () => Promise<MaintenanceLeaseAnswer>) {}

  /** Throws MAINTENANCE_REFUSED when the switch is on; asks the switch object when no lease holds. */
  async check(now = Date.now()): Promise<void> {
    if (now < this.until) return;
    this.asked += 1;
    // The lease runs from before the question: the switch object's own end for it is later.
    const sent = Date.now();
    const answer = await this.ask();
    if (answer.on) {
      this.until = 0;
      throw new Error(MAINTENANCE_REFUSED);
    }
    this.until = sent + MAINTENANCE_LEASE_MS;
  }
}

/**
 * The switch object's side: the state in its storage (null until told or read from D1), and the
 * latest end of the leases it gave (in memory; a restarted one assumes a lease given just before).
 */
export class MaintenanceSwitch {
  private granted: number;

  constructor(
    private readonly store: { get(): number | null; put(since: number): void },
    private readonly readD1: () => Promise<number>,
    now = Date.now(),
  ) {
    this.granted = now + MAINTENANCE_LEASE_MS;
  }

  /** The state for an object asking; an "off" is a lease until now + MAINTENANCE_LEASE_MS. */
  async lease(): Promise<MaintenanceLeaseAnswer> {
    let since = this.store.get();
    if (since === null) {
      const read = await this.readD1();
      // Told meanwhile (a push arrived while D1 was read): what it was told wins.
      since = this.store.get();
      if (since === null) {
        this.store.put(read);
        since = read;
      }
    }
    if (since > 0) return { on: true };
    this.granted = Math.max(this.granted, Date.now() + MAINTENANCE_LEASE_MS);
    return { on: false };
  }

  /** The operator's push: `since` > 0 on (the time it started), 0 off. Answers how long leases given before still run (ms). */
  set(since: number): number {
    this.store.put(since);
    return Math.max(0, this.granted - Date.now());
  }
}
