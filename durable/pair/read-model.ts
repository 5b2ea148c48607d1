/**
 * The pair's drain of spot orders and trades in objects mode (`ACCOUNTS=objects`, issue #28,
 * session 16; docs/architecture/account-objects.md "The pair's drain through the collectors").
 *
 * On D1's path a drain batch is one D1 batch of four to six statements (the movement head, the new
 * orders' rows, the order updates, the trades, the notifications, the ticker, the notified users'
 * live sessions). Here the spot part of a batch is ONE row, `pair_read_batches (pair_id, batch)`,
 * carrying the batch as JSON; its trigger (migrations/0054) applies it in the same statement, and a
 * second copy of the row inserts nothing (the key replaces the movement head `spot:{pair}:b{n}`),
 * so the batch is applied exactly once whoever sends it and however often.
 *
 * Two ways to send it, one key:
 * - **through a collector** (`drain:{k}`, durable/account/collector.ts): the background drain (the
 *   pair's alarm) hands the batch over like an account object hands its movements; the collector
 *   writes every pair's and account's hand-over of its window as one row of `read_model_batches`,
 *   one statement per D1 batch for all of them. The pair marks the batch drained only once the
 *   collector answers `written` (D1 committed); a lost answer leaves it to be sent again.
 * - **directly** (`pairBatchStatement`): a drain someone waits for (a user's own order list, a lever
 *   command, `cancel_all`), a batch that also carries seconds, lever or alert rows (their
 *   statements go in the same D1 batch), and `DRAIN_COLLECTORS = "0"`.
 */
import type { NewNotification } from "../../worker/domain/notifications/inbox.ts";
import { objectId } from "../../worker/lib/object-ids.ts";
import { collectorCount, collectorName, type PairBatch } from "../account/collector.ts";
import { fillNotifications, gatherSpot, triggerNotifications, type OutboxPair, type PairReadModel, type SpotCommandEntry } from "./outbox.ts";

/** The quotation table's row without its pair id: last, open, high, low, volume, quote volume, change, updated at. */
export type TickerRow = [string, string, string, string, string, string, string, number];

/** A pair batch's spot rows as its trigger reads them (each list absent when empty). */
export interface PairReadBody {
  /** new conditional orders' rows */
  nc?: unknown[][];
  /** new orders' rows */
  no?: unknown[][];
  /** triggered conditional orders' children: [...ConditionalChild, when] */
  cc?: unknown[][];
  /** conditional updates: [id, status, reason, trigger price, child id] */
  cu?: unknown[][];
  /** order updates: [id, filled delta, status, reason] */
  ou?: unknown[][];
  /** trades */
  t?: unknown[][];
  /** the owners' notifications: [user, event key, kind, params, link, created at] */
  n?: unknown[][];
  /** the ticker row, as a list of one */
  tk?: TickerRow[];
}

/** The read model's side of a batch of spot entries: its body, and the fill and trigger notifications in it (their owners are told after). */
export function spotReadBody(pair: OutboxPair, entries: SpotCommandEntry[], at: number, ticker: TickerRow | null, now = Date.now()): { body: PairReadBody; notifications: NewNotification[]; rows: number } {
  const { orders, trades, conditionals, newOrders, newConditionals } = gatherSpot(entries);
  const notifications = [...triggerNotifications(pair, conditionals), ...fillNotifications(pair, trades, orders)];
  const body: PairReadBody = {};
  const put = <K extends keyof PairReadBody>(k: K, rows: NonNullable<PairReadBody[K]>) => {
    if (rows.length > 0) body[k] = rows;
  };
  put("nc", newConditionals);
  put("no", newOrders);
  put("cc", conditionals.flatMap(([[, , , , child], when]) => (child ? [[...child, when]] : [])));
  put("cu", conditionals.map(([[id, status, reason, trigger, child]]) => [id, status, reason, trigger, child ? child[0] : null]));
  put("ou", [...orders].map(([orderId, [filled, status, reason]]) => [orderId, filled, status, reason]));
  put(
    "t",
    trades.map((t) => [t.tradeId, t.price, t.qty, t.takerSide, t.buyerId, t.sellerId, t.buyOrderId, t.sellOrderId, t.buyerFee, t.sellerFee, t.at]),
  );
  put("n", notifications.map((n) => [n.userId, n.key, n.kind, JSON.stringify(n.params ?? {}), n.link ?? "", n.now ?? now]));
  if (ticker) body.tk = [ticker];
  const rows = Object.values(body).reduce((s, list) => s + (list as unknown[]).length, 0);
  return { body, notifications, rows };
}

/** The direct way: the batch's one row (a copy already there inserts nothing and fires nothing). */
export function pairBatchStatement(db: D1Database, b: PairBatch): D1PreparedStatement {
  return db
    .prepare("INSERT INTO pair_read_batches (pair_id, batch, body, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (pair_id, batch) DO NOTHING")
    .bind(b.pairId, b.batch, JSON.stringify(b.body), b.at);
}

/** The pair's collector calls: one stub per collector, so a hurry reaches it after the hand-over it is about. */
export function pairReadModel(env: Pick<Env, "USER" | "DRAIN_COLLECTORS">, ticker: () => TickerRow | null): PairReadModel {
  const count = collectorCount(env);
  const stubs = new Map<string, ReturnType<Env["USER"]["get"]>>();
  const stubOf = (pairId: number) => {
    const name = collectorName({ kind: "pair", pairId }, count);
    let stub = stubs.get(name);
    if (!stub) {
      stub = env.USER.get(objectId(env.USER, name));
      stubs.set(name, stub);
    }
    return stub;
  };
  return {
    body: (pair, spot, at) => spotReadBody(pair, spot, at, ticker()),
    statement: pairBatchStatement,
    handOver:
      count === 0
        ? null
        : async (b) => {
            const stub = stubOf(b.pairId);
            try {
              return await stub.collectorTake({ source: { kind: "pair", pairId: b.pairId }, movements: [], notices: [], pair: b });
            } catch (err) {
              // A broken stub fails every later call: the next hand-over takes a new one.
              stubs.clear();
              throw err;
            }
          },
    hurry: (pairId) => {
      if (count === 0) return;
      stubOf(pairId)
        .collectorHurry()
        .catch(() => stubs.clear());
    },
  };
}
