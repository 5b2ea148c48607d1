/**
 * A counting semaphore for one isolate: at most `limit` holders at once, at most `queued` waiting,
 * each waiting at most `waitMs`. `acquire` rejects (a `SemaphoreBusy`) when the queue is full or the
 * wait runs out, so callers answer "try again" instead of piling up work the isolate cannot hold.
 */
export class SemaphoreBusy extends Error {
  constructor() {
    super("semaphore busy");
  }
}

export class Semaphore {
  #active = 0;
  readonly #waiting: Array<{ grant: () => void; timer: ReturnType<typeof setTimeout> }> = [];

  constructor(
    readonly limit: number,
    readonly queued: number,
    readonly waitMs: number,
  ) {}

  /** Holders now (for tests and diagnostics). */
  get active(): number {
    return this.#active;
  }

  /** Resolves with a release function once a slot is free. Call the release exactly once. */
  acquire(): Promise<() => void> {
    if (this.#active < this.limit) {
      this.#active += 1;
      return Promise.resolve(this.#releaser());
    }
    if (this.#waiting.length >= this.queued) return Promise.reject(new SemaphoreBusy());
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          clearTimeout(entry.timer);
          resolve(this.#releaser());
        },
        timer: setTimeout(() => {
          const i = this.#waiting.indexOf(entry);
          if (i >= 0) this.#waiting.splice(i, 1);
          reject(new SemaphoreBusy());
        }, this.waitMs),
      };
      this.#waiting.push(entry);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter, so the count stays the same.
      if (next) next.grant();
      else this.#active -= 1;
    };
  }
}
