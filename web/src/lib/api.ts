/**
 * The API client: Hono's typed client (`hc<AppType>`) over same-origin fetch, so every path, input
 * and answer is typed by the Worker's own routes and their zod schemas (schemas/): a changed field
 * fails `npm run typecheck`. Calls carry the `lang` and `Authorization` headers, a 5 s timeout
 * (30 s for uploads, lib/upload.ts), and the spec's §8 reaction rules are applied in one place:
 * - `type: "ok"` or `status: 1` is success and resolves with `message` / `data`;
 * - "999": toast "Please login" in the current language, forget the login, go to /login after 0.5 s;
 * - "998": confirm dialog (title "Reminder") leading to /verifyed; "997": the same leading to /bank;
 * - any other failure: an error toast with the server's (already translated) message, unless the
 *   caller asked to handle it itself (`notify: false`); network errors and timeouts likewise.
 * Failures reject with an ApiFailure so callers can show inline error states.
 *
 * Requests go to the current API host (lib/hosts.ts; the page's own origin unless the build lists
 * several). Calls made with `failover: true` (home, login, register, the account check) retry a
 * failure that is the host's fault (no answer, timeout, 5xx) up to 3 times, 1 s, 2 s, 4 s apart,
 * on the least-failed host (spec §7 host failover).
 *
 * Only types come from the Worker (`import type`): no zod and no Worker code reach the bundle.
 * The types are emitted by `npm run typecheck` (worker/tsconfig.client.json) into dist/api-types.
 */
import { hc, type ClientResponse } from "hono/client";
import type { ExtractSchema } from "hono/types";
import type { app } from "../../../dist/api-types/worker/app.d.ts";
import { getAppLocale, m } from "../i18n/index.ts";
import { clearLogin, getToken } from "./session.ts";
import { $confirm, openConfirm } from "./dialog.ts";
import { currentPath, navigateTo } from "./nav.ts";
import { toast } from "./toast.ts";
import { apiHosts, apiUrl, withFailover } from "./hosts.ts";
import { takeEarly } from "./early.ts";
import { markContactUnproven } from "./contact.ts";

type AppType = typeof app;

export type FailureKind = "error" | "997" | "998" | "999" | "network" | "timeout" | "bad_response";

export class ApiFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    /** The catalogue key from the server (schemas/errors.ts), when there is one. */
    readonly code?: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = "ApiFailure";
  }
}

export interface CallOptions {
  /** Show the error toast for plain errors (default true). 997/998/999 are always handled. */
  notify?: boolean;
  /** Apply the 997/998/999 reactions (default true); logout turns it off for an already dead session. */
  special?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Retry host failures (network, timeout, 5xx) on the least-failed API host (spec §7). */
  failover?: boolean;
}

const DEFAULT_TIMEOUT_MS = 5000;
export const UPLOAD_TIMEOUT_MS = 30_000;

let loggingOut = false;

function handleLoginRequired() {
  toast.error(m.please_login());
  clearLogin();
  if (loggingOut) return;
  loggingOut = true;
  setTimeout(() => {
    loggingOut = false;
    const here = currentPath();
    if (here.startsWith("/login")) return;
    navigateTo(`/login?redirect=${encodeURIComponent(here)}`, { replace: true });
  }, 500);
}

/** When the user last dismissed each jump dialog: screens that refresh in the background must not nag. */
const jumpDismissedAt = new Map<string, number>();
const JUMP_QUIET_MS = 60_000;

function handleJump(message: string, to: "/verifyed" | "/bank") {
  if ($confirm.get()) return; // one dialog at a time; a second failing call does not replace it
  const dismissed = jumpDismissedAt.get(to);
  if (dismissed !== undefined && Date.now() - dismissed < JUMP_QUIET_MS) return;
  openConfirm({
    title: m.reminder(),
    message,
    confirmText: m.confirm(),
    cancelText: m.cancel(),
    onConfirm: () => navigateTo(to),
    onCancel: () => jumpDismissedAt.set(to, Date.now()),
  });
}

/**
 * hc drops a final `/index` from every path (its alias for "/"), but four spec paths really end
 * in /index. The list is checked against the routes: a new /index route fails the typecheck
 * until it is added here.
 */
type RoutePath = keyof ExtractSchema<AppType>;
const INDEX_PATHS = ["/api/new/home/index", "/api/new/news/index", "/api/new/transaction/index", "/api/new/legal_deal/index"] as const satisfies readonly Extract<RoutePath, `${string}/index`>[];
type Unlisted = Exclude<Extract<RoutePath, `${string}/index`>, (typeof INDEX_PATHS)[number]>;
const allIndexPathsListed: [Unlisted] extends [never] ? true : Unlisted = true;
void allIndexPathsListed;
const indexParents = new Set<string>(INDEX_PATHS.map((p) => p.slice(0, -"/index".length)));

function withIndex(url: string): string {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  return indexParents.has(path) ? `${path}/index${q < 0 ? "" : url.slice(q)}` : url;
}

/** The typed client. Use it through `call`, which adds the timeout and the §8 rules. */
export const client = hc<AppType>("/", {
  headers: () => {
    const headers: Record<string, string> = { lang: getAppLocale(), accept: "application/json" };
    const token = getToken();
    if (token) headers.Authorization = token;
    return headers;
  },
  fetch: (input: RequestInfo | URL, init?: RequestInit) => {
    if (typeof input !== "string") return fetch(input, { ...init, cache: "no-store" });
    const path = withIndex(input);
    // The first screen's request, started by index.html's preloader before this code loaded.
    const early = apiHosts.current === "" ? takeEarly(path, init, getAppLocale()) : null;
    return early ?? fetch(apiUrl(path), { ...init, cache: "no-store" });
  },
});

/** What a request of the client resolves to, unwrapped from its envelope. */
export type Payload<R> = R extends { type: "ok"; message: infer M } ? M : R extends { status: 1; data: infer D } ? D : R;
/** The payload of a client method, e.g. `Answer<typeof client.api.user.info.$get>`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Hono's own generic parameters: any app, path and input
export type Answer<F extends (...args: any[]) => Promise<ClientResponse<any>>> = Payload<Awaited<ReturnType<F>> extends ClientResponse<infer R> ? R : never>;

/** The per-request options handed to a client method: the abort signal of the timeout. */
export type Send<R> = (options: { init: RequestInit }) => Promise<ClientResponse<R>>;

const ABORTED = "aborted";

/** One request with its timeout: the answer and its JSON, or an ApiFailure (network, timeout) without a toast. */
async function sendOnce<R>(send: Send<R>, opts: CallOptions): Promise<{ res: ClientResponse<R>; json: unknown }> {
  if (opts.signal?.aborted) throw new ApiFailure("network", ABORTED); // the screen closed while a retry waited
  const controller = new AbortController();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onOuterAbort = () => controller.abort();
  opts.signal?.addEventListener("abort", onOuterAbort);

  let res: ClientResponse<R>;
  try {
    res = await send({ init: { signal: controller.signal } });
  } catch {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onOuterAbort);
    if (opts.signal?.aborted) throw new ApiFailure("network", ABORTED);
    throw timedOut ? new ApiFailure("timeout", m.request_timeout()) : new ApiFailure("network", m.network_error());
  }

  let json: unknown;
  try {
    json = await res.json();
  } catch {
    json = undefined;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onOuterAbort);
  }
  return { res, json };
}

/**
 * Sends one request of the typed client and unwraps the envelope; rejects with ApiFailure after
 * applying the §8 rules. `send` is the client call: `(o) => client.api.user.info.$get({}, o)`.
 */
export async function call<R>(send: Send<R>, opts: CallOptions = {}): Promise<Payload<R>> {
  const notify = opts.notify ?? true;
  const special = opts.special ?? true;

  let answer: { res: ClientResponse<R>; json: unknown };
  try {
    answer = opts.failover
      ? await withFailover(() => sendOnce(send, opts), {
          pool: apiHosts,
          failed: (o) => (o.ok ? o.value.res.status >= 500 : o.error instanceof ApiFailure && o.error.message !== ABORTED),
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        })
      : await sendOnce(send, opts);
  } catch (failure) {
    if (notify && failure instanceof ApiFailure && failure.message !== ABORTED) toast.error(failure.message);
    throw failure;
  }
  const { res, json } = answer;

  if (json && typeof json === "object") {
    const env = json as Record<string, unknown>;
    if (env.type === "ok") return env.message as Payload<R>;
    if (env.status === 1) return (env.data ?? env.message) as Payload<R>;
    if (env.code === 1 && "data" in env && !("type" in env)) return json as Payload<R>; // candles: { code: 1, data }

    // The error envelope (schemas/envelope.ts): { type, code, message }, plus status 0 under /api/new/.
    const type = typeof env.type === "string" ? env.type : "error";
    const message = typeof env.message === "string" && env.message ? env.message : m.request_failed();
    const code = typeof env.code === "string" ? env.code : undefined;

    if (type === "999" && special) {
      handleLoginRequired();
      throw new ApiFailure("999", message, code, res.status);
    }
    if (type === "998" && special) {
      handleJump(message, "/verifyed");
      throw new ApiFailure("998", message, code, res.status);
    }
    if (type === "997" && special) {
      handleJump(message, "/bank");
      throw new ApiFailure("997", message, code, res.status);
    }
    // A gate that needs the proven e-mail or phone: the banner (lib/contact.ts) shows again if a stale profile hid it.
    if (code === "contact_unverified") markContactUnproven();
    if (notify) toast.error(message);
    const kind: FailureKind = type === "999" || type === "998" || type === "997" ? type : "error";
    throw new ApiFailure(kind, message, code, res.status);
  }

  const failure = new ApiFailure("bad_response", m.request_failed(), undefined, res.status);
  if (notify) toast.error(failure.message);
  throw failure;
}
