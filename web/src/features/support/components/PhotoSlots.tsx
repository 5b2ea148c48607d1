/** The photos of a ticket or a reply: up to 4 of one's own uploads, through the shared picker. */
import { m } from "../../../i18n/index.ts";
import type { UploadInfo } from "../../../lib/upload.ts";
import { PhotoPicker } from "../../../components/PhotoPicker.tsx";
import { MAX_SUPPORT_IMAGES } from "../../../../../schemas/support.ts";
import s from "./support.module.css";

/** Up to 4 photo slots: a new one appears once every slot holds an uploaded photo. */
export function PhotoSlots({ slots, setSlots }: { slots: (UploadInfo | null)[]; setSlots: (f: (all: (UploadInfo | null)[]) => (UploadInfo | null)[]) => void }) {
  return (
    <fieldset className={s.photos}>
      <legend className="field-label">{m.support_photos()}</legend>
      {slots.map((_, i) => (
        <PhotoPicker key={i} label={m.support_photo_n({ n: i + 1 })} onChange={(info) => setSlots((all) => all.map((x, j) => (j === i ? info : x)))} testId={`support-photo-${i}`} />
      ))}
      {slots.length < MAX_SUPPORT_IMAGES && slots.every((x) => x !== null) && (
        <button type="button" className="btn btn-outline btn-small" onClick={() => setSlots((all) => [...all, null])} data-testid="support-photo-more">
          {m.support_add_photo()}
        </button>
      )}
    </fieldset>
  );
}

/** A photo still on its way up (PhotoPicker marks its state): sending now would leave it out. */
export const photosUploading = (form: HTMLFormElement) => form.querySelector('[data-state="uploading"]') !== null;
