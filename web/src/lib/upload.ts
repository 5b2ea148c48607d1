/**
 * Picture uploads (spec §5, §7): JPG or PNG only, at most 4 MB, judged by the file's first bytes
 * as the server does; photos larger than 1080×1080 are first drawn into a canvas at that size as a
 * JPEG of quality 0.5 (the spec's camera settings). Uploads go through XMLHttpRequest so the
 * screen can show progress, with the 30 s upload timeout and the same 999 rule as lib/api.ts.
 */
import { getAppLocale, m } from "../i18n/index.ts";
import type { Upload } from "../../../schemas/upload.ts";
import { ApiFailure, UPLOAD_TIMEOUT_MS } from "./api.ts";
import { clearLogin, getToken } from "./session.ts";
import { currentPath, navigateTo } from "./nav.ts";
import { toast } from "./toast.ts";

export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
export const MAX_IMAGE_SIDE = 1080;
export const JPEG_QUALITY = 0.5;

/** What the upload endpoints answer (schemas/upload.ts). */
export type UploadInfo = Upload;

export type ImageKind = "png" | "jpg";

/** The real type of an image from its magic number (what the server checks too). */
export function sniffImage(head: Uint8Array): ImageKind | null {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (head.length >= 8 && png.every((b, i) => head[i] === b)) return "png";
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpg";
  return null;
}

/** The catalogue key of what is wrong with a picture (file_type / file_too_large), or null. */
export async function checkImage(file: Blob): Promise<"file_type" | "file_too_large" | null> {
  if (file.type && !/^image\/(png|jpe?g)$/i.test(file.type)) return "file_type";
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  if (!sniffImage(head)) return "file_type";
  return null;
}

function loadBitmap(file: Blob): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(file);
    const img = new Image();
    img.onload = () => {
      URL.revokeObjectURL(url);
      resolve(img);
    };
    img.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error("decode"));
    };
    img.src = url;
  });
}

/**
 * Makes a picture ready to send: checks the type, shrinks anything above 1080×1080 (or above
 * 4 MB) into a JPEG, and refuses what is still too big. Resolves with the blob and a file name,
 * or rejects with an ApiFailure carrying the translated reason.
 */
export async function prepareImage(file: File): Promise<{ blob: Blob; name: string; kind: ImageKind }> {
  const problem = await checkImage(file);
  if (problem) throw new ApiFailure("error", errorMessage(problem), problem);
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  const kind = sniffImage(head) ?? "jpg";
  let img: HTMLImageElement;
  try {
    img = await loadBitmap(file);
  } catch {
    throw new ApiFailure("error", errorMessage("file_type"), "file_type");
  }
  const tooLarge = img.naturalWidth > MAX_IMAGE_SIDE || img.naturalHeight > MAX_IMAGE_SIDE || file.size > MAX_IMAGE_BYTES;
  if (!tooLarge) return { blob: file, name: safeName(file.name, kind), kind };

  const ratio = Math.min(1, MAX_IMAGE_SIDE / img.naturalWidth, MAX_IMAGE_SIDE / img.naturalHeight);
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(img.naturalWidth * ratio));
  canvas.height = Math.max(1, Math.round(img.naturalHeight * ratio));
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new ApiFailure("error", errorMessage("upload_failed"), "upload_failed");
  ctx.fillStyle = "#fff"; // transparent PNG areas become white, not black, in the JPEG
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/jpeg", JPEG_QUALITY));
  if (!blob) throw new ApiFailure("error", errorMessage("upload_failed"), "upload_failed");
  if (blob.size > MAX_IMAGE_BYTES) throw new ApiFailure("error", errorMessage("file_too_large"), "file_too_large");
  return { blob, name: safeName(file.name, "jpg"), kind: "jpg" };
}

/** A file name the server accepts in the scene ("user/{filename}"): ASCII, with the right extension. */
function safeName(name: string, kind: ImageKind): string {
  const base = (name.replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40) || "photo") + `-${Date.now().toString(36)}`;
  return `${base}.${kind === "png" ? "png" : "jpg"}`;
}

function errorMessage(key: "file_type" | "file_too_large" | "upload_failed"): string {
  if (key === "file_type") return m.wallet_upload_type();
  if (key === "file_too_large") return m.wallet_upload_size();
  return m.wallet_upload_failed();
}

/**
 * Sends a prepared picture as multipart (`file`, `scene` = "user/{filename}"), reporting progress
 * from 0 to 1. Resolves with the upload's id and url; rejects with an ApiFailure (already shown as
 * an error toast, spec §8 "Upload failure: error toast").
 */
export function uploadImage(blob: Blob, name: string, onProgress?: (fraction: number) => void, signal?: AbortSignal): Promise<UploadInfo> {
  return new Promise<UploadInfo>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/new/upload");
    xhr.timeout = UPLOAD_TIMEOUT_MS;
    xhr.setRequestHeader("lang", getAppLocale());
    xhr.setRequestHeader("accept", "application/json");
    const token = getToken();
    if (token) xhr.setRequestHeader("Authorization", token);
    const fail = (failure: ApiFailure, show = true) => {
      if (show) toast.error(failure.message);
      reject(failure);
    };
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && onProgress) onProgress(Math.min(1, e.loaded / e.total));
    };
    xhr.onerror = () => fail(new ApiFailure("network", m.network_error()));
    xhr.ontimeout = () => fail(new ApiFailure("timeout", m.request_timeout()));
    xhr.onabort = () => fail(new ApiFailure("network", "aborted"), false);
    xhr.onload = () => {
      let json: Record<string, unknown> | null;
      try {
        json = JSON.parse(xhr.responseText) as Record<string, unknown>;
      } catch {
        json = null;
      }
      if (json && json.status === 1 && json.data && typeof json.data === "object") {
        onProgress?.(1);
        resolve(json.data as UploadInfo);
        return;
      }
      const message = json && typeof json.message === "string" && json.message ? json.message : m.wallet_upload_failed();
      const code = json && typeof json.code === "string" ? json.code : undefined;
      if (json?.type === "999") {
        toast.error(m.please_login());
        clearLogin();
        setTimeout(() => navigateTo(`/login?redirect=${encodeURIComponent(currentPath())}`, { replace: true }), 500);
        reject(new ApiFailure("999", message, code, xhr.status));
        return;
      }
      fail(new ApiFailure("error", message, code, xhr.status));
    };
    signal?.addEventListener("abort", () => xhr.abort());
    const form = new FormData();
    form.append("file", blob, name);
    form.append("scene", `user/${name}`);
    xhr.send(form);
  });
}

/**
 * Fetches a stored upload with the Authorization header (a plain <img src> would not send it)
 * and returns an object URL; the caller revokes it.
 */
export async function fetchImageUrl(url: string, signal?: AbortSignal): Promise<string> {
  const headers: Record<string, string> = { lang: getAppLocale() };
  const token = getToken();
  if (token) headers.Authorization = token;
  const res = await fetch(url, { headers, signal, cache: "no-store" });
  const type = res.headers.get("content-type") ?? "";
  if (!res.ok || !type.startsWith("image/")) throw new ApiFailure("error", m.load_failed(), undefined, res.status);
  return URL.createObjectURL(await res.blob());
}
