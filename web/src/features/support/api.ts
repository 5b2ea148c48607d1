/** The customer-service link from configuration (spec §7 GET /api/cfg/kefu). */
import { call, client } from "../../lib/api.ts";
import { cachedFor, useScreenQuery } from "../../lib/query.ts";

export const fetchKefu = (signal: AbortSignal) => call((o) => client.api.cfg.kefu.$get({}, o), { notify: false, signal });

export type ServiceLink = { kind: "frame"; url: string } | { kind: "internal"; path: string } | { kind: "mail"; url: string; address: string } | { kind: "other"; url: string } | { kind: "none" };

/**
 * Web pages are framed; mailto: and tel: links get a button; an in-app route ("#/help/center")
 * gets a button to that screen; anything else (javascript:, data:, ...) is not shown.
 */
export function classifyLink(raw: string | null | undefined): ServiceLink {
  const url = (raw ?? "").trim();
  if (url === "") return { kind: "none" };
  const lower = url.toLowerCase();
  if (lower.startsWith("mailto:")) return { kind: "mail", url, address: decodeURIComponent(url.slice(7).split("?")[0] ?? "") };
  if (lower.startsWith("https://") || lower.startsWith("http://")) return { kind: "frame", url };
  if (lower.startsWith("tel:")) return { kind: "other", url };
  if (url.startsWith("#/")) return { kind: "internal", path: url.slice(1) };
  if (url.startsWith("/") && !url.startsWith("//")) return { kind: "internal", path: url };
  return { kind: "none" };
}

/** The configured link rarely changes: reused for 5 minutes. */
export const useKefu = () => useScreenQuery({ queryKey: ["kefu"], queryFn: ({ signal }) => fetchKefu(signal), ...cachedFor(5 * 60_000) });
