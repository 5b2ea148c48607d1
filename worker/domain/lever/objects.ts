/**
 * Leveraged positions with balances in the account objects (issue #28, `ACCOUNTS=objects`,
 * worker/lib/accounts.ts). An open holds its money in the objects first, in place of the D1
 * movement `lever:{id}:open`:
 *
 * 1. the house's cover (the most the position can win) as hold `lever_margin:{id}` in treasury shard
 *    `leverShard(id)`: refused (`house_cannot_cover`) when that shard cannot cover it, nothing moved;
 * 2. the margin and the open fee as hold `lever_margin:{id}` in the user's `lever` account: refused
 *    (`insufficient_balance`) when they are not there, and the cover goes back.
 *
 * The open writes nothing in D1 (session 16): the session is proved by the user's object with the
 * margin's hold, the settings by the pair object at acceptance, and the position's D1 row rides in
 * the acceptance's outbox entry to the pair's drain (lever-objects.ts `objectsPositionsStatement`);
 * the desk's open fee (when the position opens), closes, revokes and overnight fees are legs
 * (durable/pair/desks/lever-objects.ts). A refused open gives both holds back
 * (`lever_margin:{id}:refused`, each once), then writes its row revoked (status 5), as D1's path
 * leaves it: the open's one D1 statement, on a refusal only (`refuseOnObjects`); a row from before
 * (the reconciler's) is revoked as before.
 */
import { leverHold, leverShard, LEVER_HOLD, LEVER_HOUSE_KIND, LEVER_USER_KIND, type ObjectsPositionRow } from "../../../durable/pair/desks/lever-objects.ts";
import { accountStub, SYSTEM_USERS, systemStub } from "../../lib/accounts.ts";
import { reserveOnTreasury } from "../../lib/treasury-refill.ts";
import { ApiError } from "../../lib/errors.ts";
import { IdTaken } from "../../lib/ids.ts";
import { carried, sessionProof } from "../../lib/auth.ts";
import type { SessionGuard } from "../../lib/context.ts";

const TREASURY = SYSTEM_USERS.treasury;

/** The cover in its treasury shard, then the margin and fee in the user's object (throws the refusal, nothing left held). */
export async function holdOnObjects(
  env: Env,
  userId: number,
  pairId: number,
  currencyId: number,
  id: number,
  money: { margin: bigint; fee: bigint; hold: bigint },
  guard?: SessionGuard,
): Promise<void> {
  const request = { forKind: LEVER_HOLD, forId: String(id), currencyId, owner: `pair:${pairId}` };
  if (money.hold > 0n) {
    const shard = leverShard(id);
    const cover = await reserveOnTreasury(env, shard, { ...request, account: LEVER_HOUSE_KIND, amount: money.hold });
    if (cover.result === "insufficient") throw new ApiError("house_cannot_cover", 409);
    // A hold of this id already there: another open (any user's) drew it in the same millisecond; nothing moved, draw again.
    if (cover.result === "exists") throw new IdTaken();
  }
  // Refused by the account object (the session, the maintenance switch): the cover goes back before the refusal is answered.
  let held: Awaited<ReturnType<ReturnType<typeof accountStub>["accountReserve"]>>;
  try {
    // A session hint is proved by the user's object in this call (worker/lib/auth.ts `sessionProof`), as spot's reserve does.
    held = await carried(guard, accountStub(env, userId).accountReserve(userId, { ...request, account: LEVER_USER_KIND, amount: money.margin + money.fee }, sessionProof(guard)));
  } catch (err) {
    await releaseCover(env, id, money.hold > 0n);
    throw err;
  }
  if (held.result === "reserved") return;
  await releaseCover(env, id, money.hold > 0n);
  throw held.result === "insufficient" ? new ApiError("insufficient_balance", 409) : new IdTaken();
}

const refusedKey = (id: number) => `${leverHold(id)}:refused`;
const releaseRest = (id: number) => [{ key: refusedKey(id), ops: [{ t: "release" as const, hold: leverHold(id), amount: "rest" as const }] }];

async function releaseCover(env: Env, id: number, covered: boolean): Promise<void> {
  if (!covered) return;
  const shard = leverShard(id);
  await systemStub(env, TREASURY, shard).systemApply(TREASURY, shard, releaseRest(id));
}

/** An open the pair refused or never saw (or whose row could not be written): both holds back, each once by its key. */
async function releaseOnObjects(env: Env, userId: number, id: number, covered: boolean): Promise<void> {
  await Promise.all([accountStub(env, userId).accountApply(userId, releaseRest(id)), releaseCover(env, id, covered)]);
}

/**
 * An open the pair refused before any D1 row was written (the row rides with an acceptance only):
 * both holds back, then the row D1's path leaves of a refused open (status 5, `revoked`, `closed_at`
 * the refusal's time), so the lists and the history show it. `row` null: a refusal D1's path never
 * makes after its batch (settings changed, the pair closed: D1's batch or its pair read refuses
 * first, holding nothing), so no row. Keyed by the position's id: written once.
 */
export async function refuseOnObjects(env: Env, userId: number, id: number, covered: boolean, row: ObjectsPositionRow | null, now: number): Promise<void> {
  await releaseOnObjects(env, userId, id, covered);
  if (!row) return;
  await env.DB.prepare(
    `INSERT INTO lever_positions (id, user_id, pair_id, currency_id, type, lots, multiple, share_units, quote_price, target_price, margin, fee, hold,
       fee_bps, overnight_bps, maintenance_bps, stop_profit, stop_loss, created_at, status, close_reason, closed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 5, 'revoked', ?) ON CONFLICT DO NOTHING`,
  )
    .bind(...row, now)
    .run();
}

/** `refund` on the objects: the holds back, then the row revoked (`status 0` only: false when something else moved it first). */
export async function refundOnObjects(env: Env, id: number, userId: number, covered: boolean, now: number): Promise<boolean> {
  await releaseOnObjects(env, userId, id, covered);
  const r = await env.DB.prepare("UPDATE lever_positions SET status = 5, close_reason = 'revoked', closed_at = ? WHERE id = ? AND status = 0").bind(now, id).run();
  return r.meta.changes === 1;
}
