/**
 * A user's side of a launch: commit (escrow in one's own spot account) and claim (what has vested).
 * Each is ONE D1 batch: the ledger movement, the row it explains and the notification. The database
 * enforces the limits parallel requests could overrun: the per-user cap and the open window
 * (triggers of migrations/0030_launch.sql), the balance (balances CHECK), and a claim's "once"
 * (its movement key carries the vested total, and the claimed column is guarded on what was read).
 */
import type { LaunchCommitInput, LaunchSubscription } from "../../../schemas/launch.ts";
import { vestedUnits } from "../../../schemas/launch.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { money } from "../notifications/events.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { classifyBatchError, movementStatements } from "../../lib/ledger.ts";
import { formatShanghai } from "../../lib/time.ts";
import { announceNotifications, notificationStatement } from "../notifications/inbox.ts";
import { amountOrThrow, big } from "../wallet/currency.ts";
import { guardStatement } from "./guard.ts";
import { pricesOf, projectRow, subscriptionOf, subscriptionOut, vestingOf } from "./store.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { userAt } from "../../lib/product-objects.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import { claimLegs, holdThenBatch, settlementLanded } from "./objects.ts";

export const LAUNCH_LINK = "/launch/my";

export async function commit(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, userId: number, input: LaunchCommitInput, now = Date.now()): Promise<LaunchSubscription> {
  const db = env.DB;
  const p = await projectRow(db, input.project_id);
  if (!p || p.status === "draft") throw notFound();
  if (p.status !== "open" || now >= p.end_at) throw new ApiError("launch_closed", 409);
  if (now < p.start_at) throw new ApiError("launch_not_started", 409, { time: formatShanghai(p.start_at) });
  const price = (await pricesOf(db, [p.id])).find((x) => x.currency_id === input.currency_id);
  if (!price) throw new ApiError("currency_unsupported", 400);
  const amount = amountOrThrow(input.amount, price.scale);
  const maxText = formatUnitsTrim(big(price.max_amount), price.scale);
  if (amount > big(price.max_amount)) throw new ApiError("launch_cap", 409, { max: maxText, currency: price.currency });

  // Objects mode: the commit's own hold in the user's object is its key (./objects.ts); D1's path books a movement.
  const objects = accountsOnObjects(env);
  const uuid = crypto.randomUUID();
  const key = objects ? `launch:${p.id}:${uuid}` : `launch:commit:${uuid}`;
  const stmts = [
    ...(objects
      ? []
      : movementStatements(db, key, "launch_commit", [{ userId, currencyId: price.currency_id, account: "change", dAvailable: -amount, dFrozen: amount, memo: `launch ${p.id}` }], now)),
    db
      .prepare(
        `INSERT INTO launch_subscriptions (project_id, user_id, currency_id, amount, max_amount, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (project_id, user_id) DO UPDATE SET amount = amount + excluded.amount, currency_id = excluded.currency_id`,
      )
      .bind(p.id, userId, price.currency_id, amount.toString(), price.max_amount, now),
    db
      .prepare("INSERT INTO launch_commits (movement_key, project_id, user_id, currency_id, amount, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .bind(key, p.id, userId, price.currency_id, amount.toString(), now),
    notificationStatement(db, {
      userId,
      kind: "launch_committed",
      key,
      params: { title: p.title, amount: money(amount, price.scale), currency: price.currency },
      link: `/launch/project?id=${p.id}`,
      now,
    }),
  ];
  try {
    if (objects)
      await holdThenBatch(
        env,
        userAt(userId),
        { forKind: "launch", forId: `${p.id}:${uuid}`, currencyId: price.currency_id, amount },
        () => new ApiError("insufficient_balance", 409),
        (claim) => db.batch([...stmts, claim]),
        now,
      );
    else await db.batch(stmts);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const msg = String((err as Error)?.message ?? err);
    if (msg.includes("launch_currency_fixed")) {
      const own = await db
        .prepare("SELECT c.name FROM launch_subscriptions s JOIN currencies c ON c.id = s.currency_id WHERE s.project_id = ? AND s.user_id = ?")
        .bind(p.id, userId)
        .first<{ name: string }>();
      throw new ApiError("launch_currency_fixed", 409, { currency: own?.name ?? "" });
    }
    if (msg.includes("launch_closed")) throw new ApiError("launch_closed", 409);
    if (msg.includes("launch_cap")) throw new ApiError("launch_cap", 409, { max: maxText, currency: price.currency });
    if (classifyBatchError(err) === "insufficient") throw new ApiError("insufficient_balance", 409);
    throw err;
  }
  await announceNotifications(env, [userId]);
  const sub = await db.prepare("SELECT id FROM launch_subscriptions WHERE project_id = ? AND user_id = ?").bind(p.id, userId).first<{ id: number }>();
  return subscriptionOut((await subscriptionOf(db, userId, sub!.id))!, now);
}

/** Moves what has vested and is not yet claimed to the available balance: once per vested total. */
export async function claim(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, userId: number, id: number, now = Date.now()): Promise<LaunchSubscription> {
  const db = env.DB;
  const s = await subscriptionOf(db, userId, id);
  if (!s) throw notFound();
  const vested = s.status === "allocated" ? vestedUnits(big(s.alloc), vestingOf(s), now) : 0n;
  const claimed = big(s.claimed);
  if (vested <= claimed) throw new ApiError("launch_nothing_to_claim", 409);
  const amount = vested - claimed;
  // Objects mode: a leg releases what vested from the locked hold, once its allocation has landed (./objects.ts).
  const objects = accountsOnObjects(env);
  if (objects) await settlementLanded(env, s.project_id, s.id);
  const legs = objects ? claimLegs(s.project_id, s.id, userId, s.token_id, vested, amount) : [];
  const key = objects ? legs[0]!.key : `launch:${s.id}:claim:${vested}`;
  try {
    await db.batch([
      ...(objects
        ? recordLegsStatements(db, key, legs, now)
        : movementStatements(db, key, "launch_claim", [{ userId, currencyId: s.token_id, account: "change", dAvailable: amount, dFrozen: -amount, memo: `launch ${s.project_id}` }], now)),
      db.prepare("UPDATE launch_subscriptions SET claimed = ? WHERE id = ? AND user_id = ? AND status = 'allocated' AND claimed = ?").bind(vested.toString(), s.id, userId, s.claimed),
      guardStatement(db, "launch claim"),
      notificationStatement(db, {
        userId,
        kind: "launch_claimed",
        key,
        params: { title: s.title, amount: money(amount, s.token_scale), token: s.token },
        link: LAUNCH_LINK,
        now,
      }),
    ]);
  } catch (err) {
    const msg = String((err as Error)?.message ?? err);
    // A parallel claim got there first: it paid what had vested, so there is nothing more now.
    if (msg.includes("state_conflict") || classifyBatchError(err) === "duplicate") throw new ApiError("launch_nothing_to_claim", 409);
    throw err;
  }
  await deliverRecordLegs(env, legs);
  await announceNotifications(env, [userId]);
  return subscriptionOut((await subscriptionOf(db, userId, s.id))!, now);
}
