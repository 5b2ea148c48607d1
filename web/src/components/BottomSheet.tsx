/**
 * A sheet that slides up from the bottom (the chart page's spot order and seconds contract
 * sheets): a titled head with a close button, then the content. Escape and the backdrop close it;
 * it takes the focus when it opens. `Body` pads a form inside it.
 */
import { useEffect, useRef, type ReactNode } from "react";
import { m } from "../i18n/index.ts";
import { Icon } from "./Icon.tsx";
import s from "./BottomSheet.module.css";

export function BottomSheet({ title, titleClass, titleId, testId, closeTestId, onClose, children }: { title: ReactNode; titleClass?: string; titleId: string; testId: string; closeTestId?: string; onClose: () => void; children: ReactNode }) {
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  return (
    <div className={s.backdrop} onClick={onClose}>
      <div className={s.sheet} role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} ref={panel} onClick={(e) => e.stopPropagation()} data-testid={testId}>
        <div className={s.head}>
          <h2 id={titleId} className={titleClass}>
            {title}
          </h2>
          <button type="button" className="icon-btn" onClick={onClose} aria-label={m.close()} data-testid={closeTestId}>
            <Icon name="close" />
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}

/** The padded body of a sheet's form. */
export function SheetBody({ children }: { children: ReactNode }) {
  return <div className={s.body}>{children}</div>;
}
