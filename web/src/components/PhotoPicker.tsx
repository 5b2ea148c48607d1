/**
 * One picture slot of a form (deposit proof, identity photos): pick a JPG or PNG, see it at
 * once, watch the upload progress, retry or replace it. The parent receives the upload's id
 * when the upload has finished (null while empty, uploading or failed). `initial` shows a picture
 * uploaded before (e.g. on an earlier visit of the screen) as the chosen one.
 */
import { useEffect, useRef, useState } from "react";
import { m, useLocale } from "../i18n/index.ts";
import { ApiFailure } from "../lib/api.ts";
import { fetchImageUrl, prepareImage, uploadImage, type UploadInfo } from "../lib/upload.ts";
import { Icon } from "./Icon.tsx";
import s from "./PhotoPicker.module.css";

type State =
  | { kind: "empty" }
  | { kind: "uploading"; preview: string; progress: number }
  | { kind: "done"; preview: string; info: UploadInfo }
  | { kind: "failed"; preview: string | null; message: string; file: File | null };

export function PhotoPicker({
  label,
  hint,
  onChange,
  invalid,
  disabled = false,
  testId,
  initial = null,
}: {
  label: string;
  hint?: string;
  onChange: (info: UploadInfo | null) => void;
  invalid?: boolean;
  disabled?: boolean;
  testId?: string;
  /** an upload chosen before, shown as done (read once, when the picker appears) */
  initial?: UploadInfo | null;
}) {
  useLocale();
  const [state, setState] = useState<State>(() => (initial ? { kind: "done", preview: "", info: initial } : { kind: "empty" }));
  const inputRef = useRef<HTMLInputElement>(null);
  const abortRef = useRef<AbortController | null>(null);
  const previewRef = useRef<string | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  useEffect(
    () => () => {
      abortRef.current?.abort();
      if (previewRef.current) URL.revokeObjectURL(previewRef.current);
    },
    [],
  );

  // A picture chosen before: its preview is fetched from the server (the file needs the session).
  const initialUrl = useRef(initial?.url ?? null);
  const touchedRef = useRef(false);
  useEffect(() => {
    const url = initialUrl.current;
    if (!url) return;
    const controller = new AbortController();
    fetchImageUrl(url, controller.signal)
      .then((u) => {
        // Replaced or removed meanwhile: the old picture's preview is not wanted any more.
        if (controller.signal.aborted || touchedRef.current) return URL.revokeObjectURL(u);
        previewRef.current = u;
        setState((s) => (s.kind === "done" ? { ...s, preview: u } : s));
      })
      .catch(() => undefined);
    return () => controller.abort();
  }, []);

  const setPreview = (blob: Blob | null): string | null => {
    if (previewRef.current) URL.revokeObjectURL(previewRef.current);
    previewRef.current = blob ? URL.createObjectURL(blob) : null;
    return previewRef.current;
  };

  const start = async (file: File) => {
    touchedRef.current = true;
    abortRef.current?.abort();
    const controller = new AbortController();
    abortRef.current = controller;
    onChangeRef.current(null);
    let prepared: Awaited<ReturnType<typeof prepareImage>>;
    try {
      prepared = await prepareImage(file);
    } catch (err) {
      setPreview(null);
      setState({ kind: "failed", preview: null, message: err instanceof ApiFailure ? err.message : m.wallet_upload_failed(), file: null });
      return;
    }
    const preview = setPreview(prepared.blob) ?? "";
    setState({ kind: "uploading", preview, progress: 0 });
    try {
      const info = await uploadImage(prepared.blob, prepared.name, (p) => setState((s) => (s.kind === "uploading" ? { ...s, progress: p } : s)), controller.signal);
      if (controller.signal.aborted) return;
      setState({ kind: "done", preview, info });
      onChangeRef.current(info);
    } catch (err) {
      if (controller.signal.aborted) return;
      setState({ kind: "failed", preview, message: err instanceof ApiFailure ? err.message : m.wallet_upload_failed(), file });
    }
  };

  const clear = () => {
    touchedRef.current = true;
    abortRef.current?.abort();
    setPreview(null);
    setState({ kind: "empty" });
    onChangeRef.current(null);
    if (inputRef.current) inputRef.current.value = "";
  };

  const preview = state.kind === "empty" ? null : state.preview;
  return (
    <div className={`${s.photoPicker} ${invalid ? s.invalid : ""}`} data-testid={testId} data-state={state.kind}>
      <span className="field-label">{label}</span>
      <div className={s.photoBody}>
        <label className={`${s.photoSlot} ${disabled ? s.disabled : ""}`}>
          <input
            ref={inputRef}
            type="file"
            accept="image/jpeg,image/png"
            className="visually-hidden"
            disabled={disabled || state.kind === "uploading"}
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void start(f);
            }}
            data-testid={testId ? `${testId}-input` : undefined}
            aria-label={label}
          />
          {preview ? <img src={preview} alt="" /> : (
            <span className={s.photoPlaceholder}>
              <Icon name="deposit" size={22} />
              <span>{m.wallet_upload_choose()}</span>
            </span>
          )}
          {state.kind === "uploading" && (
            <span className={s.photoProgress} role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(state.progress * 100)}>
              <span style={{ width: `${Math.round(state.progress * 100)}%` }} />
            </span>
          )}
        </label>
        <div className={s.photoStatus}>
          {state.kind === "empty" && <span className="muted">{hint ?? m.wallet_upload_hint()}</span>}
          {state.kind === "uploading" && <span className="muted">{m.wallet_upload_progress({ percent: Math.round(state.progress * 100) })}</span>}
          {state.kind === "done" && (
            <span className="up" data-testid={testId ? `${testId}-done` : undefined}>
              <Icon name="check" size={14} /> {m.wallet_upload_done()}
            </span>
          )}
          {state.kind === "failed" && <span className="field-error">{state.message}</span>}
          <div className={s.photoActions}>
            {state.kind === "failed" && state.file && (
              <button type="button" className="text-btn" onClick={() => state.file && void start(state.file)}>
                {m.retry()}
              </button>
            )}
            {state.kind !== "empty" && !disabled && (
              <button type="button" className={`text-btn ${s.mutedBtn}`} onClick={clear}>
                {m.wallet_upload_remove()}
              </button>
            )}
          </div>
        </div>
      </div>
    </div>
  );
}
