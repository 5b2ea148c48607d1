/**
 * The operator's view of the system accounts (`GET /api/admin/treasury`) in objects mode (issue
 * #28; docs/architecture/account-objects.md "Read gaps found by the browser suite in objects mode
 * (session 15)"). Each system account lives in SYSTEM_SHARDS shard objects (`system:{id}:{k}`), so
 * D1's `balances` rows of the system accounts are the cut-over's copy. The view drains every shard
 * of every system account now (a call that returns at once when nothing waits), then reads, in one
 * statement, per account, currency and account kind:
 *   the shards' balances summed (`system_balances`, the drained read model: what the shards hold);
 *   plus the D1 rows the cut-over left in D1 because they are below zero by design
 *   (worker/domain/ledger/account-objects.ts `openSystemAccounts`: the deposits account mirrors the
 *   money that came from outside; an object never goes below zero);
 *   minus every deposit that came in since (the deposits shards' `deposit:{id}:in` movements,
 *   worker/domain/wallet/deposit-objects.ts: a shard shows the arrival and the payment as two
 *   movements and keeps 0, where D1 would have debited the deposits account).
 * So each row means what it means with balances in D1: the deposits account's row is still minus
 * everything deposited from outside (net of what went back), the others what their shards hold.
 */
import { SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../lib/accounts.ts";

/** Drain steps per shard before the read (256 movements each). */
const DRAIN_STEPS = 8;

export interface SystemBalanceRow {
  user_id: number;
  currency_id: number;
  name: string;
  scale: number;
  account: string;
  a: string;
  f: string;
}

/** The system accounts' balances as the shards hold them (see above), in the D1 view's order. */
export async function systemBalancesOnObjects(env: Pick<Env, "DB" | "USER">): Promise<SystemBalanceRow[]> {
  const shards = Object.values(SYSTEM_USERS).flatMap((userId) => Array.from({ length: SYSTEM_SHARDS }, (_, k) => systemStub(env, userId, k)));
  await Promise.all(
    shards.map(async (stub) => {
      for (let i = 0; i < DRAIN_STEPS; i++) if (!(await stub.accountDrain()).more) return;
    }),
  );
  const { results } = await env.DB.prepare(
    `WITH parts (user_id, currency_id, account, available, frozen) AS (
       SELECT user_id, currency_id, account, available, frozen FROM system_balances
       UNION ALL
       SELECT user_id, currency_id, account, available, frozen FROM balances WHERE user_id <= 0 AND (available < 0 OR frozen < 0)
       UNION ALL
       SELECT user_id, currency_id, account, -d_available, 0 FROM system_movements WHERE user_id = ?1 AND ref GLOB 'deposit:*:in#*'
     )
     SELECT p.user_id, p.currency_id, c.name, c.scale, p.account, CAST(SUM(p.available) AS TEXT) AS a, CAST(SUM(p.frozen) AS TEXT) AS f
       FROM parts p JOIN currencies c ON c.id = p.currency_id
      GROUP BY p.user_id, p.currency_id, p.account ORDER BY p.user_id DESC, p.currency_id, p.account`,
  )
    .bind(SYSTEM_USERS.deposits)
    .all<SystemBalanceRow>();
  return results;
}
