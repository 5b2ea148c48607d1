/**
 * Factories for API tests: each test makes its own users and data, so order never matters.
 * Requests go through the real Worker (SELF), with the same headers the web app sends.
 */
import { env, SELF } from "cloudflare:test";
import { reconcile, reconcileAndRecord, type ReconcileResult } from "../../worker/domain/ledger/reconcile.ts";
import { hashPassword, passwordCost, SCRYPT_PARAMS, type ScryptCost } from "../../worker/lib/password.ts";
import { createSession } from "../../worker/lib/auth.ts";
import { movementStatements, SYSTEM, type WalletAccount } from "../../worker/lib/ledger.ts";
import { accountsOnObjects, accountStub, SYSTEM_SHARDS, systemStub } from "../../worker/lib/accounts.ts";
import { accountReads, movementOf } from "../../worker/domain/wallet/object-reads.ts";
import { oneLineWith } from "../../worker/domain/wallet/statement.ts";

let seq = 0;
/** A fresh unique e-mail account. */
export function uniqueEmail(prefix = "user"): string {
  seq += 1;
  return `${prefix}${Date.now().toString(36)}${seq}@test.example`;
}

export interface ApiResult<T = any> {
  status: number;
  body: T;
}

/** Calls the API like the web app does. */
export async function api<T = any>(
  path: string,
  opts: { method?: string; body?: unknown; token?: string; lang?: string; headers?: Record<string, string> } = {},
): Promise<ApiResult<T>> {
  // Each call comes from its own address unless a test pins one, so per-address limits of one
  // test do not leak into another.
  const ip = `198.18.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 255)}`;
  const headers: Record<string, string> = { lang: opts.lang ?? "en", "cf-connecting-ip": ip, ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = opts.token;
  let body: BodyInit | undefined;
  if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  }
  const res = await SELF.fetch(`http://exchange.test/api${path}`, { method: opts.method ?? (body ? "POST" : "GET"), headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed as T };
}

/** Fetches a captcha and reads its answer from the dev outbox. */
export async function solvedCaptcha(): Promise<{ code_id: string; code: string }> {
  const r = await api<{ message: { code_id: string } }>("/login/smscode", { method: "POST" });
  const row = await env.DB.prepare("SELECT code FROM dev_outbox WHERE channel = 'captcha' AND recipient = ?")
    .bind(r.body.message.code_id)
    .first<{ code: string }>();
  return { code_id: r.body.message.code_id, code: row!.code };
}

export interface TestUser {
  id: number;
  account: string;
  password: string;
  token: string;
}

/**
 * One stored hash per password (and cost) for the users a test file makes: most files make dozens
 * of users with the same password. The cost is the one the test Worker hashes new passwords with
 * (PASSWORD_COST=test, worker/lib/password.ts passwordCost), or production's for a test about
 * hashing itself (`productionCost`). Logging in verifies at the stored hash's cost; only the salt is
 * shared between these test users.
 */
const hashes = new Map<string, Promise<string>>();
function storedHash(password: string, cost: ScryptCost): Promise<string> {
  const key = `${cost.N}/${cost.r}/${cost.p}/${password}`;
  let hash = hashes.get(key);
  if (!hash) {
    hash = hashPassword(password, env.PEPPER, cost);
    hashes.set(key, hash);
    // A failed hash must not be reused by the next user.
    hash.catch(() => hashes.delete(key));
  }
  return hash;
}

/**
 * Inserts a user directly (fast path for tests that are not about registration) with a session.
 * `balances` are credited through the ledger, like real deposits.
 */

export async function makeUser(
  overrides: {
    account?: string;
    password?: string;
    verified?: 0 | 1 | 2 | 3;
    role?: "user" | "operator";
    realName?: string;
    /** a 6-digit fund password on file (withdrawals, releasing C2C escrow) */
    fundPassword?: string;
    /** both hashes at production's scrypt cost instead of the test Worker's (tests about hashing under load) */
    productionCost?: boolean;
    balances?: { currencyId: number; units: bigint; account?: WalletAccount }[];
  } = {},
): Promise<TestUser> {
  const account = overrides.account ?? uniqueEmail();
  const password = overrides.password ?? "Passw0rd1";
  seq += 1;
  // Taken before any await: users made in parallel must not share a code.
  const code = `T${Date.now().toString(36).toUpperCase().slice(-4)}${seq}`.slice(0, 12);
  const cost = overrides.productionCost ? SCRYPT_PARAMS : passwordCost(env);
  const hash = await storedHash(password, cost);
  const row = await env.DB.prepare(
    `INSERT INTO users (account, account_type, password_hash, extension_code, role, review_status, real_name, created_at)
     VALUES (?, 1, ?, ?, ?, ?, ?, ?) RETURNING id`,
  )
    .bind(
      account,
      hash,
      code,
      overrides.role ?? "user",
      overrides.verified ?? 0,
      overrides.realName ?? null,
      Date.now(),
    )
    .first<{ id: number }>();
  const id = row!.id;
  if (overrides.fundPassword !== undefined) {
    await env.DB.prepare("UPDATE users SET fund_password_hash = ? WHERE id = ?").bind(await storedHash(overrides.fundPassword, cost), id).run();
  }
  for (const b of overrides.balances ?? []) await credit(`test-credit:${id}:${b.currencyId}:${seq++}`, id, b.currencyId, b.units, b.account ?? "change");
  const token = await createSession(env.DB, id, "test");
  return { id, account, password, token };
}

/** Inserts the reference currencies the money tests need (idempotent). */
export async function seedCurrencies(): Promise<void> {
  await env.DB.batch(
    [
      [1, "BTC", 8, 0],
      [2, "ETH", 8, 0],
      [3, "USDT", 8, 1],
    ].map(([id, name, scale, legal]) =>
      env.DB.prepare("INSERT INTO currencies (id, name, scale, is_legal) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING").bind(id, name, scale, legal),
    ),
  );
}

/** A snapshot of every table row count plus the sum of balances: "nothing changed" checks. */
export async function dbFingerprint(): Promise<string> {
  const tables = ["users", "sessions", "movements", "ledger", "balances", "verification_codes", "news"];
  const parts: string[] = [];
  for (const t of tables) {
    const r = await env.DB.prepare(`SELECT count(*) AS n FROM ${t}`).first<{ n: number }>();
    parts.push(`${t}=${r?.n}`);
  }
  const sums = await env.DB.prepare("SELECT COALESCE(SUM(available),0) a, COALESCE(SUM(frozen),0) f FROM balances").first<{ a: number; f: number }>();
  parts.push(`bal=${sums?.a}/${sums?.f}`);
  const pw = await env.DB.prepare("SELECT group_concat(password_hash) h FROM users").first<{ h: string | null }>();
  parts.push(`pw=${pw?.h?.length ?? 0}:${pw?.h?.slice(-20) ?? ""}`);
  return parts.join(",");
}

/** Inserts BTC/USDT (pair 1: price 2 decimals, quantity 6 decimals, minimum 5 USDT) and its currencies. */
export async function seedSpotPair(opts: { pairId?: number; currencyId?: number; name?: string } = {}): Promise<number> {
  await seedCurrencies();
  const pairId = opts.pairId ?? 1;
  const currencyId = opts.currencyId ?? 1;
  if (opts.name) {
    await env.DB.prepare("INSERT INTO currencies (id, name, scale) VALUES (?, ?, 8) ON CONFLICT DO NOTHING").bind(currencyId, opts.name).run();
  }
  await env.DB.prepare(
    `INSERT INTO pairs (id, currency_id, legal_id, price_decimals, qty_decimals, min_notional, maker_fee_bps, taker_fee_bps)
     VALUES (?, ?, 3, 2, 6, 500000000, 10, 20) ON CONFLICT DO NOTHING`,
  )
    .bind(pairId, currencyId)
    .run();
  return pairId;
}

/** Units helper: "1.5" at scale 8 → 150000000n. */
export function units(value: string, scale = 8): bigint {
  const [i, f = ""] = value.split(".");
  return BigInt(i!) * 10n ** BigInt(scale) + BigInt((f + "0".repeat(scale)).slice(0, scale) || "0");
}

/**
 * Whether this test Worker keeps balances in the account objects (ACCOUNTS=objects): the fixtures
 * below then credit and read the objects instead of D1's ledger, so one test reads the same in both modes.
 */
export const onObjects = (): boolean => accountsOnObjects(env);

/**
 * Credits `amount` to a user's account from outside (a test's deposit), once by `key`. In D1 the
 * deposits account pays it (kind `o.kind`) as a deposit does; in objects mode a user's object takes
 * a credit leg keyed `deposit:{key}` (read as a deposit line), and a system account (id ≤ 0: the
 * treasury) gets the credit in every shard, as tests/objects' fundTreasuryShards does, whichever
 * shard a product draws on, or only the shard `o.shard`. `o.d1`: in D1 whatever the mode (a state
 * from before a cut-over), at the time `o.at` (now unless given).
 */
export async function credit(
  key: string,
  userId: number,
  currencyId: number,
  amount: bigint,
  account: WalletAccount = "change",
  o: { kind?: string; d1?: boolean; at?: number; shard?: number } = {},
): Promise<void> {
  if (o.d1 || !onObjects()) {
    await env.DB.batch(
      movementStatements(
        env.DB,
        key,
        o.kind ?? "deposit",
        [
          { userId, currencyId, account, dAvailable: amount, dFrozen: 0n },
          { userId: SYSTEM.deposits, currencyId, account, dAvailable: -amount, dFrozen: 0n },
        ],
        o.at,
      ),
    );
    return;
  }
  const leg = { key: `deposit:${key}`, ops: [{ t: "credit" as const, account, currencyId, amount }] };
  const shards = o.shard === undefined ? Array.from({ length: SYSTEM_SHARDS }, (_, k) => k) : [o.shard];
  const answers = userId > 0 ? await accountStub(env, userId).accountApply(userId, [leg]) : (await Promise.all(shards.map((k) => systemStub(env, userId, k).systemApply(userId, k, [leg])))).flat();
  for (const a of answers) if (a.result !== "applied") throw new Error(`test credit ${key}: ${JSON.stringify(a)}`);
}

/**
 * A deposit made at `at`, in the past, to a user who has no money yet: D1's ledger at that time, and
 * in objects mode the same rows as the record before the cut-over, with the user's account object
 * opened with the balance they leave (as the cut-over opens it): the statement and the export then
 * list the deposit below the object's own movements, at its time.
 */
export async function depositAt(key: string, userId: number, currencyId: number, amount: bigint, at: number, kind = "deposit"): Promise<void> {
  await credit(key, userId, currencyId, amount, "change", { d1: true, at, kind });
  if (onObjects()) await accountStub(env, userId).accountImport(userId, [{ account: "change", currencyId, available: amount, frozen: 0n }]);
}

/**
 * A user's balance of one currency in one account as [available, frozen] bigints: D1's `balances`,
 * or in objects mode the account object's exact balance (a system account's summed over its shards).
 */
export async function balance(userId: number, currencyId: number, account = "change"): Promise<[bigint, bigint]> {
  if (onObjects()) {
    const mine = (await balancesOf(userId)).filter((b) => b.currencyId === currencyId && b.account === account);
    return [mine.reduce((t, b) => t + b.available, 0n), mine.reduce((t, b) => t + b.frozen, 0n)];
  }
  // As text: a system account's balance may be past 2^53.
  const r = await env.DB.prepare("SELECT CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM balances WHERE user_id = ? AND currency_id = ? AND account = ?")
    .bind(userId, currencyId, account)
    .first<{ a: string; f: string }>();
  return [BigInt(r?.a ?? 0), BigInt(r?.f ?? 0)];
}

/**
 * Every balance of a user, as `balance` reads one: D1's `balances` rows, or in objects mode the rows
 * of the user's account object (a system account's summed over its shards).
 */
export async function balancesOf(userId: number): Promise<{ currencyId: number; account: string; available: bigint; frozen: bigint }[]> {
  if (onObjects()) {
    const reads = accountReads(env)!;
    return (await (userId > 0 ? reads.balances(userId) : reads.systemBalances(userId))).map((b) => ({ currencyId: b.currencyId, account: b.account, available: b.available, frozen: b.frozen }));
  }
  const { results } = await env.DB.prepare("SELECT currency_id, account, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM balances WHERE user_id = ?")
    .bind(userId)
    .all<{ currency_id: number; account: string; a: string; f: string }>();
  return results.map((r) => ({ currencyId: r.currency_id, account: r.account, available: BigInt(r.a), frozen: BigInt(r.f) }));
}

/**
 * In objects mode, drains users' account objects (every user's when none are named; a system
 * account's every shard) into D1's read model now (what their alarms do within a second), so what
 * reads the read model (the reconciler, the liabilities snapshot, the public summary's fees) has
 * every movement; in D1 mode there is nothing to drain.
 */
export async function drainAccounts(userIds?: number[]): Promise<void> {
  if (!onObjects()) return;
  const ids = userIds ?? (await env.DB.prepare("SELECT id FROM users").all<{ id: number }>()).results.map((u) => u.id);
  for (const id of ids) {
    if (id > 0) await accountReads(env)!.drained(id);
    else
      for (let k = 0; k < SYSTEM_SHARDS; k++)
        for (let step = 0; (await systemStub(env, id, k).accountDrain()).more; step++) if (step >= 100) throw new Error(`system ${id}:${k}: drain never ended`);
  }
}

/**
 * Credits a crowd of test users: in D1 one deposit movement, in objects mode each user's object a
 * credit (a deposit leg), drained into the read model.
 */
export async function creditMany(key: string, credits: { userId: number; currencyId: number; amount: bigint }[]): Promise<void> {
  if (onObjects()) {
    for (const c of credits) await credit(`${key}:${c.userId}:${c.currencyId}`, c.userId, c.currencyId, c.amount);
    await drainAccounts([...new Set(credits.map((c) => c.userId))]);
    return;
  }
  await env.DB.batch(
    movementStatements(
      env.DB,
      key,
      "deposit",
      credits.flatMap((c) => [
        { userId: c.userId, currencyId: c.currencyId, account: "change" as const, dAvailable: c.amount, dFrozen: 0n },
        { userId: SYSTEM.deposits, currencyId: c.currencyId, account: "change" as const, dAvailable: -c.amount, dFrozen: 0n },
      ]),
    ),
  );
}

/**
 * Freezes `amount` of a user's available in their change account under `key`, as a product's hold
 * would: a freeze movement in D1, or a reservation in the user's account object (drained into the
 * read model), listed as an unexplained hold.
 */
export async function holdFunds(userId: number, currencyId: number, amount: bigint, key: string): Promise<void> {
  if (!onObjects()) {
    await env.DB.batch(movementStatements(env.DB, key, "test_hold", [{ userId, currencyId, account: "change", dAvailable: -amount, dFrozen: amount }]));
    return;
  }
  const r = await accountStub(env, userId).accountReserve(userId, { forKind: "test_hold", forId: key, account: "change", currencyId, amount });
  if (r.result !== "reserved") throw new Error(`test hold ${key}: ${JSON.stringify(r)}`);
  await drainAccounts([userId]);
}

/** D1's table of users' balances: D1's books, or in objects mode the objects' read model (what the liabilities snapshot reads). */
export const balancesTable = (): string => (onObjects() ? "account_balances" : "balances");

/** D1's rows of users' balance changes, beside balancesTable: D1's ledger, or the read model's movements. */
export const movementsTable = (): string => (onObjects() ? "account_movements" : "ledger");

/**
 * The lines a user's statement must list, each `movement|currency|account` as a line's id: the
 * movements of D1's `ledger`, and in objects mode before them the account object's movements
 * (drained into D1's read model first; a movement is a row's ref without the op's index).
 */
export async function statementLineIds(userId: number): Promise<string[]> {
  const ids = new Set<string>();
  if (onObjects()) {
    await drainAccounts([userId]);
    const { results } = await env.DB.prepare("SELECT ref, currency_id, account FROM account_movements WHERE user_id = ? ORDER BY seq DESC")
      .bind(userId)
      .all<{ ref: string; currency_id: number; account: string }>();
    // Newest first, as the statement reads them: a hold followed at once by what spends it (an open's fee, an in-site withdrawal) is one line, named by the spend.
    let line: string | null = null;
    let last: string | null = null;
    for (const r of results) {
      const key = movementOf(r.ref);
      if (key !== last && !(line !== null && oneLineWith(line, key))) line = key;
      last = key;
      ids.add(`${line}|${r.currency_id}|${r.account}`);
    }
  }
  const { results } = await env.DB.prepare("SELECT DISTINCT movement_key || '|' || currency_id || '|' || account AS k FROM ledger WHERE user_id = ?").bind(userId).all<{ k: string }>();
  for (const r of results) ids.add(r.k);
  return [...ids];
}

/** A line of a user's statement (GET /api/wallet/statement). */
export interface StatementLine {
  id: string;
  kind: string;
  currency_id: number;
  account: string;
  amount: string;
  held: string;
  balance_after: string;
  held_after: string;
  ref: { type: string; id: number | null };
}

/**
 * Every line of a user's statement, newest first, page by page: the movements of their money as
 * they read them, in either mode (a test's "moved once" reads these, not one mode's rows).
 */
export async function statementLines(token: string, query = ""): Promise<StatementLine[]> {
  const lines: StatementLine[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const r: ApiResult = await api(`/wallet/statement?limit=100${query}${cursor ? `&cursor=${cursor}` : ""}`, { token });
    if (r.body?.type !== "ok") throw new Error(`statement: ${JSON.stringify(r.body)}`);
    lines.push(...(r.body.message.lines as StatementLine[]));
    cursor = r.body.message.next;
    if (cursor === null) return lines;
  }
  throw new Error("statement never ended");
}

/**
 * The skip condition of a test about something only D1 mode has (its ledger's rows and keys, the
 * switch between the modes): true in objects mode. `why` says what, where the test is skipped.
 */
export function d1Only(why: string): boolean {
  return why.length > 0 && onObjects();
}

/**
 * Applies a pair object's outbox to D1 now (what its alarm does); in objects mode also delivers its
 * legs to the account objects until every one was answered (what its delivery does after a trade,
 * a cancel or a settlement), so balances read after it are the ones the trades left.
 */
export async function drainPair(pairId: number): Promise<number> {
  const stub = env.PAIR.get(env.PAIR.idFromName(`pair:${pairId}`));
  const n = await stub.drain();
  // Waits for state (every leg answered), also outside a test (a beforeAll): the same bound as expect.poll's.
  for (let i = 0; onObjects() && (await stub.deliverLegs()); i++) {
    if (i >= 1200) throw new Error(`pair ${pairId}: legs still undelivered`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return n;
}

/**
 * The reconciliation now (no differences when the books are right): D1's checks, or in objects
 * mode the checks the operator's and the cron's run with the switch on (the objects against their
 * read model, frozen funds against the holds in the objects; recorded as the cron records them).
 */
export async function reconcileNow(): Promise<ReconcileResult> {
  return onObjects() ? reconcileAndRecord(env.DB, "operator", env) : reconcile(env.DB);
}

/** The newest code sent to `account` (e-mail or SMS) as the dev outbox recorded it, or null. */
export async function outboxCode(account: string): Promise<string | null> {
  const row = await env.DB.prepare("SELECT code FROM dev_outbox WHERE recipient = ? AND channel IN ('email', 'sms') AND code IS NOT NULL ORDER BY id DESC LIMIT 1")
    .bind(account)
    .first<{ code: string }>();
  return row?.code ?? null;
}

/**
 * Proves a registered account's e-mail or phone the way its owner does (issue #29): the code sent
 * at registration, read from the dev outbox, entered through POST /api/user/verify_contact. Users
 * made with makeUser are proven already (like every account made by the operators' own tools).
 */
export async function proveContact(user: { account: string; token: string }): Promise<void> {
  const code = await outboxCode(user.account);
  const r = await api("/user/verify_contact", { token: user.token, body: { code } });
  if (r.body?.message?.contact_verified !== true) throw new Error(`verify_contact: ${JSON.stringify(r.body)}`);
}
