/**
 * Reads in objects mode (issue #28, docs/architecture/account-objects.md "Reads in objects mode"):
 * with `ACCOUNTS = "objects"` every balance lives in its user's account object (durable/account/),
 * so the exact reads (my balances, my holds, what I can withdraw) ask the object, and the
 * statement reads D1's read model (`account_movements`, drained by the object) after the object
 * has drained what the user just did. With `ACCOUNTS = "d1"` (the default) nothing here is used and
 * every read is today's D1 read, unchanged.
 *
 * Also the names the account object's holds and movements carry (`spot_order:{id}`,
 * `trade:{id}:buyer#0`, …) read back as the statement's kinds and records and the holds list's
 * purposes, as `refOf` (statement.ts) reads the ledger's movement keys.
 */
import type { AccountBalance, AccountHold } from "../../../durable/account/types.ts";
import { holdPurposes, type HoldPurpose, type StatementRef } from "../../../schemas/statement.ts";
import { userStub } from "../../lib/notify.ts";
import { accountsOnObjects, SYSTEM_SHARDS, systemStub } from "../../lib/accounts.ts";
import { balanceOf, type WalletAccount } from "../../lib/ledger.ts";
import { pairStub } from "../spot/pairs.ts";

/** What the reads need of the environment: D1, the user objects, the pairs (their drain) and the switch. */
export type AccountsEnv = Pick<Env, "DB" | "USER" | "PAIR"> & { ACCOUNTS?: string };

/** The exchange-wide switch (wrangler.toml `ACCOUNTS`, worker/lib/accounts.ts): "objects" = money lives in the account objects. */
export const readsOnObjects = accountsOnObjects;

/** Drain steps a read waits for at most (256 movements each): a user's backlog is a step or two. */
const DRAIN_STEPS = 20;

/** The account object's exact reads of one user, and its drain on demand. */
export interface AccountReads {
  balances(userId: number): Promise<AccountBalance[]>;
  openHolds(userId: number): Promise<AccountHold[]>;
  /**
   * Drains the user's object into D1 now and answers its bookmark: every movement up to this seq
   * is in D1's primary (`account_drained.seq` there is at least this).
   */
  drained(userId: number): Promise<number>;
  /** A system account's balances summed over its shard objects (the treasury's holds: seconds' and lever's covers). */
  systemBalances(userId: number): Promise<AccountBalance[]>;
  /**
   * Every pair owning (or having owned) a hold of these users drains into D1 now, each pair once:
   * D1's rows of the users' orders, contracts and positions then have all the pairs did for them
   * (the reconciler, before it reports their frozen funds as unexplained). Answers the pairs drained.
   */
  drainHoldPairs(userIds: readonly number[]): Promise<number[]>;
  /** Every pair drains into D1 now (the treasury's covers: any pair may own one). Answers the pairs. */
  drainAllPairs(): Promise<number[]>;
  /** D1 for a read that must include everything up to `drainedSeq` (the Sessions API: freshSession). */
  db: D1Database;
}

/** The object reads when the switch is on; null when money is in D1 (the caller reads D1 as always). */
export function accountReads(env: AccountsEnv): AccountReads | null {
  if (!readsOnObjects(env)) return null;
  return {
    balances: (userId) => userStub(env, userId).accountBalances(userId),
    openHolds: (userId) => userStub(env, userId).accountOpenHolds(userId),
    async drained(userId) {
      const stub = userStub(env, userId);
      let seq = 0;
      for (let i = 0; i < DRAIN_STEPS; i++) {
        const step = await stub.accountDrain();
        seq = step.drainedSeq;
        if (!step.more) break;
      }
      return seq;
    },
    async systemBalances(userId) {
      const shards = await Promise.all(Array.from({ length: SYSTEM_SHARDS }, (_, k) => systemStub(env, userId, k).systemBalances(userId, k)));
      const sums = new Map<string, AccountBalance>();
      for (const b of shards.flat()) {
        const k = `${b.currencyId}|${b.account}`;
        const s = sums.get(k);
        if (s) sums.set(k, { ...s, available: s.available + b.available, frozen: s.frozen + b.frozen });
        else sums.set(k, { ...b });
      }
      return [...sums.values()];
    },
    async drainHoldPairs(userIds) {
      const pairs = [...new Set((await Promise.all(userIds.map((u) => userStub(env, u).accountHoldPairs(u)))).flat())];
      await Promise.all(pairs.map((pairId) => pairStub(env, pairId).drain()));
      return pairs;
    },
    async drainAllPairs() {
      const { results } = await env.DB.prepare("SELECT id FROM pairs ORDER BY id").all<{ id: number }>();
      const pairs = results.map((r) => r.id);
      await Promise.all(pairs.map((pairId) => pairStub(env, pairId).drain()));
      return pairs;
    },
    db: env.DB,
  };
}

/** A D1 reader: the database or one of its sessions. */
export type D1Reader = Pick<D1Database, "prepare" | "batch">;

/**
 * A D1 session that holds the user's movements up to `drainedSeq` (D1's Sessions API, with the
 * object's bookmark as the check): first on any replica ("first-unconstrained"), whose
 * `account_drained` row for the user says how far it has the object's movements; when that is
 * behind, a session that starts on the primary instead. Every later query of the session sees at
 * least what its first one saw. Without read replication every query goes to the primary anyway.
 */
export async function freshSession(db: D1Database, userId: number, drainedSeq: number): Promise<D1Reader> {
  const session = db.withSession("first-unconstrained");
  const seen = (await session.prepare("SELECT seq FROM account_drained WHERE user_id = ?").bind(userId).first<{ seq: number }>())?.seq ?? 0;
  return seen >= drainedSeq ? session : db.withSession("first-primary");
}

/**
 * One account's balance of one currency as the screens show it: the user's account object's in
 * objects mode (D1's `balances` row is then what it was at the cut-over), D1's otherwise.
 */
export async function userBalance(env: AccountsEnv, userId: number, currencyId: number, account: string): Promise<{ available: bigint; frozen: bigint }> {
  if (!readsOnObjects(env)) return balanceOf(env.DB, userId, currencyId, account as WalletAccount);
  return balanceIn(await userStub(env, userId).accountBalances(userId), account, currencyId);
}

/** Where the object's movements start when listed with D1's ledger rows (ledger ids stay below it; a movement is this plus its seq). */
export const MOVEMENT_ROW_ID = 1_000_000_000_000_000;

/** One account's balance of one currency from the object's list (zero when it holds none). */
export function balanceIn(rows: readonly AccountBalance[], account: string, currencyId: number): { available: bigint; frozen: bigint } {
  const r = rows.find((b) => b.account === account && b.currencyId === currencyId);
  return { available: r?.available ?? 0n, frozen: r?.frozen ?? 0n };
}

// ---- names: holds and movements as the screens show them --------------------------------------

/** The record type behind each hold purpose (as the products' hold sources name it). */
const PURPOSE_REF: Record<Exclude<HoldPurpose, "unexplained">, StatementRef["type"]> = {
  spot_order: "spot_order",
  withdrawal: "withdrawal",
  vote: "vote",
  launch: "launch",
  launch_locked: "launch",
  savings: "earn",
  c2c_order: "c2c_order",
  c2c_advert: "c2c_advert",
  c2c_deposit: "c2c_merchant",
  seconds: "seconds",
  lever_margin: "lever",
};

const int = (s: string | undefined): number | null => (s !== undefined && /^\d{1,15}$/.test(s) ? Number(s) : null);

/**
 * What a hold of the object is for: its purpose and record, from its name `{forKind}:{forId}`
 * (forId is the record's id, or `{id}:{account}:{currency}` where the migration split one record's
 * hold). A kind no product declares, and the migration's `migrated:…` hold (frozen funds no record
 * explained at the opening), is `unexplained`: listed, never hidden.
 */
export function holdOf(forKind: string, forId: string): { purpose: HoldPurpose; ref: StatementRef } {
  // A conditional order's hold (`spot_cond:{id}`): a spot order's hold, as D1's hold source lists it.
  if (forKind === "spot_cond") return { purpose: "spot_order", ref: { type: "spot_order", id: int(forId.split(":")[0]) } };
  const purpose = (holdPurposes as readonly string[]).includes(forKind) && forKind !== "unexplained" ? (forKind as Exclude<HoldPurpose, "unexplained">) : null;
  if (!purpose) return { purpose: "unexplained", ref: { type: "other", id: null } };
  return { purpose, ref: { type: PURPOSE_REF[purpose], id: int(forId.split(":")[0]) } };
}

/** The statement kind of a reservation, by the hold's kind (the ledger's kind codes, which the web words). */
const RESERVE_KIND: Record<string, string> = {
  spot_order: "spot_freeze",
  spot_cond: "spot_freeze",
  withdrawal: "withdrawal_freeze",
  vote: "vote_hold",
  launch: "launch_committed",
  savings: "earn_subscribed",
  c2c_order: "c2c_escrow",
  c2c_advert: "c2c_escrow",
  c2c_deposit: "c2c_deposit",
  seconds: "micro_open",
  lever_margin: "lever_open",
  cover: "insurance_hold",
  mining: "mining_hold",
};

/** The record of a hold spent in the same breath (no holds-screen purpose of its own): a cover's premium, a mining buy's price. */
const RESERVE_REF: Record<string, StatementRef["type"]> = { cover: "insurance", mining: "mining" };

/** What a product's hold given back by its refused or orphaned record reads as (`{hold}:refused`, `{hold}:orphan`). */
const RETURN_KIND: Record<string, string> = {
  savings: "earn_returned",
  earn_product: "earn_returned",
  cover: "insurance_returned",
  mining: "mining_returned",
  launch: "launch_returned",
  vote: "vote_release",
};

/** What happened to a withdrawal's hold (`withdrawal:{id}:{what}`, worker/domain/withdrawals/objects.ts) as D1's kinds name it; a release otherwise. */
const WITHDRAWAL_KIND: Record<string, string> = {
  sent: "withdrawal_sent",
  success: "withdrawal_sent",
  chain_failure: "withdrawal_chain_failure",
  in_site: "withdrawal_in_site",
};

/** D1's kind of a position's close by its reason (durable/pair/outbox.ts: `lever_{reason}`, an owner's close `lever_close`). */
const LEVER_CLOSE_KIND: Record<string, string> = { user: "lever_close", profit: "lever_profit", loss: "lever_loss", liquidation: "lever_liquidation", cap: "lever_cap" };

/** D1's kind of a position's leg by its step (`lever:{id}:{step}:…`); a close otherwise. */
const LEVER_LEG_KIND: Record<string, string> = { open: "lever_open", fee: "lever_overnight", revoke: "lever_revoke" };

/** The movement a row of the object belongs to: its ref without the op's index (`trade:9:buyer#1` → `trade:9:buyer`). */
export function movementOf(ref: string): string {
  return ref.replace(/#[^#]*$/, "");
}

/**
 * A movement of the object as a statement line's kind and record, from its key: a reservation
 * `{hold}:reserve`, the money core's legs (`trade:`, `order:`, `contract:`, `seconds:`,
 * `position:`, `escrow:`, `subscription:`, `deposit:`; durable/money/legs.ts), a product's own
 * hold name followed by what happened to it (`spot_order:{id}:cancel`), the migration's opening.
 * `fallback` reads keys the products already use in D1 (`transfer:…`, `conversion:…`: refOf).
 */
export function movementKind(key: string, fallback: (key: string) => StatementRef): { kind: string; ref: StatementRef } {
  const p = key.split(":");
  const head = p[0] ?? "";
  if (key === "migrate:opening") return { kind: "account_opening", ref: { type: "other", id: null } };
  // An operator's adjustment (worker/domain/operator/adjustment-objects.ts): its hold, its legs and a hold given back all read as D1's one kind.
  if (head === "adjustment") return { kind: "adjustment", ref: { type: "adjustment", id: int(p[1]) } };
  if (p.at(-1) === "reserve" && p.length >= 3) {
    const own = RESERVE_REF[head];
    const { ref } = own ? { ref: { type: own, id: int(p[1]) } } : holdOf(head, p.slice(1, -1).join(":"));
    return { kind: RESERVE_KIND[head] ?? (head === "migrated" ? "account_opening" : `${head}_hold`), ref };
  }
  const back = RETURN_KIND[head];
  if (back && p.length >= 3 && (p.at(-1) === "refused" || p.at(-1) === "orphan")) return { kind: back, ref: holdOf(head, p.slice(1, -1).join(":")).ref };
  switch (head) {
    case "trade":
      // A pair's fill legs, `trade:{pair}:{trade}:{side}` or a commit's `trade:{pair}:{commit}:{receiver}` (durable/pair/legs.ts).
      return { kind: "spot", ref: { type: "spot_pair", id: int(p[1]) } };
    case "order":
    case "spot_order":
    case "spot_cond":
      return { kind: "spot_release", ref: { type: "spot_order", id: int(p[1]) } };
    case "contract":
      return { kind: "micro_settle", ref: { type: "seconds", id: int(p[1]) } };
    case "seconds":
      // The acceptance's open fee (`seconds:{id}:open:{receiver}`, durable/pair/desks/seconds-objects.ts), or a settled chunk
      // (`seconds:{pair}:{second}:{first id}:{receiver}`; a user's leg ends with the first of their contracts in it, a leg from before names none).
      if (p[2] === "open") return { kind: "micro_open", ref: { type: "seconds", id: int(p[1]) } };
      return { kind: "micro_settle", ref: { type: "seconds", id: p.length === 2 ? int(p[1]) : p.length === 7 && p[4] === "user" ? int(p[6]) : null } };
    case "position":
    case "lever_margin":
      return { kind: `lever_${p[2] ?? "close"}`, ref: { type: "lever", id: int(p[1]) } };
    case "lever":
      // The pair's legs of a position (durable/pair/desks/lever-objects.ts): `lever:{id}:open|close|revoke|fee:{day}`, then the receiver; D1's kinds.
      // A user's close leg ends with its reason (`lever:{id}:close:user:{uid}:{reason}`; one from before names none: a close).
      if (p[2] === "close") return { kind: LEVER_CLOSE_KIND[p.length === 6 && p[3] === "user" ? p[5]! : "user"] ?? "lever_close", ref: { type: "lever", id: int(p[1]) } };
      return { kind: LEVER_LEG_KIND[p[2] ?? ""] ?? "lever_close", ref: { type: "lever", id: int(p[1]) } };
    case "escrow":
      return { kind: p[2] === "return" ? "c2c_return" : "c2c_release", ref: { type: "c2c_order", id: int(p[1]) } };
    case "c2c_order":
      // The hold of a user's own escrow given back without a transition: a refused order's batch, an orphan.
      return { kind: p[2] === "release" ? "c2c_release" : "c2c_return", ref: { type: "c2c_order", id: int(p[1]) } };
    case "c2c_advert":
      return { kind: "c2c_escrow_return", ref: { type: "c2c_advert", id: int(p[1]) } };
    case "c2c_deposit":
      return { kind: "c2c_deposit_release", ref: { type: "c2c_merchant", id: int(p[1]) } };
    case "rebate":
      return { kind: "invite_rebate", ref: { type: "invite", id: null } };
    case "subscription":
      return { kind: p[2] === "end" ? "earn_matured" : "earn_interest", ref: { type: "earn", id: int(p[1]) } };
    case "earn":
      // The D1 products' legs (worker/lib/product-objects.ts): `earn:{id}:interest:{day}`, `earn:{id}:redeem|mature`.
      return { kind: p[2] === "interest" ? "earn_interest" : p[2] === "mature" ? "earn_mature" : "earn_redeem", ref: { type: "earn", id: int(p[1]) } };
    case "vote":
      // `vote:release:{round}:{user}` (worker/domain/vote/release.ts).
      return { kind: "vote_release", ref: { type: "vote", id: int(p[2]) } };
    case "launch":
      // A subscription's legs (worker/domain/launch/objects.ts): `launch:{pid}:{sid}:allocate|refund|claim:{vested}`, D1's kinds.
      return { kind: p[3] === "claim" ? "launch_claim" : p[3] === "refund" ? "launch_refund" : "launch_allocate", ref: { type: "launch", id: int(p[1]) } };
    case "mining":
      return { kind: p[2] === "buy" ? "mining_buy" : "mining_payout", ref: { type: "mining", id: p[2] === "buy" ? int(p[1]) : null } };
    case "insurance":
      return { kind: p[2] === "buy" ? "insurance_premium" : "insurance_payout", ref: { type: "insurance", id: int(p[1]) } };
    case "deposit":
      return { kind: "deposit", ref: { type: "deposit", id: int(p[1]) } };
    case "withdrawal":
      return { kind: WITHDRAWAL_KIND[p[2] ?? ""] ?? "withdrawal_reject", ref: { type: "withdrawal", id: int(p[1]) } };
    case "withdraw-internal":
      return { kind: "withdrawal_in_site", ref: { type: "withdrawal", id: int(p[1]) } };
    default:
      return { kind: head.replace(/-/g, "_") || "other", ref: fallback(key) };
  }
}
