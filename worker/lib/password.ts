/**
 * Password hashing: scrypt (N=2^14, r=8, p=5: OWASP's recommendation and within the Workers
 * limits N·r·p ≤ 2^20 and 128 MB) over HMAC-SHA256(pepper, password). The pepper is a secret
 * that never sits in the database, so a stolen table alone cannot be brute-forced.
 * Stored as `scrypt$N$r$p$saltB64$hashB64` so parameters can be raised later per user.
 */
import { createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";

export const SCRYPT_PARAMS = { N: 16384, r: 8, p: 5, keyLength: 32, saltLength: 16 } as const;

function scrypt(password: Buffer, salt: Buffer, N: number, r: number, p: number, len: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, len, { N, r, p, maxmem: 256 * N * r }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

function peppered(password: string, pepper: string): Buffer {
  if (!pepper) throw new Error("PEPPER secret is not configured");
  return createHmac("sha256", pepper).update(password, "utf8").digest();
}

/** Hashes a password for storage. */
export async function hashPassword(password: string, pepper: string): Promise<string> {
  const { N, r, p, keyLength, saltLength } = SCRYPT_PARAMS;
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

/** A hash of a random password: used to spend the same time when the account does not exist. */
export const DUMMY_HASH =
  "scrypt$16384$8$5$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
