/**
 * Deterministic 64-bit FNV-1a hash used to fingerprint engine state, so "replaying the journal
 * gives the same state" and "restore gives the same state" are one string comparison (in tests,
 * and in the Durable Object after a rebuild). Computed with two 32-bit halves in plain numbers:
 * no bigint, no platform crypto, identical in Node and workerd.
 */

const PRIME_LO = 0x1b3; // FNV-64 prime = 2^40 + 0x1b3
const OFFSET_HI = 0xcbf29ce4;
const OFFSET_LO = 0x84222325;

/** Incremental FNV-1a (64-bit) over a canonical encoding of numbers and strings. */
export class Fnv1a64 {
  private hi = OFFSET_HI;
  private lo = OFFSET_LO;

  /** Mixes one byte (0..255). */
  byte(b: number): this {
    const lo = (this.lo ^ (b & 0xff)) >>> 0;
    const hi = this.hi;
    // (hi·2^32 + lo) · (2^40 + 0x1b3) mod 2^64
    const loMul = lo * PRIME_LO; // < 2^41, exact
    const carry = Math.floor(loMul / 0x100000000);
    this.lo = loMul >>> 0;
    this.hi = (hi * PRIME_LO + carry + ((lo << 8) >>> 0)) >>> 0;
    return this;
  }

  /** Mixes a string as UTF-16 code units (2 bytes each), its length first so concatenations differ. */
  string(s: string): this {
    this.uint(s.length);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      this.byte(c & 0xff);
      this.byte(c >>> 8);
    }
    return this;
  }

  /** Mixes a non-negative safe integer as 8 little-endian bytes. */
  uint(n: number): this {
    let lo = n >>> 0;
    let hi = Math.floor(n / 0x100000000) >>> 0;
    for (let i = 0; i < 4; i++, lo >>>= 8) this.byte(lo & 0xff);
    for (let i = 0; i < 4; i++, hi >>>= 8) this.byte(hi & 0xff);
    return this;
  }

  /** Mixes any finite number by its decimal text (covers negatives and non-integers). */
  number(n: number): this {
    return this.string(String(n));
  }

  /** Mixes an id that may be a number or a string, tagged so 1 and "1" differ. */
  id(v: number | string): this {
    if (typeof v === "number") return this.byte(0x6e).number(v);
    return this.byte(0x73).string(v);
  }

  /** 16 lowercase hex digits. */
  digest(): string {
    return this.hi.toString(16).padStart(8, "0") + this.lo.toString(16).padStart(8, "0");
  }
}

/** FNV-1a 64 of a string's UTF-8 bytes (handy for tests against published vectors). */
export function fnv1a64Utf8(s: string): string {
  const h = new Fnv1a64();
  for (const b of new TextEncoder().encode(s)) h.byte(b);
  return h.digest();
}
