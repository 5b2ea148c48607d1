// The OpenAPI document and the reference page: generated from the routes' own schemas, so every
// route the app mounts is described, with its answer's shape.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../worker/app.ts";

type Operation = { summary?: string; parameters?: { name: string; in: string }[]; requestBody?: unknown; responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> };
type Doc = { openapi: string; info: { title: string }; paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown> } };

async function document(): Promise<Doc> {
  const res = await SELF.fetch("http://exchange.test/api/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  return (await res.json()) as Doc;
}

/** Hono's `/x/:id{re}` as OpenAPI's `/x/{id}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?\??/g, "{$1}");

/** The answer schema of an operation with its envelope, with $refs into components resolved one level. */
function answer(doc: Doc, path: string, method: string) {
  const schema = doc.paths[path]?.[method]?.responses["200"]?.content?.["application/json"]?.schema;
  expect(schema, `${method} ${path} has a JSON answer`).toBeDefined();
  return schema as { properties?: Record<string, { properties?: Record<string, unknown>; items?: unknown; $ref?: string }>; required?: string[] };
}

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 and lists every route the app mounts, with its method", async () => {
    const doc = await document();
    expect(doc.openapi).toBe("3.1.0");
    const mounted = app.routes.filter((r) => r.method !== "ALL");
    expect(mounted.length).toBeGreaterThan(80);
    const missing = mounted.filter((r) => !doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()]).map((r) => `${r.method} ${r.path}`);
    expect([...new Set(missing)]).toEqual([]);
  });

  it("describes answers with their envelopes and fields", async () => {
    const doc = await document();
    const login = answer(doc, "/api/user/login", "post");
    expect(login.properties?.type).toEqual({ type: "string", const: "ok" });
    expect(Object.keys(login.properties?.message?.properties ?? {})).toEqual(["token", "lastTime"]);

    const news = answer(doc, "/api/new/news/index", "get");
    expect(news.properties?.status).toEqual({ type: "number", const: 1 });
    expect(Object.keys(news.properties?.data?.properties ?? {})).toEqual(["total", "lists"]);

    const balance = answer(doc, "/api/transaction/balance", "get");
    expect(Object.keys(balance.properties?.message?.properties ?? {})).toEqual(
      expect.arrayContaining(["user_currency", "user_legal", "lock_currency", "lock_legal", "price_decimals", "qty_decimals", "min_notional"]),
    );

    const withdrawals = answer(doc, "/api/admin/withdrawals", "get");
    expect(JSON.stringify(withdrawals)).toContain("network_name");
  });

  it("describes request bodies, query and path parameters, and the error envelope", async () => {
    const doc = await document();
    const order = doc.paths["/api/transaction/walletIn"]?.post;
    expect(JSON.stringify(order?.requestBody)).toContain("currency_id");
    expect(order?.responses.default?.content?.["application/json"]?.schema).toBeDefined();
    expect(doc.paths["/api/new/transaction/lists"]?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(expect.arrayContaining(["query:page", "query:limit"]));
    expect(doc.paths["/api/admin/users/{id}"]?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toContain("path:id");
  });
});

describe("reference page", () => {
  it("lists the endpoints with their answers, without any script", async () => {
    const res = await SELF.fetch("http://exchange.test/api/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain("POST /api/transaction/walletIn");
    expect(html).toContain("min_notional");
    expect(html).not.toMatch(/<script/i);
    const css = await SELF.fetch("http://exchange.test/api/docs.css");
    expect(css.headers.get("content-type")).toContain("text/css");
    await css.arrayBuffer();
  });
});
