/**
 * Password hashing: scrypt (N=2^14, r=8, p=5: OWASP's recommendation and within the Workers
 * limits N·r·p ≤ 2^20 and 128 MB) over HMAC-SHA256(pepper, password). The pepper is a secret
 * that never sits in the database, so a stolen table alone cannot be brute-forced.
 * Stored as `scrypt$N$r$p$saltB64$hashB64` so parameters can be raised later per user.
 */
import { createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { ApiError } from "./errors.ts";
import { Semaphore } from "./semaphore.ts";

export const SCRYPT_PARAMS = { N: 16384, r: 8, p: 5, keyLength: 32, saltLength: 16 } as const;

/** The scrypt cost a new hash is made with (verifying reads it from the stored hash). */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/**
 * The test suites' cost: 1/80 of the work and 1/16 of the memory, so the hundreds of users the
 * tests register, log in and give fund passwords do not spend minutes of CPU in scrypt. Never
 * deployed: see passwordCost.
 */
export const TEST_SCRYPT_COST: ScryptCost = { N: 1024, r: 8, p: 1 };

/**
 * The cost new hashes are made with: production's SCRYPT_PARAMS, except on a local test Worker,
 * which says so twice: PASSWORD_COST "test" counts only together with DEV_OUTBOX "on" (wrangler.toml
 * deploys DEV_OUTBOX "off" and no PASSWORD_COST; tests/unit/password-cost.test.ts holds that the
 * deployed vars hash at the full cost). The test configurations set both (vitest.config.ts,
 * tests/e2e/server.ts); `npm start` sets only DEV_OUTBOX, so it hashes as production does.
 */
export function passwordCost(env: { DEV_OUTBOX?: string; PASSWORD_COST?: string }): ScryptCost {
  return env.PASSWORD_COST === "test" && env.DEV_OUTBOX === "on" ? TEST_SCRYPT_COST : SCRYPT_PARAMS;
}

/**
 * Hashes at once per isolate. Each scrypt needs 128·N·r = 16 MiB; an isolate has 128 MB, and thirty
 * at once restarted the worker mid-request. Two run together; up to 200 more wait their turn (at
 * most 10 s), and beyond that a request gets a clear "busy, try again" (429), never a crash.
 */
export const HASH_LIMITS = { concurrent: 2, queued: 200, waitMs: 10_000 } as const;
const hashing = new Semaphore(HASH_LIMITS.concurrent, HASH_LIMITS.queued, HASH_LIMITS.waitMs);

async function scrypt(password: Buffer, salt: Buffer, N: number, r: number, p: number, len: number): Promise<Buffer> {
  if (N > SCRYPT_PARAMS.N || r > SCRYPT_PARAMS.r || p > SCRYPT_PARAMS.p) throw new Error("scrypt parameters above the pinned ones");
  const release = await hashing.acquire().catch(() => {
    throw new ApiError("server_busy", 429);
  });
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      scryptCb(password, salt, len, { N, r, p, maxmem: 256 * N * r }, (err, key) => (err ? reject(err) : resolve(key))),
    );
  } finally {
    release();
  }
}

function peppered(password: string, pepper: string): Buffer {
  if (!pepper) throw new Error("PEPPER secret is not configured");
  return createHmac("sha256", pepper).update(password, "utf8").digest();
}

/** Hashes a password for storage, at production's cost unless `cost` says otherwise (passwordCost). */
export async function hashPassword(password: string, pepper: string, cost: ScryptCost = SCRYPT_PARAMS): Promise<string> {
  const { keyLength, saltLength } = SCRYPT_PARAMS;
  const { N, r, p } = cost;
  const salt = randomBytes(saltLength);
  const key = await scrypt(peppered(password, pepper), salt, N, r, p, keyLength);
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** Checks a password against a stored hash in constant time. Unknown formats never verify. */
export async function verifyPassword(password: string, stored: string, pepper: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const salt = Buffer.from(parts[4]!, "base64");
  const expected = Buffer.from(parts[5]!, "base64");
  const key = await scrypt(peppered(password, pepper), salt, N, r, p, expected.length);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash of a random password at `cost`: used to spend the same time when the account does not exist. */
export function dummyHash(cost: ScryptCost = SCRYPT_PARAMS): string {
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;
}
