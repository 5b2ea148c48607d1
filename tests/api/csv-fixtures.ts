/** Reading the CSV exports in tests (issue #29): RFC 4180 parsing and exact decimals. */
import { expect } from "vitest";
import { api } from "./helpers.ts";

/** RFC 4180 rows (quoted fields may hold commas, quotes and line breaks). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = "";
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") endField();
    else if (ch === "\n") {
      endField();
      rows.push(row);
      row = [];
    } else if (ch !== "\r") field += ch;
  }
  if (field !== "" || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows;
}

/** A decimal string as units of `scale` (exactly: the test never goes through a number). */
export function toUnits(s: string, scale = 8): bigint {
  const neg = s.startsWith("-");
  const [i, f = ""] = (neg ? s.slice(1) : s).split(".");
  expect(f.length).toBeLessThanOrEqual(scale);
  const v = BigInt(i!) * 10n ** BigInt(scale) + BigInt((f + "0".repeat(scale)).slice(0, scale) || "0");
  return neg ? -v : v;
}

export async function csv(path: string, token: string) {
  const r = await api<string>(path, { token });
  expect(r.status, String(r.body)).toBe(200);
  const [header, ...lines] = parseCsv(r.body);
  return { header: header!, lines: lines.map((l) => Object.fromEntries(header!.map((h, k) => [h, l[k]!]))) };
}

