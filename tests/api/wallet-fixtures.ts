/**
 * Factories for the wallet, account and operator tests: currencies and real prices, images,
 * uploads, security set-up, treasury funding and the "books are right" assertion that every
 * scenario ends with.
 */
import { env, SELF } from "cloudflare:test";
import { expect } from "vitest";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { shardOf } from "../../worker/lib/accounts.ts";
import { api, balance, credit, dbFingerprint, makeUser, reconcileNow, seedCurrencies, type TestUser } from "./helpers.ts";
import { hashPassword, SCRYPT_PARAMS } from "../../worker/lib/password.ts";

export const BTC = 1;
export const ETH = 2;
export const USDT = 3;
export const XRP = 5;
export const DOGE = 11;

/** Minimal units at scale 8. */
export const u8 = (decimal: string): bigint => {
  const [i, f = ""] = decimal.split(".");
  return BigInt(i!) * 10n ** 8n + BigInt(f.padEnd(8, "0"));
};

/** BTC, ETH, USDT (the reference three) plus XRP (scale 6) and DOGE. */
export async function seedWalletCurrencies(): Promise<void> {
  await seedCurrencies();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO currencies (id, name, scale) VALUES (5, 'XRP', 6) ON CONFLICT DO NOTHING"),
    env.DB.prepare("INSERT INTO currencies (id, name, scale, show) VALUES (11, 'DOGE', 8, 1) ON CONFLICT DO NOTHING"),
  ]);
}

/** Records a last traded price for coin/USDT, as the spot engine does after a trade. */
export async function setPrice(currencyId: number, price: string): Promise<void> {
  const pairId = 900 + currencyId;
  await env.DB.batch([
    env.DB.prepare("INSERT INTO pairs (id, currency_id, legal_id, price_decimals, qty_decimals, min_notional) VALUES (?, ?, 3, 2, 4, 1) ON CONFLICT DO NOTHING").bind(pairId, currencyId),
    env.DB.prepare(
      `INSERT INTO tickers (pair_id, last_price, open_24h, high_24h, low_24h, volume_24h, change_24h, updated_at) VALUES (?1, ?2, ?2, ?2, ?2, '1', '0', ?3)
       ON CONFLICT (pair_id) DO UPDATE SET last_price = excluded.last_price`,
    ).bind(pairId, price, Date.now()),
  ]);
}

/** Removes the price of a coin (as if it had never traded). */
export async function clearPrice(currencyId: number): Promise<void> {
  await env.DB.prepare("DELETE FROM tickers WHERE pair_id = ?").bind(900 + currencyId).run();
}

const b64 = (s: string) => Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));
/** A real 3×2 RGB PNG. */
export const PNG = b64("iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGM4IScHQQxwFgBBAAYZPEVBlgAAAABJRU5ErkJggg==");
/** A real 8×8 greyscale baseline JPEG. */
export const JPG = b64(
  "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQH/wAALCAAIAAgBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAAAP/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AP//Z",
);
/** A real 1×1 GIF (refused: only JPG and PNG). */
export const GIF = b64("R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAkQBADs=");

export const toBase64 = (bytes: Uint8Array) => {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};

/** Multipart upload like the web app's file input. */
export async function uploadMultipart(token: string | undefined, bytes: Uint8Array, name = "photo.png", type = "image/png", scene = "user/photo.png") {
  const form = new FormData();
  form.append("file", new File([bytes], name, { type }));
  form.append("scene", scene);
  const headers: Record<string, string> = { lang: "en" };
  if (token) headers.authorization = token;
  const res = await SELF.fetch("http://exchange.test/api/new/upload", { method: "POST", headers, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

/** Uploads an image and returns its id (the value the forms send as pic / front_pic …). */
export async function uploadImage(user: TestUser, bytes: Uint8Array = PNG): Promise<string> {
  const r = await api("/new/upload/base64", { token: user.token, body: { file_base64: `data:image/png;base64,${toBase64(bytes)}`, scene: "user/x.png" } });
  expect(r.body.status, JSON.stringify(r.body)).toBe(1);
  return r.body.data.id as string;
}

export const FUND_PASSWORD = "135790";
/** A valid (Luhn) card number of a bank in the BIN table (Agricultural Bank of China). */
export const ABC_CARD = "6228480402564890018";

/** A user ready to withdraw: fund password and bank card on file, optional balances. */
export async function makeWithdrawer(balances: { currencyId: number; units: bigint }[] = [], opts: { productionCost?: boolean } = {}): Promise<TestUser> {
  const user = await makeUser({ balances, productionCost: opts.productionCost });
  const fp = await api("/user/fund_password", { token: user.token, body: { fund_password: FUND_PASSWORD, re_fund_password: FUND_PASSWORD, login_password: user.password } });
  expect(fp.body.type, JSON.stringify(fp.body)).toBe("ok");
  if (opts.productionCost) {
    // The Worker hashed it at the test cost (PASSWORD_COST=test); a test about hashing under load needs production's.
    await env.DB.prepare("UPDATE users SET fund_password_hash = ? WHERE id = ?").bind(await hashPassword(FUND_PASSWORD, env.PEPPER, SCRYPT_PARAMS), user.id).run();
  }
  const bank = await api("/user/cash_save", { token: user.token, body: { real_name: "Li Lei", bank_account: ABC_CARD, bank_name: "", bank_branch: "Main" } });
  expect(bank.body.type, JSON.stringify(bank.body)).toBe("ok");
  return user;
}

export const makeOperator = () => makeUser({ role: "operator" });

let fundSeq = 0;
/**
 * Puts the exchange's own money into the treasury (test set-up; production uses a two-operator
 * adjustment): where the mode keeps it (`credit`), or in D1's treasury whatever the mode (`d1`: a
 * state from before a cut-over). `for`: a record's id; in objects mode only the treasury shard that
 * record draws on is funded (worker/lib/accounts.ts shardOf), so the treasury's total is the
 * funding, as in D1, where otherwise every shard gets it whole.
 */
export async function fundTreasury(currencyId: number, units: bigint, o: { d1?: boolean; for?: number } = {}): Promise<void> {
  fundSeq += 1;
  const shard = o.for === undefined ? undefined : shardOf(o.for);
  await credit(`test-treasury:${currencyId}:${fundSeq}:${Date.now()}`, TREASURY, currencyId, units, "change", { kind: "treasury_funding", d1: o.d1, shard });
}

/** One balance of a user as bigint [available, frozen] (from the store the mode keeps it in: `balance`). */
export const bal = balance;

/** The books are right: the reconciliation finds no difference. */
export async function expectBooksBalanced(): Promise<void> {
  const r = await reconcileNow();
  expect(r.differences, JSON.stringify(r.differences)).toEqual([]);
  expect(r.ok).toBe(true);
}

/** dbFingerprint plus the wallet tables: "nothing changed" checks. */
export async function walletFingerprint(): Promise<string> {
  const tables = ["deposits", "withdrawals", "conversions", "uploads", "kyc_submissions", "bank_cards", "withdraw_addresses", "balance_adjustments", "totp_secrets", "audit_log"];
  const parts = [await dbFingerprint()];
  for (const t of tables) parts.push(`${t}=${(await env.DB.prepare(`SELECT count(*) AS n FROM ${t}`).first<{ n: number }>())?.n}`);
  const statuses = await env.DB.prepare(
    "SELECT (SELECT group_concat(status) FROM deposits) d, (SELECT group_concat(status) FROM withdrawals) w, (SELECT group_concat(status) FROM kyc_submissions) k, (SELECT group_concat(status) FROM balance_adjustments) a, (SELECT group_concat(review_status) FROM users) r, (SELECT group_concat(coalesce(fund_password_hash, '-')) FROM users) f",
  ).first<Record<string, string | null>>();
  parts.push(JSON.stringify(statuses));
  return parts.join(",");
}
