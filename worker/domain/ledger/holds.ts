/**
 * What a product declares for the reconciler (worker/domain/ledger/reconcile.ts): its hold sources,
 * the open commitments that explain its users' frozen funds. A product lists them in its
 * worker/domain/<area>/product.ts; worker/domain/products.ts gathers every product's.
 */
import type { WalletAccount } from "../../lib/ledger.ts";
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import type { ProductId } from "../../../schemas/products.ts";
import type { HoldPurpose, StatementRef } from "../../../schemas/statement.ts";

export interface Hold {
  userId: number;
  currencyId: number;
  account: WalletAccount;
  units: bigint;
}

/** One open record's hold of one user's money, as the user's holds list shows it (GET /api/wallet/holds). */
export interface UserHold {
  currencyId: number;
  account: WalletAccount;
  units: bigint;
  purpose: HoldPurpose;
  ref: StatementRef;
  /** the record's short name (a pair, a round's title), or "" */
  label: string;
  /** A savings position's term in days (0 = flexible): its product's name, worded by the screen. */
  termDays?: number;
  /** The hold's kind in the account object when it is not the purpose (a conditional order's funds: `spot_cond`); the migration's opening names the hold by it. */
  holdKind?: string;
  /** The record's owner in the account object (`pair:{id}`: a cancel asks that pair), given by `openingHolds` to the migration's opening. */
  owner?: string;
}

/**
 * A feature's open holds (e.g. pending withdrawals, open spot orders). `load` gives every holder's
 * total (the reconciler); `forUser` the same holds of one user, record by record, so that the user's
 * list sums to what `load` counts for them (a source whose holds are the house's only has none).
 */
export interface HoldSource {
  name: string;
  load(db: D1Database): Promise<Hold[]>;
  /**
   * With the balances in the account objects (`ACCOUNTS = "objects"`), for a source whose records
   * hold another amount there than on D1's path (a fee held with the stake until the end): the
   * same totals as the objects hold them. Absent: `load` describes both.
   */
  loadObjects?(db: D1Database): Promise<Hold[]>;
  forUser?(db: D1Database, userId: number): Promise<UserHold[]>;
  /**
   * The holds the migration opens in the user's account object (account-objects.ts), when they are
   * cut otherwise than `forUser` lists them (the same total): the records the product's objects
   * path resolves. Absent: `forUser`.
   */
  openingHolds?(db: D1Database, userId: number): Promise<UserHold[]>;
  /**
   * The holds the cut-over opens in the system accounts' shards (`openSystemAccounts`) for records
   * the product's objects path resolves by name in one shard (a savings budget, a live cover, an
   * approved mining payout, each in the treasury shard of its id). Absent: the system account's
   * frozen funds of this product stay in the shards' `migrated` holds, which nothing resolves.
   */
  systemOpeningHolds?(db: D1Database): Promise<SystemOpeningHold[]>;
}

/** One record's hold in one system account's shard, opened at the cut-over (its name is `{forKind}:{forId}`). */
export interface SystemOpeningHold {
  userId: number;
  shard: number;
  forKind: string;
  forId: string;
  account: WalletAccount;
  currencyId: number;
  amount: bigint;
  /**
   * The amount is in D1's available balance, not its frozen one: money D1 may still give back
   * from there (a carried-over pending limit's open fee in the fee account); the shard holds it.
   */
  fromAvailable?: boolean;
}

/**
 * Rows `id`, `currency_id`, `units` (text) of `sql` as holds `{forKind}:{id}` of the treasury's
 * house account in the shard of each id (`o.userId`: another system account's, `o.fromAvailable`:
 * out of its available balance, see SystemOpeningHold).
 */
export async function treasuryRecordHolds(
  db: D1Database,
  sql: string,
  forKind: string,
  shardOf: (id: number) => number,
  o: { userId?: number; fromAvailable?: boolean } = {},
): Promise<SystemOpeningHold[]> {
  const { results } = await db.prepare(sql).all<{ id: number; currency_id: number; units: string }>();
  const extra = o.fromAvailable ? { fromAvailable: true } : {};
  return results
    .map((r) => ({ userId: o.userId ?? TREASURY, shard: shardOf(r.id), forKind, forId: String(r.id), account: HOUSE_ACCOUNT, currencyId: r.currency_id, amount: BigInt(r.units), ...extra }))
    .filter((h) => h.amount > 0n);
}

/** A product's worker side (worker/domain/<area>/product.ts): its declaration's id and its hold sources. */
export interface ProductModule {
  id: ProductId;
  holdSources: readonly HoldSource[];
}

/**
 * One user's holds of one kind, one per open record: `sql` selects `id`, `currency_id`, `units`
 * (as text) and optionally `label` of the user's open records, with the user's id bound to `?1`.
 */
export async function recordHolds(
  db: D1Database,
  sql: string,
  userId: number,
  what: { account: WalletAccount; purpose: HoldPurpose; ref: StatementRef["type"] },
): Promise<UserHold[]> {
  const { results } = await db.prepare(sql).bind(userId).all<{ id: number; currency_id: number; units: string; label?: string }>();
  return results.map((r) => ({ currencyId: r.currency_id, account: what.account, units: BigInt(r.units), purpose: what.purpose, ref: { type: what.ref, id: r.id }, label: r.label ?? "" }));
}
