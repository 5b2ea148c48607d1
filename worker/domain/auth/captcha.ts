/**
 * Server-rendered image captcha. Characters are drawn as jittered, rotated strokes (no <text>,
 * so the answer is not in the markup), with noise lines over a 150×50 canvas. The answer is
 * stored hashed with a 2-minute expiry and is deleted on its first check, right or wrong.
 */
import { randomInt, randomString, randomToken, sha256Hex } from "../../lib/crypto.ts";

export const CAPTCHA_TTL_MS = 2 * 60 * 1000;
const ALPHABET = "2345678ACEFHKLMNPRTUVWXYZ";

// Stroke glyphs on a 6×10 grid: each glyph is a list of polylines.
const G: Record<string, number[][]> = {
  "2": [[0, 2, 1, 0, 5, 0, 6, 2, 6, 4, 0, 10, 6, 10]],
  "3": [[0, 1, 2, 0, 5, 0, 6, 2, 5, 4, 2, 5, 5, 6, 6, 8, 5, 10, 1, 10, 0, 9]],
  "4": [[5, 10, 5, 0, 0, 7, 6, 7]],
  "5": [[6, 0, 1, 0, 0, 4, 4, 4, 6, 6, 6, 8, 4, 10, 0, 10]],
  "6": [[5, 0, 2, 0, 0, 3, 0, 8, 2, 10, 5, 10, 6, 8, 6, 6, 4, 5, 0, 6]],
  "7": [[0, 0, 6, 0, 2, 10]],
  "8": [[3, 5, 1, 4, 1, 1, 3, 0, 5, 1, 5, 4, 3, 5, 0, 7, 0, 9, 3, 10, 6, 9, 6, 7, 3, 5]],
  A: [[0, 10, 3, 0, 6, 10], [1, 6, 5, 6]],
  C: [[6, 1, 4, 0, 2, 0, 0, 3, 0, 7, 2, 10, 4, 10, 6, 9]],
  E: [[6, 0, 0, 0, 0, 10, 6, 10], [0, 5, 4, 5]],
  F: [[6, 0, 0, 0, 0, 10], [0, 5, 4, 5]],
  H: [[0, 0, 0, 10], [6, 0, 6, 10], [0, 5, 6, 5]],
  K: [[0, 0, 0, 10], [6, 0, 0, 6], [2, 4, 6, 10]],
  L: [[0, 0, 0, 10, 6, 10]],
  M: [[0, 10, 0, 0, 3, 6, 6, 0, 6, 10]],
  N: [[0, 10, 0, 0, 6, 10, 6, 0]],
  P: [[0, 10, 0, 0, 5, 0, 6, 2, 5, 5, 0, 5]],
  R: [[0, 10, 0, 0, 5, 0, 6, 2, 5, 5, 0, 5], [3, 5, 6, 10]],
  T: [[0, 0, 6, 0], [3, 0, 3, 10]],
  U: [[0, 0, 0, 8, 2, 10, 4, 10, 6, 8, 6, 0]],
  V: [[0, 0, 3, 10, 6, 0]],
  W: [[0, 0, 1, 10, 3, 4, 5, 10, 6, 0]],
  X: [[0, 0, 6, 10], [6, 0, 0, 10]],
  Y: [[0, 0, 3, 5, 6, 0], [3, 5, 3, 10]],
  Z: [[0, 0, 6, 0, 0, 10, 6, 10]],
};

const rnd = (min: number, max: number) => min + (randomInt(10_000) / 10_000) * (max - min);
const COLORS = ["#f0b90b", "#2ebd85", "#5b8def", "#e6e8ea", "#f6465d", "#c084fc"];

/** Renders `answer` as an SVG document. */
export function renderCaptchaSvg(answer: string): string {
  const W = 150;
  const H = 50;
  const parts: string[] = [`<rect width="${W}" height="${H}" fill="#1e2329"/>`];
  for (let i = 0; i < 30; i++) {
    parts.push(`<circle cx="${rnd(0, W).toFixed(1)}" cy="${rnd(0, H).toFixed(1)}" r="${rnd(0.5, 1.5).toFixed(1)}" fill="#5e6673"/>`);
  }
  [...answer].forEach((ch, i) => {
    const strokes = G[ch] ?? [];
    const scale = rnd(2.6, 3.3);
    const angle = rnd(-0.35, 0.35);
    const cx = 18 + i * 34 + rnd(-3, 3);
    const cy = 25 + rnd(-3, 3);
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    const color = COLORS[randomInt(COLORS.length)]!;
    for (const s of strokes) {
      const pts: string[] = [];
      for (let k = 0; k + 1 < s.length; k += 2) {
        const x = (s[k]! - 3 + rnd(-0.3, 0.3)) * scale;
        const y = (s[k + 1]! - 5 + rnd(-0.3, 0.3)) * scale * 0.85;
        pts.push(`${(cx + x * cos - y * sin).toFixed(1)},${(cy + x * sin + y * cos).toFixed(1)}`);
      }
      parts.push(`<polyline points="${pts.join(" ")}" fill="none" stroke="${color}" stroke-width="${rnd(2, 3).toFixed(1)}" stroke-linecap="round" stroke-linejoin="round"/>`);
    }
  });
  for (let i = 0; i < 5; i++) {
    parts.push(
      `<path d="M${rnd(0, 20).toFixed(1)} ${rnd(0, H).toFixed(1)} Q${rnd(40, 110).toFixed(1)} ${rnd(0, H).toFixed(1)} ${rnd(130, W).toFixed(1)} ${rnd(0, H).toFixed(1)}" stroke="${COLORS[randomInt(COLORS.length)]}" stroke-width="1.2" fill="none" opacity="0.8"/>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${parts.join("")}</svg>`;
}

function normalise(answer: string) {
  return answer.trim().toUpperCase();
}

/** Creates a captcha: stores the hashed answer, returns the id, the image and (for the dev outbox) the answer. */
export async function createCaptcha(db: D1Database, now = Date.now()) {
  const answer = randomString(4, ALPHABET);
  const id = randomToken(16);
  await db
    .prepare("INSERT INTO captchas (id, answer_hash, expires_at) VALUES (?, ?, ?)")
    .bind(id, await sha256Hex(`${id}:${answer}`), now + CAPTCHA_TTL_MS)
    .run();
  const svg = renderCaptchaSvg(answer);
  const image = `data:image/svg+xml;base64,${btoa(svg)}`;
  return { id, image, answer };
}

/** Consumes a captcha: true only for the right answer before expiry; the captcha is gone either way. */
export async function consumeCaptcha(db: D1Database, id: string, answer: string, now = Date.now()): Promise<boolean> {
  const row = await db
    .prepare("DELETE FROM captchas WHERE id = ? RETURNING answer_hash, expires_at")
    .bind(id)
    .first<{ answer_hash: string; expires_at: number }>();
  if (!row || row.expires_at < now) return false;
  return row.answer_hash === (await sha256Hex(`${id}:${normalise(answer)}`));
}

/** Deletes expired captchas (the cron's housekeeping; an expired answer is useless). */
export function pruneCaptchasStatement(db: D1Database, now: number): D1PreparedStatement {
  return db.prepare("DELETE FROM captchas WHERE expires_at < ?").bind(now);
}
