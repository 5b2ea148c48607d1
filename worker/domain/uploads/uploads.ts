/**
 * Uploaded images (KYC documents, deposit proofs) in R2. Only JPG and PNG, judged by their bytes:
 * the magic number and a parse of the header by `image-size` must agree with each other and with
 * whatever name or type the client declared. At most 4 MB. Stored under a key that names the
 * owner, recorded in D1, and served only to the owner and to operators (anyone else: 404).
 */
import { imageSize } from "image-size";
import type { SessionUser } from "../../lib/context.ts";
import { randomToken } from "../../lib/crypto.ts";
import { ApiError } from "../../lib/errors.ts";

export const MAX_UPLOAD_BYTES = 4 * 1024 * 1024;
const MAX_DIMENSION = 20_000;

export interface UploadInfo {
  id: string;
  url: string;
  path: string;
  type: "png" | "jpg";
  width: number;
  height: number;
  size: number;
}

/** The URL an upload is served from (send the Authorization header when fetching it). */
export const uploadUrl = (id: string) => `/api/new/upload/file/${id}`;

const ID_RE = /^[A-Za-z0-9_-]{22}$/;

function sniff(bytes: Uint8Array): "png" | "jpg" | null {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return "png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpg";
  return null;
}

function declaredKind(name?: string, mime?: string): "png" | "jpg" | "other" | null {
  let kind: "png" | "jpg" | "other" | null = null;
  const ext = name && name.includes(".") ? name.split(".").pop()!.toLowerCase() : "";
  if (ext) kind = ext === "png" ? "png" : ext === "jpg" || ext === "jpeg" ? "jpg" : "other";
  const m = (mime ?? "").toLowerCase().split(";")[0]!.trim();
  if (m && m !== "application/octet-stream") {
    const mk = m === "image/png" ? "png" : m === "image/jpeg" || m === "image/jpg" ? "jpg" : "other";
    if (kind && kind !== mk) return "other";
    kind = mk;
  }
  return kind;
}

/**
 * Checks an image and returns its real type and dimensions, or throws file_too_large / file_type.
 * Exported for tests and for any other feature that accepts pictures.
 */
export function inspectImage(bytes: Uint8Array, declared: { name?: string; mime?: string } = {}) {
  if (bytes.length > MAX_UPLOAD_BYTES) throw new ApiError("file_too_large", 413);
  const magic = sniff(bytes);
  if (!magic) throw new ApiError("file_type", 415);
  let parsed: { type?: string; width?: number; height?: number };
  try {
    parsed = imageSize(bytes);
  } catch {
    throw new ApiError("file_type", 415);
  }
  const type = parsed.type === "png" ? "png" : parsed.type === "jpg" ? "jpg" : null;
  const { width = 0, height = 0 } = parsed;
  if (type !== magic || width < 1 || height < 1 || width > MAX_DIMENSION || height > MAX_DIMENSION) {
    throw new ApiError("file_type", 415);
  }
  const kind = declaredKind(declared.name, declared.mime);
  if (kind && kind !== type) throw new ApiError("file_type", 415);
  return { type, width, height } as const;
}

/** Stores a checked image for `userId` and records it. */
export async function storeUpload(
  env: Env,
  userId: number,
  bytes: Uint8Array,
  scene: string | undefined,
  declared: { name?: string; mime?: string } = {},
): Promise<UploadInfo> {
  const img = inspectImage(bytes, declared);
  const id = randomToken(16);
  const key = `u/${userId}/${id}.${img.type}`;
  const contentType = img.type === "png" ? "image/png" : "image/jpeg";
  const cleanScene = (scene ?? "user/upload").replace(/[^\x20-\x7e]/g, "").slice(0, 120) || "user/upload";
  await env.UPLOADS.put(key, bytes, { httpMetadata: { contentType }, customMetadata: { owner: String(userId), scene: cleanScene } });
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  const sha = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  await env.DB.prepare(
    "INSERT INTO uploads (id, user_id, r2_key, scene, content_type, size, width, height, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  )
    .bind(id, userId, key, cleanScene, contentType, bytes.length, img.width, img.height, sha, Date.now())
    .run();
  return { id, url: uploadUrl(id), path: id, type: img.type, width: img.width, height: img.height, size: bytes.length };
}

/** The upload id inside a reference (an id, a path or the url). */
export function uploadIdFrom(ref: string): string | null {
  const last = ref.trim().split(/[/?#]/).filter(Boolean).pop() ?? "";
  const id = last.replace(/\.(png|jpe?g)$/i, "");
  return ID_RE.test(id) ? id : null;
}

/** Resolves a picture reference that must be one of the caller's own uploads; else picture_required. */
export async function ownUpload(db: D1Database, userId: number, ref: string | undefined, field: string): Promise<string> {
  const id = ref ? uploadIdFrom(ref) : null;
  if (!id) throw new ApiError("picture_required", 400, { field });
  const row = await db.prepare("SELECT id FROM uploads WHERE id = ? AND user_id = ?").bind(id, userId).first<{ id: string }>();
  if (!row) throw new ApiError("picture_required", 400, { field });
  return row.id;
}

/** Reads an upload for the owner or an operator; anyone else gets the same 404 as a missing file. */
export async function readUpload(env: Env, viewer: SessionUser, id: string): Promise<Response> {
  if (!ID_RE.test(id)) throw new ApiError("not_found", 404);
  const row = await env.DB.prepare("SELECT user_id, r2_key, content_type FROM uploads WHERE id = ?")
    .bind(id)
    .first<{ user_id: number; r2_key: string; content_type: string }>();
  if (!row || (row.user_id !== viewer.id && viewer.role !== "operator")) throw new ApiError("not_found", 404);
  const obj = await env.UPLOADS.get(row.r2_key);
  if (!obj) throw new ApiError("not_found", 404);
  return new Response(obj.body, {
    headers: {
      "content-type": row.content_type,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'",
    },
  });
}

/** Decodes a base64 string or data URL; returns the bytes and the declared mime type. */
export function decodeBase64Image(input: string): { bytes: Uint8Array; mime?: string } {
  let data = input.trim();
  let mime: string | undefined;
  const m = /^data:([^;,]*)(;base64)?,/i.exec(data);
  if (m) {
    if (!m[2]) throw new ApiError("file_type", 415);
    mime = m[1] || undefined;
    data = data.slice(m[0].length);
  }
  data = data.replace(/\s+/g, "");
  // 4 MB of bytes is at most ceil(4 MB / 3) * 4 characters of base64.
  if (data.length > Math.ceil(MAX_UPLOAD_BYTES / 3) * 4) throw new ApiError("file_too_large", 413);
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(data)) throw new ApiError("file_type", 415);
  let bin: string;
  try {
    bin = atob(data.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    throw new ApiError("file_type", 415);
  }
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return { bytes, mime };
}

