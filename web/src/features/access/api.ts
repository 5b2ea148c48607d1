/**
 * API access, devices and exports (issue #29): API keys for bots, the signed-in devices and the
 * sign-in history, and the CSV downloads of one's ledger and trades.
 */
import type { ApiKeyCreated, ApiKeyScopeName, ApiKeyView } from "../../../../schemas/api-keys.ts";
import type { LoginEvent, SessionView } from "../../../../schemas/sessions.ts";
import { call, client } from "../../lib/api.ts";
import { apiUrl } from "../../lib/hosts.ts";
import { getToken } from "../../lib/session.ts";
import { getAppLocale, m } from "../../i18n/index.ts";
import { toast } from "../../lib/toast.ts";
import { sharedKeys, useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { ApiKeyCreated, ApiKeyScopeName, ApiKeyView, LoginEvent, SessionView };

const keys = { apiKeys: ["apikeys"] as const, sessions: ["sessions"] as const, logins: ["logins"] as const };

export const fetchApiKeys = (signal?: AbortSignal) => call((o) => client.api.apikeys.$get({}, o), { notify: false, signal });
export const createApiKey = (body: { label: string; scopes: ApiKeyScopeName[]; ips?: string[]; fund_password?: string; totp_code?: string }) =>
  call((o) => client.api.apikeys.$post({ json: body }, o), { notify: false });
export const deleteApiKey = (id: number) => call((o) => client.api.apikeys[":id"].delete.$post({ param: { id: String(id) } }, o));

export const fetchSessions = (signal?: AbortSignal) => call((o) => client.api.security.sessions.$get({}, o), { notify: false, signal });
export const revokeSessions = (body: { id: number } | { all: true }) => call((o) => client.api.security.sessions.revoke.$post({ json: body }, o));
export const fetchLogins = (signal?: AbortSignal) => call((o) => client.api.security.logins.$get({}, o), { notify: false, signal });

/** The user centre the security screens share (which second factor the account has). */
export const useCenter = () => useScreenQuery({ queryKey: sharedKeys.center, queryFn: ({ signal }) => call((o) => client.api.user.center.$get({}, o), { notify: false, signal }) });
export const useApiKeys = () => useScreenQuery({ queryKey: [...keys.apiKeys], queryFn: ({ signal }) => fetchApiKeys(signal) });
export const useCreateApiKey = () => useCallMutation(createApiKey, [keys.apiKeys]);
export const useDeleteApiKey = () => useCallMutation(deleteApiKey, [keys.apiKeys]);
export const useSessions = () => useScreenQuery({ queryKey: [...keys.sessions], queryFn: ({ signal }) => fetchSessions(signal) });
export const useRevokeSessions = () => useCallMutation(revokeSessions, [keys.sessions]);
export const useLogins = () => useScreenQuery({ queryKey: [...keys.logins], queryFn: ({ signal }) => fetchLogins(signal) });

/**
 * Downloads one of the CSV exports: the file needs the Authorization header, which a plain link
 * cannot send, so it is fetched and handed to the browser as a file. Answers whether it worked.
 */
export async function downloadCsv(file: "ledger.csv" | "trades.csv", range: { from?: string; to?: string }): Promise<boolean> {
  const q = new URLSearchParams(Object.entries(range).filter((e): e is [string, string] => !!e[1]));
  const path = `/api/export/${file}${q.size ? `?${q}` : ""}`;
  let res: Response;
  try {
    res = await fetch(apiUrl(path), { headers: { Authorization: getToken(), lang: getAppLocale() }, cache: "no-store" });
  } catch {
    toast.error(m.network_error());
    return false;
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    toast.error(body?.message ?? m.network_error());
    return false;
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = file;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return true;
}
