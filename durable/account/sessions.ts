/**
 * The session check in the account object (issue #28, session 14; docs/architecture/account-objects.md,
 * "The session check in the account object"). In objects mode the order path asks the user's own
 * object whether the request's session may move money, in the same call that moves it, instead of
 * reading D1. The object keeps what D1 said about the user's live sessions (session id → expiry)
 * and the user's trading flags (locked, review status, role), and trusts it only while no change
 * of those can have happened unseen:
 *
 * - Every writer of `sessions.revoked_at`, `users.locked`, `users.review_status` or `users.role`
 *   tells the object BEFORE it writes D1 (`changing`, worker/lib/session-push.ts): the object
 *   forgets everything it trusted and records the change as open (in its storage, so a restart
 *   keeps it). If that call fails, the writer fails and D1 is not written.
 * - While a change is open, every check asks D1 and nothing is remembered: D1 may or may not have
 *   the change yet, and its answer is only good for that call.
 * - After D1 was written (or the write failed), the writer closes the change (`changed`): the
 *   object forgets again and may trust D1's next answer. A close that never arrives keeps the
 *   object asking D1 (one read per check) until the change is older than OPEN_CHANGE_MS, far past
 *   the writer's own deadline for its D1 write (PUSH_WRITE_DEADLINE_MS).
 * - A D1 answer is remembered only if no change opened or closed while it was read (`epoch`).
 *
 * A missed push therefore only makes the object ask D1; it never makes it trust a session D1 has
 * ended. What is remembered lives in memory only: an object restarted knows nothing and asks D1.
 */

/** What a call must prove: a plain verified user's live session ("trader", the order routes), or any live session of an unlocked user ("user": a cancel, a transfer). */
export type SessionLevel = "trader" | "user";

/** The session a money call carries (worker/lib/auth.ts `SessionGuard`). */
export interface SessionProof {
  sessionId: number;
  level: SessionLevel;
}

/** What D1 says of one session and its user (`readSession`). */
export interface SessionRow {
  expires_at: number;
  revoked_at: number | null;
  locked: number;
  review_status: number;
  role: string;
}

/** Thrown by a money call whose session is not live for its level: nothing was moved. */
export const SESSION_GONE = "account_session_gone";

/** A change not closed after this long is dropped (its writer gave up its D1 write long before). */
export const OPEN_CHANGE_MS = 15 * 60_000;
/** A writer writes D1 only within this long after the object recorded its change (worker/lib/session-push.ts). */
export const PUSH_WRITE_DEADLINE_MS = 60_000;
/** A remembered answer is asked again after this long (a guard against a writer that bypasses the pushes; the bound on revocation is the pushes, not this). */
export const TRUST_MS = 10 * 60_000;

function allows(row: SessionRow, level: SessionLevel, now: number): boolean {
  if (row.revoked_at !== null || row.expires_at <= now || row.locked) return false;
  return level === "user" || (row.review_status === 2 && row.role === "user");
}

/** Where open changes are kept (the object's storage, so a restart keeps them). */
export interface OpenChanges {
  list(): { mark: string; at: number }[];
  add(mark: string, at: number): void;
  remove(mark: string): void;
}

export class SessionTrust {
  /** Remembered sessions: id → D1's row and when it was read. */
  private known = new Map<number, { row: SessionRow; at: number }>();
  private open: Map<string, number> | undefined;
  /** Moves on every change opened or closed: a D1 answer read across a move is not remembered. */
  private epoch = 0;
  /** D1 reads made by checks (tests count them). */
  reads = 0;

  constructor(
    private readonly changes: OpenChanges,
    private readonly read: (sessionId: number) => Promise<SessionRow | null>,
  ) {}

  private openChanges(now: number): Map<string, number> {
    this.open ??= new Map(this.changes.list().map((c) => [c.mark, c.at]));
    for (const [mark, at] of this.open) {
      if (now - at > OPEN_CHANGE_MS) {
        this.open.delete(mark);
        this.changes.remove(mark);
      }
    }
    return this.open;
  }

  /** A writer is about to change the user's sessions or flags in D1. */
  changing(mark: string, now: number): void {
    this.epoch += 1;
    this.known.clear();
    this.openChanges(now).set(mark, now);
    this.changes.add(mark, now);
  }

  /** The writer is done (D1 written or not). */
  changed(mark: string, now: number): void {
    this.epoch += 1;
    this.known.clear();
    this.openChanges(now).delete(mark);
    this.changes.remove(mark);
  }

  /** Whether the session may act at this level now: from memory when it can, else one D1 read. */
  async check(proof: SessionProof, now: number): Promise<boolean> {
    const open = this.openChanges(now).size > 0;
    const hit = open ? undefined : this.known.get(proof.sessionId);
    if (hit && now - hit.at <= TRUST_MS) return allows(hit.row, proof.level, now);
    const epoch = this.epoch;
    this.reads += 1;
    const row = await this.read(proof.sessionId);
    if (!row) return false;
    // Remembered only if no change opened or closed meanwhile and none is open.
    if (epoch === this.epoch && this.openChanges(now).size === 0) this.known.set(proof.sessionId, { row, at: now });
    return allows(row, proof.level, now);
  }
}
