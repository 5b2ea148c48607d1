/**
 * Hashed build files under /assets/ (wrangler.toml [assets] runs the Worker first for them). The
 * asset server falls back to the SPA's index.html for any path it does not know, and /assets/*
 * carries `Cache-Control: immutable` for a year (web/public/_headers): a client still holding an
 * old chunk name after a deploy would store that HTML as the chunk forever. A file that is not
 * there answers 404, never cached; only navigation paths get the SPA.
 */

/** The build never puts an HTML file under /assets/: an HTML answer there is the SPA fallback. */
function isSpaFallback(res: Response): boolean {
  return (res.headers.get("content-type") ?? "").toLowerCase().startsWith("text/html");
}

export async function serveBuildAsset(request: Request, env: Pick<Env, "ASSETS">): Promise<Response> {
  const res = await env.ASSETS.fetch(request);
  if (res.status === 200 && !isSpaFallback(res)) return res;
  if (res.status === 304) return res;
  await res.body?.cancel();
  return new Response("Not found\n", {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" },
  });
}
