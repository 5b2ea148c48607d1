/**
 * A stored upload (deposit proof, identity photo) shown to its owner or an operator. The file
 * endpoint needs the Authorization header, so the picture is fetched as a blob and shown from an
 * object URL (revoked on unmount). Tapping it opens a full-screen view.
 */
import { useEffect, useState } from "react";
import { m, useLocale } from "../i18n/index.ts";
import { fetchImageUrl } from "../lib/upload.ts";
import { Icon } from "./Icon.tsx";
import { Spinner } from "./States.tsx";
import s from "./AuthImage.module.css";

/** Accepts an upload url ("/api/new/upload/file/<id>") or a bare upload id. */
function fileUrl(src: string): string {
  return src.startsWith("/") ? src : `/api/new/upload/file/${encodeURIComponent(src)}`;
}

export function AuthImage({ src, alt, className = "", testId }: { src: string | null | undefined; alt: string; className?: string; testId?: string }) {
  useLocale();
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const [zoom, setZoom] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!src) return;
    const controller = new AbortController();
    let objectUrl: string | null = null;
    setFailed(false);
    setUrl(null);
    fetchImageUrl(fileUrl(src), controller.signal)
      .then((u) => {
        objectUrl = u;
        setUrl(u);
      })
      .catch(() => {
        if (!controller.signal.aborted) setFailed(true);
      });
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [src, attempt]);

  if (!src) {
    return (
      <div className={`${s.authImage} auth-image-empty ${className}`}>
        <Icon name="empty" size={22} />
      </div>
    );
  }
  if (failed) {
    return (
      <button type="button" className={`${s.authImage} ${s.authImageFailed} ${className}`} onClick={() => setAttempt((a) => a + 1)} aria-label={m.retry()}>
        <Icon name="refresh" size={18} />
        <span>{m.load_failed()}</span>
      </button>
    );
  }
  if (!url) {
    return (
      <div className={`${s.authImage} auth-image-loading ${className}`}>
        <Spinner size={18} />
      </div>
    );
  }
  return (
    <>
      <button type="button" className={`${s.authImage} ${className}`} onClick={() => setZoom(true)} aria-label={alt} data-testid={testId}>
        <img src={url} alt={alt} />
      </button>
      {zoom && (
        <div className={s.imageZoom} role="dialog" aria-modal="true" aria-label={alt} onClick={() => setZoom(false)}>
          <img src={url} alt={alt} />
          <button type="button" className={`icon-btn ${s.imageZoomClose}`} aria-label={m.close()} onClick={() => setZoom(false)}>
            <Icon name="close" />
          </button>
        </div>
      )}
    </>
  );
}
