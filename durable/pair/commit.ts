/**
 * How a pair runs spot commands: everything they produce is written in ONE synchronous storage
 * transaction (book, journal, candles, the outbox entry with the owners' order events, the drain's
 * due time, an index tick), then the public messages go out. If the storage write fails, the desk
 * drops its in-memory book, rebuilt from storage on the next call, and nothing was sent.
 */
import type { AppliedResult, SpotDesk } from "./desks/spot.ts";
import type { SecondsDesk } from "./desks/seconds.ts";
import type { createFanout } from "./fanout.ts";
import { orderNotices } from "./notices.ts";
import type { Outbox } from "./outbox.ts";
import type { Scheduler } from "./scheduler.ts";
import type { PairStorage } from "./storage.ts";
import { DELIVER_FALLBACK_MS, type PairLegs } from "./legs.ts";

export interface SpotCommitParts {
  store: PairStorage;
  spot: SpotDesk;
  outbox: Outbox;
  scheduler: Scheduler;
  seconds: SecondsDesk;
  fanout: ReturnType<typeof createFanout>;
  /** Whether a drain is running now (drain.ts): it applies every row appended before it finds the outbox empty. */
  draining: () => boolean;
  /** Price alerts (desks/alerts.ts): fires, in this transaction, those the fills reached. */
  alerts?: { onCommit(published: AppliedResult[], now: number): number };
  /** Runs after the commands, in their transaction: conditional orders their fills fired (desks/conditional.ts). */
  settle?: () => void;
  /** `ACCOUNTS=objects`: the legs' outbox (legs.ts), committed in this transaction and delivered after it. */
  legs?: PairLegs;
}

/** `ACCOUNTS=objects`: how long after a command its rows wait for the read model's drain (as the account objects' DRAIN_DELAY_MS). */
export const READ_MODEL_DELAY_MS = 500;

/** A function that runs spot commands (the results of `run`, in order) as one committed step. */
export function spotCommitter({ store, spot, outbox, scheduler, seconds, fanout, draining, alerts, settle, legs }: SpotCommitParts) {
  return function commit<T>(run: () => T[]): T[] {
    let out: T[] = [];
    let published: AppliedResult[] = [];
    let money: ReturnType<SpotDesk["takeLegs"]> = null;
    try {
      store.transaction(() => {
        spot.begin();
        out = run();
        settle?.();
        published = spot.takePublished();
        money = legs ? spot.takeLegs() : null;
        if (money) {
          legs!.commitInside(money.key, money.legs);
          scheduler.at("legs", Date.now() + DELIVER_FALLBACK_MS);
        }
        const entry = spot.finish();
        if (entry) {
          const notices = orderNotices(published, { pairId: spot.info!.pairId, price: (u) => spot.price(u), qty: (u) => spot.qty(u) });
          outbox.append(notices.length > 0 ? { ...entry, notices } : entry);
          // A running drain takes this row too (it stops only at an empty outbox) while the drain's
          // due row stays (cleared only once nothing waits: a crash still leaves it due); otherwise
          // the drain is due now.
          // With balances in the account objects D1 is only the read model: the drain waits a moment
          // so the commands of that moment share one D1 batch.
          if (!(draining() && scheduler.has("drain"))) scheduler.at("drain", legs ? entry.at + READ_MODEL_DELAY_MS : entry.at);
          // Alerts fire only on fills, which always make an entry: the drain just scheduled takes them too.
          alerts?.onCommit(published, entry.at);
        }
        seconds.tick(spot.top(), Date.now());
      });
    } catch (err) {
      spot.drop();
      scheduler.forget();
      throw err;
    }
    fanout.publish(published);
    // The legs go out in a moment, with the other commits of that moment (the scheduler's "legs" row, written with them, retries after a crash).
    if (money) legs!.deliverSoon();
    return out;
  };
}
