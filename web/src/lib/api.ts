/**
 * The API client: same-origin fetch with the `lang` and `Authorization` headers, a 5 s timeout
 * (30 s for uploads), and the spec's §8 reaction rules applied in one place:
 * - `type: "ok"` or `status: 1` is success and resolves with `message` / `data`;
 * - "999": toast "Please login" in the current language, forget the login, go to /login after 0.5 s;
 * - "998": confirm dialog (title "Reminder") leading to /verifyed; "997": the same leading to /bank;
 * - any other failure: an error toast with the server's (already translated) message, unless the
 *   caller asked to handle it itself (`notify: false`); network errors and timeouts likewise.
 * Failures reject with an ApiFailure so callers can show inline error states.
 */
import type { ErrorEnvelope } from "../../../schemas/envelope.ts";
import { getAppLocale, m } from "../i18n/index.ts";
import { clearLogin, getToken } from "./session.ts";
import { $confirm, openConfirm } from "./dialog.ts";
import { currentPath, navigateTo } from "./nav.ts";
import { toast } from "./toast.ts";

/**
 * schemas/envelope.ts errorEnvelopeSchema, checked by hand: every screen loads this client at
 * start-up, and zod would add 25 KB (gzip) to that for one object check.
 */
function asErrorEnvelope(json: unknown): ErrorEnvelope | null {
  if (typeof json !== "object" || json === null) return null;
  const e = json as Record<string, unknown>;
  const typeOk = e.type === "error" || e.type === "997" || e.type === "998" || e.type === "999";
  if (!typeOk || typeof e.message !== "string" || typeof e.code !== "string") return null;
  if (e.status !== undefined && e.status !== 0) return null;
  return e as ErrorEnvelope;
}

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

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Show the error toast for plain errors (default true). 997/998/999 are always handled. */
  notify?: boolean;
  /** Apply the 997/998/999 reactions (default true); logout turns it off for an already dead session. */
  special?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 5000;
export const UPLOAD_TIMEOUT_MS = 30_000;

let loggingOut = false;

function buildUrl(path: string, query?: RequestOptions["query"]): string {
  const url = new URL(path, window.location.origin);
  if (query) {
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url.pathname + url.search;
}

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

/** Sends a request and unwraps the envelope; rejects with ApiFailure after applying the §8 rules. */
export async function request<T>(method: "GET" | "POST", path: string, opts: RequestOptions = {}): Promise<T> {
  const notify = opts.notify ?? true;
  const special = opts.special ?? true;
  const headers: Record<string, string> = { lang: getAppLocale(), accept: "application/json" };
  const token = getToken();
  if (token) headers.Authorization = token;

  let body: BodyInit | undefined;
  if (opts.body instanceof FormData) {
    body = opts.body;
  } else if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.body);
  } else if (method === "POST") {
    headers["content-type"] = "application/json";
    body = "{}";
  }

  const controller = new AbortController();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onOuterAbort = () => controller.abort();
  opts.signal?.addEventListener("abort", onOuterAbort);

  let res: Response;
  try {
    res = await fetch(buildUrl(path, opts.query), { method, headers, body, signal: controller.signal, cache: "no-store" });
  } catch (err) {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onOuterAbort);
    if (opts.signal?.aborted) throw new ApiFailure("network", "aborted");
    const failure = timedOut
      ? new ApiFailure("timeout", m.request_timeout())
      : new ApiFailure("network", m.network_error());
    if (notify) toast.error(failure.message);
    throw failure;
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

  if (json && typeof json === "object") {
    const env = json as Record<string, unknown>;
    if (env.type === "ok") return env.message as T;
    if (env.status === 1) return (env.data ?? env.message) as T;

    const parsed = asErrorEnvelope(json);
    const type = parsed ? parsed.type : typeof env.type === "string" ? env.type : "error";
    const message = parsed ? parsed.message : typeof env.message === "string" && env.message ? env.message : m.request_failed();
    const code = parsed ? parsed.code : undefined;

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
    if (notify) toast.error(message);
    const kind: FailureKind = type === "999" || type === "998" || type === "997" ? type : "error";
    throw new ApiFailure(kind, message, code, res.status);
  }

  const failure = new ApiFailure("bad_response", m.request_failed(), undefined, res.status);
  if (notify) toast.error(failure.message);
  throw failure;
}

export const api = {
  get: <T>(path: string, opts?: Omit<RequestOptions, "body">) => request<T>("GET", path, opts),
  post: <T>(path: string, body?: unknown, opts?: Omit<RequestOptions, "body">) => request<T>("POST", path, { ...opts, body }),
};
