// Strict input, as an outsider would probe it (issue #26): every numeric field of every POST route
// refuses "0x10", true, [], "", null, "1e2" and " 1", and every text field refuses NUL, U+202E and
// U+FFFF — each with a 4xx that names the field, and with nothing changed in the database. The
// numeric query and path parameters of every GET route refuse the same values' string forms.
//
// The routes and their fields come from the app's own OpenAPI document (/api/openapi.json, built
// from the routes' zod schemas), so a new POST route or field is fuzzed without touching this file.
// Each probe is a body that is valid except for the one field (built from the document's schema),
// so the refusal is about that field and not about something else that happened to be missing.
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, makeUser, seedCurrencies, units, type TestUser } from "./helpers.ts";
import { PNG, uploadMultipart } from "./wallet-fixtures.ts";

type Json = Record<string, unknown>;
type Schema = Json & {
  $ref?: string;
  type?: string | string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
};
type Parameter = { name: string; in: string; required?: boolean; schema?: Schema };
type Operation = { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } };
type Doc = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

const NUMBER_FUZZ: unknown[] = ["0x10", true, [], "", null, "1e2", " 1"];
const TEXT_FUZZ = ["ab\u0000cd", "ab\u202Ecd", "ab\uFFFFcd"];

/** Sample values for fields whose rules go beyond what a JSON schema can say (refinements). */
const HINTS: Record<string, unknown> = {
  user_string: "fuzz.sample@example.com",
  account: "fuzz.sample@example.com",
  password: "Sample1234",
  re_password: "Sample1234",
  repassword: "Sample1234",
  newpwd: "Sample1234",
  repwd: "Sample1234",
  bank_account: "4111111111111111",
  name: "Sample",
  real_name: "Sample",
  card_id: "A1234567",
  day: "2026-01-02",
  link: "https://example.com",
  symbol: "BTCUSDT",
  term_days: 7,
  hour: 3_600_000,
};

/** Candidate strings for a pattern the field must match; the first that fits is used. */
const STRING_CANDIDATES = [
  "Sample1234",
  "1",
  "1.5",
  "0.2",
  "ABC",
  "abc",
  "2026-01-02",
  "2026-01-02T09:00:00Z",
  "123456",
  "fuzz.sample@example.com",
  "https://example.com",
  "100 TH/s",
  "0123456789abcdef0123456789abcdef",
  "TXabcdefghijklmnopqrstuvwxyz123456",
  "BTCUSDT",
];

function resolve(doc: Doc, s: Schema | undefined): Schema {
  let cur = s ?? {};
  for (let i = 0; i < 10 && typeof cur.$ref === "string"; i++) cur = doc.components?.schemas?.[cur.$ref.split("/").pop() ?? ""] ?? {};
  if (cur.allOf?.length === 1) return resolve(doc, cur.allOf[0]);
  return cur;
}

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** Whether a value must be given as a number (or a numeric string): its schema offers a JSON number. */
function isNumeric(doc: Doc, raw: Schema): boolean {
  const s = resolve(doc, raw);
  if (s.anyOf || s.oneOf) return (s.anyOf ?? s.oneOf ?? []).some((a) => isNumeric(doc, a));
  if (typesOf(s).some((t) => t === "number" || t === "integer")) return true;
  // A string of digits ("5.25" percent, "0.2" rate): numeric too, unless letters fit as well.
  if (typesOf(s).includes("string") && s.pattern) {
    const re = new RegExp(s.pattern, "u");
    return (re.test("1") || re.test("0.5") || re.test("5.25")) && !re.test("a") && !re.test("A");
  }
  return false;
}

/** Whether a value is free text (a string that is not an enum, a constant or a number). */
function isText(doc: Doc, raw: Schema): boolean {
  const s = resolve(doc, raw);
  if (s.anyOf || s.oneOf) return false;
  return typesOf(s).length === 1 && typesOf(s)[0] === "string" && s.enum === undefined && s.const === undefined && !isNumeric(doc, s);
}

function sampleString(s: Schema): string {
  const fits = (v: string) => (!s.pattern || new RegExp(s.pattern, "u").test(v)) && v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity);
  return STRING_CANDIDATES.find(fits) ?? "Sample1234".slice(0, s.maxLength ?? 10);
}

/** A value the field's schema accepts. */
function sample(doc: Doc, raw: Schema, name?: string): unknown {
  const s = resolve(doc, raw);
  // A field's own list of values comes first: a hint is for names whose rules a schema cannot say
  // (`account` is an e-mail at login and an account kind in the statement's query).
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  if (name && name in HINTS && HINTS[name] !== undefined) return HINTS[name];
  const alts = s.anyOf ?? s.oneOf;
  if (alts) {
    const numeric = alts.find((a) => typesOf(resolve(doc, a)).some((t) => t === "integer" || t === "number"));
    return sample(doc, numeric ?? alts.find((a) => !typesOf(resolve(doc, a)).includes("null")) ?? alts[0]!, name);
  }
  const types = typesOf(s);
  if (types.includes("integer") || types.includes("number")) {
    const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    const v = Math.max(lo, 1);
    return s.maximum !== undefined ? Math.min(v, s.maximum) : v;
  }
  if (types.includes("string")) return sampleString(s);
  if (types.includes("boolean")) return true;
  if (types.includes("array")) return Array.from({ length: Math.max(s.minItems ?? 1, 1) }, () => sample(doc, s.items ?? {}, name));
  if (types.includes("object") || s.properties) {
    const out: Json = {};
    for (const key of s.required ?? []) out[key] = sample(doc, s.properties?.[key] ?? {}, key);
    return out;
  }
  return 1;
}

type Leaf = { path: (string | number)[]; kind: "number" | "text"; secret: boolean };

const isSecret = (doc: Doc, raw: Schema) => resolve(doc, raw).format === "password";

/** The numeric and text leaves of a body schema, with their paths (array items at index 0). */
function leaves(doc: Doc, raw: Schema, path: (string | number)[] = []): Leaf[] {
  const s = resolve(doc, raw);
  if (path.length > 0 && isNumeric(doc, s)) return [{ path, kind: "number", secret: false }];
  if (path.length > 0 && isText(doc, s)) return [{ path, kind: "text", secret: isSecret(doc, s) }];
  if (typesOf(s).includes("array") && s.items) return leaves(doc, s.items, [...path, 0]);
  if (s.properties) return Object.entries(s.properties).flatMap(([k, v]) => leaves(doc, v, [...path, k]));
  return [];
}

/** `base` with the value at `path` replaced (array items and objects on the way are made). */
function withValue(doc: Doc, schema: Schema, base: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const s = resolve(doc, schema);
  const [head, ...rest] = path;
  if (typeof head === "number") {
    const arr = Array.isArray(base) && base.length ? [...base] : [sample(doc, s.items ?? {})];
    arr[head] = withValue(doc, s.items ?? {}, arr[head], rest, value);
    return arr;
  }
  const obj: Json = base && typeof base === "object" && !Array.isArray(base) ? { ...(base as Json) } : {};
  const child = s.properties?.[head!] ?? {};
  obj[head!] = withValue(doc, child, obj[head!] ?? (rest.length ? sample(doc, child, head) : undefined), rest, value);
  return obj;
}

const openApiPathToUrl = (path: string, params: Record<string, string>) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? "1")).replace(/^\/api/, "");

// Rows that change on every request by design (counters, sessions' last use): not state a refusal may change.
const VOLATILE = new Set(["rate_limits", "login_failures", "sessions", "captchas", "dev_outbox", "login_devices", "d1_migrations"]);

/** Every row of every table (volatile ones aside): a refused request must leave all of it as it was. */
async function snapshot(): Promise<Map<string, string>> {
  const tables = (await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name").all<{ name: string }>()).results
    .map((r) => r.name)
    .filter((n) => !VOLATILE.has(n));
  const results = await env.DB.batch(tables.map((t) => env.DB.prepare(`SELECT * FROM "${t}"`)));
  return new Map(tables.map((t, i) => [t, JSON.stringify(results[i]?.results ?? [])]));
}

function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((t) => before.get(t) !== after.get(t));
}

interface Probe {
  route: string;
  url: string;
  body: unknown;
  field: string;
  value: unknown;
  /** a top-level union refuses as a whole ("body") */
  union: boolean;
  /**
   * an empty path segment cannot reach the route, and a secret compared with a stored hash
   * (`format: "password"`) is refused as wrong: any 4xx will do
   */
  noField?: boolean;
}

let doc: Doc;
let user: TestUser;
let operator: TestUser;

beforeAll(async () => {
  await seedCurrencies();
  const money = (account: "change" | "micro" | "legal" | "lever") => [
    { currencyId: 3, units: units("10000"), account },
    { currencyId: 1, units: units("2"), account },
  ];
  user = await makeUser({ verified: 2, realName: "Fuzz Tester", balances: [...money("change"), ...money("micro"), ...money("legal"), ...money("lever")] });
  operator = await makeUser({ verified: 2, role: "operator" });
  const res = await SELF.fetch("http://exchange.test/api/openapi.json");
  doc = (await res.json()) as Doc;
});

/** Every probe of every POST route of the document, for leaves of `kind`. */
function probes(kind: "number" | "text"): Probe[] {
  const out: Probe[] = [];
  const values = kind === "number" ? NUMBER_FUZZ : TEXT_FUZZ;
  for (const [path, ops] of Object.entries(doc.paths)) {
    const op = ops.post;
    if (!op) continue;
    const route = `POST ${path}`;
    const pathParams = (op.parameters ?? []).filter((p) => p.in === "path");
    const queryParams = (op.parameters ?? []).filter((p) => p.in === "query");
    const sampleParams = Object.fromEntries([...pathParams, ...queryParams].map((p) => [p.name, String(sample(doc, p.schema ?? {}, p.name))]));
    const url = (params: Record<string, string>) => {
      const q = new URLSearchParams(queryParams.filter((p) => params[p.name] !== undefined).map((p) => [p.name, params[p.name]!])).toString();
      return openApiPathToUrl(path, params) + (q ? `?${q}` : "");
    };
    const bodySchema = op.requestBody?.content?.["application/json"]?.schema;
    const alternatives = bodySchema ? (resolve(doc, bodySchema).anyOf ?? [bodySchema]) : [];
    const union = alternatives.length > 1;
    const baseBody = alternatives[0] ? sample(doc, alternatives[0]) : undefined;

    // Path and query values are strings: the string forms of the fuzz values.
    for (const p of [...pathParams, ...queryParams]) {
      const numeric = isNumeric(doc, p.schema ?? {});
      if ((kind === "number") !== numeric || (kind === "text" && !isText(doc, p.schema ?? {}))) continue;
      for (const v of values) {
        const text = Array.isArray(v) ? "[]" : String(v);
        out.push({ route, url: url({ ...sampleParams, [p.name]: text }), body: baseBody, field: p.name, value: v, union: false, noField: p.in === "path" && text === "" });
      }
    }
    for (const alt of alternatives) {
      const base = sample(doc, alt);
      for (const leaf of leaves(doc, alt).filter((l) => l.kind === kind)) {
        for (const v of values) {
          out.push({ route, url: url(sampleParams), body: withValue(doc, alt, base, leaf.path, v), field: leaf.path.join("."), value: v, union, noField: leaf.secret });
        }
      }
    }
  }
  return out;
}

async function run(kind: "number" | "text") {
  const all = probes(kind);
  expect(all.length).toBeGreaterThan(kind === "number" ? 300 : 100);
  const failures: string[] = [];
  const byRoute = new Map<string, Probe[]>();
  for (const p of all) byRoute.set(p.route, [...(byRoute.get(p.route) ?? []), p]);
  const switchedOff: string[] = [];
  for (const [route, list] of byRoute) {
    // A development-only route (the dev clock) answers 404 for every body in a deployment without
    // its switch, as in this test's Worker: nothing of it to parse.
    if (route.startsWith("POST /api/dev/")) {
      const probe = await api<{ code?: string }>(list[0]!.url, { method: "POST", token: user.token, body: {} });
      if (probe.status === 404 && probe.body.code === "not_found") {
        switchedOff.push(route);
        continue;
      }
    }
    const before = await snapshot();
    for (const p of list) {
      const token = route.startsWith("POST /api/admin/") ? operator.token : user.token;
      const res = await api<{ code?: string; field?: string }>(p.url, { method: "POST", token, body: p.body ?? {} });
      const shown = `${route} ${p.field}=${JSON.stringify(p.value)}`;
      if (res.status < 400 || res.status >= 500) failures.push(`${shown}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
      else if (!p.noField && res.body.field !== p.field && !(p.union && res.body.field === "body")) {
        failures.push(`${shown}: refused for another reason (${res.status} ${res.body.code} field=${res.body.field})`);
      }
    }
    const changed = changedTables(before, await snapshot());
    if (changed.length) failures.push(`${route}: changed ${changed.join(", ")}`);
  }
  expect(failures).toEqual([]);
  expect(switchedOff.every((r) => r.startsWith("POST /api/dev/"))).toBe(true);
}

/** Every numeric query and path parameter of every GET route, with the string forms of the fuzz values. */
async function runGets() {
  const failures: string[] = [];
  let count = 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    const op = ops.get;
    if (!op) continue;
    const ps = (op.parameters ?? []).filter((p) => p.in === "path" || p.in === "query");
    const samples = Object.fromEntries(ps.map((p) => [p.name, String(sample(doc, p.schema ?? {}, p.name))]));
    for (const p of ps.filter((x) => isNumeric(doc, x.schema ?? {}))) {
      for (const v of NUMBER_FUZZ) {
        const text = Array.isArray(v) ? "[]" : String(v);
        const params = { ...samples, [p.name]: text };
        const q = new URLSearchParams(ps.filter((x) => x.in === "query").map((x) => [x.name, params[x.name]!])).toString();
        const url = openApiPathToUrl(path, params) + (q ? `?${q}` : "");
        const token = path.startsWith("/api/admin/") ? operator.token : user.token;
        const res = await api<{ code?: string; field?: string }>(url, { token });
        count += 1;
        const shown = `GET ${path} ${p.name}=${JSON.stringify(text)}`;
        if (res.status < 400 || res.status >= 500) failures.push(`${shown}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
        else if (!(p.in === "path" && text === "") && res.body.field !== p.name) failures.push(`${shown}: refused for another reason (${res.status} ${res.body.code} field=${res.body.field})`);
      }
    }
  }
  expect(count).toBeGreaterThan(100);
  expect(failures).toEqual([]);
}

describe("strict input (fuzz over every POST route of the OpenAPI document)", () => {
  it("refuses every malformed number in every numeric query or path parameter of every GET route with a 4xx naming it", async () => {
    await runGets();
  }, 600_000);

  it("refuses every malformed number in every numeric field with a 4xx naming it, and changes nothing", async () => {
    await run("number");
  }, 600_000);

  it("refuses control characters, bidi overrides and non-characters in every text field, and changes nothing", async () => {
    await run("text");
  }, 600_000);

  it("holds a multipart form's text fields to the same rules, and stores nothing", async () => {
    const before = await env.DB.prepare("SELECT count(*) AS n FROM uploads").first<{ n: number }>();
    for (const bad of TEXT_FUZZ) {
      const scene = await uploadMultipart(user.token, PNG, "photo.png", "image/png", `user/${bad}`);
      expect([scene.status, scene.body.code, scene.body.field]).toEqual([400, "text_chars", "scene"]);
      const name = await uploadMultipart(user.token, PNG, `photo${bad}.png`, "image/png");
      // A NUL in a part's file name does not even parse as a form (invalid_param); the others reach the rule.
      expect([name.status, name.body.code, name.body.field]).toEqual(bad.includes("\u0000") ? [400, "invalid_param", undefined] : [400, "text_chars", "name"]);
    }
    expect(await env.DB.prepare("SELECT count(*) AS n FROM uploads").first<{ n: number }>()).toEqual(before);
  });
});
