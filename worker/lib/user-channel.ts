/**
 * The upgrade of GET /ws/user to the caller's own channel object (durable/user.ts).
 *
 * The session token travels as a Sec-WebSocket-Protocol value (`bearer.{token}`, beside
 * USER_CHANNEL_PROTOCOL, which is the one echoed back), never in the URL: URLs land in access logs
 * and browser history, headers do not. It is not sent as a first message either, because the
 * Worker must know whose socket it is BEFORE the upgrade, to hand it to that user's object: with a
 * first-message login the socket would have to be accepted somewhere that knows no user (the
 * Worker itself, held open for the socket's life, or a shared lobby object), which is exactly the
 * state the Worker must not hold and the one-object-per-user split avoids. So an unauthenticated
 * socket never exists: the upgrade is answered only after the token is resolved, with the API's
 * own session code (sessionOfTokenHash in auth.ts). The token is no cookie, so a page on another
 * site cannot open someone's channel from their browser (no cross-site WebSocket hijacking).
 *
 * A missing, unknown, revoked or expired token still gets its upgrade, closed at once with
 * USER_CHANNEL_SESSION_ENDED, so a browser (which sees no HTTP status on a failed upgrade) learns
 * why and stops reconnecting.
 */
import { USER_CHANNEL_PROTOCOL, USER_CHANNEL_TOKEN_PREFIX } from "../../schemas/realtime.ts";
import { USER_CHANNEL_SESSION_ENDED, USER_SOCKET_HEADERS } from "../../durable/user.ts";
import { sessionOfTokenHash } from "./auth.ts";
import { sha256Hex } from "./crypto.ts";
import { userStub } from "./notify.ts";

/** The token among the offered subprotocols, or null. */
export function channelToken(header: string | null | undefined): string | null {
  for (const value of (header ?? "").split(",")) {
    const v = value.trim();
    if (v.startsWith(USER_CHANNEL_TOKEN_PREFIX)) {
      const token = v.slice(USER_CHANNEL_TOKEN_PREFIX.length);
      return token.length >= 20 && token.length <= 200 ? token : null;
    }
  }
  return null;
}

/** Accepts the upgrade and closes it at once: the session is not (or no longer) valid. */
function refused(protocol: string | null): Response {
  const { 0: client, 1: server } = new WebSocketPair();
  server.accept();
  server.close(USER_CHANNEL_SESSION_ENDED, "session ended");
  return new Response(null, { status: 101, webSocket: client, headers: protocol ? { "Sec-WebSocket-Protocol": protocol } : {} });
}

/** Answers a WebSocket upgrade of /ws/user (the caller has checked the Upgrade header). */
export async function openUserChannel(env: Env, request: Request): Promise<Response> {
  const offered = request.headers.get("sec-websocket-protocol");
  // Echo our protocol only when the client offered it (a client that offered none must get none back).
  const protocol = (offered ?? "").split(",").some((p) => p.trim() === USER_CHANNEL_PROTOCOL) ? USER_CHANNEL_PROTOCOL : null;
  const token = channelToken(offered);
  if (!token) return refused(protocol);
  const tokenHash = await sha256Hex(token);
  const user = await sessionOfTokenHash(env.DB, tokenHash);
  if (!user) return refused(protocol);
  const h = USER_SOCKET_HEADERS;
  const headers = new Headers({ upgrade: "websocket", [h.userId]: String(user.id), [h.sessionId]: String(user.sessionId), [h.tokenHash]: tokenHash });
  if (protocol) headers.set(h.protocol, protocol);
  return userStub(env, user.id).fetch(new Request("https://user-channel.internal/socket", { headers }));
}
