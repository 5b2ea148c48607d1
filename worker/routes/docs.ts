/**
 * The API's own description for bot authors: `GET /api/openapi.json` (OpenAPI 3.1, generated from
 * the routes' zod schemas by hono-openapi) and `GET /api/docs`, a plain page rendered here from
 * that document (no script: it works under `script-src 'self'`, its stylesheet is
 * `/api/docs.css`). The document is built once per isolate.
 */
import { Hono } from "hono";
import { generateSpecs } from "hono-openapi";
import { errorEnvelopeSchema } from "../../schemas/envelope.ts";
import type { AppEnv } from "../lib/context.ts";
import { answersFile } from "../lib/respond.ts";
import { resolver } from "hono-openapi";

type Spec = Awaited<ReturnType<typeof generateSpecs>>;

const errorResponse = {
  description:
    'Refused: `{ type, code, message }` (under /api/new/ also `status: 0`). `type` is "error", or "997" (add a receiving account), "998" (verify identity), "999" (log in); `code` is a stable catalogue key, `message` is translated by the `lang` header.',
  content: { "application/json": { schema: resolver(errorEnvelopeSchema) } },
};

const documentation = {
  info: {
    title: "Honest Exchange API",
    version: "1",
    description:
      "Every answer is an envelope: `{ type: \"ok\", message }` on the classic endpoints, `{ status: 1, data }` under /api/new/. Amounts are decimal strings, never JSON numbers. Send the session token from /api/user/login in the `Authorization` header, and a `lang` header (en, zh, hk, kr, jp, es) for translated messages. Realtime data: a WebSocket at /ws?pair={id} (messages in schemas/realtime.ts).",
  },
  components: {
    securitySchemes: {
      session: { type: "apiKey" as const, in: "header" as const, name: "Authorization" },
      // API keys for bots (worker/lib/api-keys.ts): the three headers go together.
      apiKey: {
        type: "apiKey" as const,
        in: "header" as const,
        name: "X-API-KEY",
        description:
          "An API key made at POST /api/apikeys (scopes read and/or trade; a route that accepts keys names its scope in `x-api-key-scope`, every other route refuses a key with `apikey_scope`: a key never withdraws or changes security settings). Send it with X-API-TIMESTAMP and X-API-SIGNATURE instead of Authorization. A key without an IP list expires after 90 days; with one, requests from other addresses are refused (`apikey_ip`). Each key has its own rate limit (600 requests a minute).",
      },
      apiTimestamp: { type: "apiKey" as const, in: "header" as const, name: "X-API-TIMESTAMP", description: "The request time in milliseconds since the epoch; refused outside ±5 s of the server clock (`apikey_timestamp`)." },
      apiSignature: {
        type: "apiKey" as const,
        in: "header" as const,
        name: "X-API-SIGNATURE",
        description:
          "Lowercase hex HMAC-SHA256 with the key's secret of: timestamp + METHOD + path with query + raw body, e.g. `1764410000000POST/api/transaction/walletIn{\"currency_id\":1,...}` (GET: empty body). A wrong signature is `apikey_signature`; a signature already used is `apikey_replayed` (send each request with a fresh timestamp). Example client: scripts/bot.mjs.",
      },
    },
  },
};

let cached: Promise<Spec> | undefined;

/** The OpenAPI document of `app` (every documented route; error answers on all of them). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Hono's own generic parameters: any app, path and input
export function openApiDocument(app: Hono<AppEnv, any, any>): Promise<Spec> {
  cached ??= generateSpecs(app, {
    documentation,
    defaultOptions: { GET: { responses: { default: errorResponse } }, POST: { responses: { default: errorResponse } } },
    // Refusals use the error envelope above, not hono-openapi's own validation error shape.
    defaultValidationErrorResponse: false,
    excludeStaticFile: false,
  }).catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

const esc = (s: unknown) => String(s ?? "").replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

type Json = Record<string, unknown>;

/** A JSON schema as a short type text: `{ id: integer, name: string | null, … }`. */
function typeText(schema: unknown, defs: Json, depth = 0): string {
  if (!schema || typeof schema !== "object") return "any";
  const s = schema as Json;
  if (typeof s.$ref === "string") {
    const name = s.$ref.split("/").pop() ?? "";
    return depth > 3 ? name : typeText(defs[name], defs, depth + 1);
  }
  if ("const" in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(s[key])) return (s[key] as unknown[]).map((x) => typeText(x, defs, depth)).join(" | ");
  }
  const type = Array.isArray(s.type) ? (s.type as string[]) : s.type ? [s.type as string] : [];
  const texts = type.map((t) => {
    if (t === "array") {
      if (Array.isArray(s.prefixItems)) return `[${(s.prefixItems as unknown[]).map((x) => typeText(x, defs, depth + 1)).join(", ")}]`;
      return `${typeText(s.items, defs, depth + 1)}[]`;
    }
    if (t === "object") {
      const props = (s.properties ?? {}) as Json;
      const required = new Set((s.required as string[] | undefined) ?? []);
      const inner = Object.entries(props).map(([k, v]) => `${k}${required.has(k) ? "" : "?"}: ${typeText(v, defs, depth + 1)}`);
      if (s.additionalProperties && typeof s.additionalProperties === "object") inner.push(`[key]: ${typeText(s.additionalProperties, defs, depth + 1)}`);
      return inner.length ? `{ ${inner.join(", ")} }` : "object";
    }
    return t;
  });
  return texts.length ? texts.join(" | ") : "any";
}

/** The reference page: one section per route with its inputs and its answer's shape. */
export function docsPage(spec: Spec): string {
  const defs = ((spec.components as Json | undefined)?.schemas ?? {}) as Json;
  const sections: string[] = [];
  const toc: string[] = [];
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const [method, raw] of Object.entries((item ?? {}) as Json)) {
      const op = raw as Json;
      const anchor = `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, "-");
      const auth = Array.isArray(op.security) && op.security.length > 0;
      toc.push(`<li><a href="#${esc(anchor)}"><code>${esc(method.toUpperCase())} ${esc(path)}</code></a> ${esc(op.summary)}</li>`);
      const params = ((op.parameters as Json[] | undefined) ?? []).map(
        (p) => `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ", required" : ""}): <code>${esc(typeText(p.schema, defs))}</code></li>`,
      );
      const body = ((op.requestBody as Json | undefined)?.content as Json | undefined) ?? {};
      const bodies = Object.entries(body).map(([media, m]) => `<p>Body (${esc(media)}): <code>${esc(typeText((m as Json).schema, defs))}</code></p>`);
      const ok = (((op.responses as Json | undefined)?.["200"] as Json | undefined)?.content ?? {}) as Json;
      const answers = Object.entries(ok).map(([media, m]) => `<p>Answer (${esc(media)}): <code>${esc(typeText((m as Json).schema, defs))}</code></p>`);
      sections.push(
        `<section id="${esc(anchor)}"><h2><code>${esc(method.toUpperCase())} ${esc(path)}</code>${auth ? ' <span class="auth">Authorization</span>' : ""}</h2>` +
          `<p>${esc(op.summary)}</p>${params.length ? `<ul>${params.join("")}</ul>` : ""}${bodies.join("")}${answers.join("")}</section>`,
      );
    }
  }
  const info = spec.info as { title: string; description?: string };
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(info.title)}</title><link rel="stylesheet" href="/api/docs.css"></head><body>
<h1>${esc(info.title)}</h1><p>${esc(info.description)}</p>
<p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1). Refusals on every endpoint: <code>{ type, code, message }</code>.</p>
<nav><ul>${toc.join("")}</ul></nav>${sections.join("")}</body></html>`;
}

const CSS = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1b1f24;background:#fff}
code{font:13px/1.4 ui-monospace,monospace;word-break:break-word}h2{font-size:1rem;margin:0 0 .25rem}
section{border-top:1px solid #d0d7de;padding:.75rem 0}nav ul{columns:2;padding-left:1rem}nav li{break-inside:avoid}
.auth{font-size:.75rem;background:#fff8c5;border:1px solid #d4a72c;border-radius:4px;padding:0 .3rem}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}section{border-color:#30363d}.auth{background:#3b2e00}a{color:#58a6ff}}`;

/** Mounted last under /api; `app` is the whole application (read at request time). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Hono's own generic parameters: any app, path and input
export const docsRoutes = (app: () => Hono<AppEnv, any, any>) =>
  new Hono<AppEnv>()
    .get("/openapi.json", answersFile({ summary: "This document (OpenAPI 3.1)" }, ["application/json"]), async (c) => c.json((await openApiDocument(app())) as Record<string, unknown>))
    .get("/docs", answersFile({ summary: "A readable reference page of this document" }, ["text/html"]), async (c) => c.html(docsPage(await openApiDocument(app()))))
    .get("/docs.css", answersFile({ summary: "The reference page's stylesheet" }, ["text/css"]), (c) => c.body(CSS, 200, { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600" }));
