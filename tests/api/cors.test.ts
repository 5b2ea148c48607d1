// Spec §7 host failover from the API's side: the SPA served from one origin calls the API on
// another host, so that host must allow the SPA's origin (APP_ORIGIN, a comma-separated list) for
// the preflight of a login (Authorization, lang, JSON) and for the answer itself.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../worker/app.ts";

const SPA = "https://app.example.com";
const MIRROR = "https://app.example.net";

function request(path: string, init: RequestInit, appOrigin: string) {
  return app.request(path, init, { ...env, APP_ORIGIN: appOrigin });
}

describe("cross-origin API calls", () => {
  it("lets every configured app origin send a login with its headers", async () => {
    for (const origin of [SPA, MIRROR]) {
      const pre = await request(
        "/api/user/login",
        { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type,lang" } },
        `${SPA}, ${MIRROR}`,
      );
      expect(pre.status).toBeLessThan(300);
      expect(pre.headers.get("access-control-allow-origin")).toBe(origin);
      expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
      expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("lang");
    }
    const res = await request("/api/cfg/kefu", { headers: { origin: MIRROR } }, `${SPA},${MIRROR}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(MIRROR);
  });

  it("does not allow an origin that is not configured, nor any when none is", async () => {
    const other = await request("/api/cfg/kefu", { headers: { origin: "https://evil.example" } }, SPA);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const none = await request("/api/cfg/kefu", { headers: { origin: SPA } }, "");
    expect(none.headers.get("access-control-allow-origin")).toBeNull();
  });
});
