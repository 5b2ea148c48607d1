/** Loading, empty and error states shared by every screen. */
import { m, useLocale } from "../i18n/index.ts";
import { Icon } from "./Icon.tsx";

export function Spinner({ size = 20, label }: { size?: number; label?: string }) {
  return <span className="spinner" style={{ width: size, height: size }} role="status" aria-label={label ?? m.loading()} />;
}

export function PageSpinner() {
  useLocale();
  return (
    <div className="state state-loading">
      <Spinner size={28} />
    </div>
  );
}

/** Grey placeholder rows in the shape of a list while it loads. */
export function SkeletonList({ rows = 5, avatar = false }: { rows?: number; avatar?: boolean }) {
  return (
    <div className="skeleton-list" aria-busy="true" aria-label={m.loading()}>
      {Array.from({ length: rows }, (_, i) => (
        <div className="skeleton-row" key={i}>
          {avatar && <span className="skeleton skeleton-avatar" />}
          <span className="skeleton-lines">
            <span className="skeleton skeleton-line" style={{ width: `${55 + ((i * 17) % 35)}%` }} />
            <span className="skeleton skeleton-line short" />
          </span>
          <span className="skeleton skeleton-tail" />
        </div>
      ))}
    </div>
  );
}

export function SkeletonBlock({ height = 120 }: { height?: number }) {
  return <div className="skeleton skeleton-block" style={{ height }} aria-hidden="true" />;
}

export function EmptyState({ text }: { text?: string }) {
  useLocale();
  return (
    <div className="state state-empty">
      <Icon name="empty" size={40} />
      <p>{text ?? m.no_data()}</p>
    </div>
  );
}

export function ErrorState({ message, onRetry }: { message?: string; onRetry?: () => void }) {
  useLocale();
  return (
    <div className="state state-error" role="alert">
      <Icon name="alert" size={36} />
      <p>{message || m.load_failed()}</p>
      {onRetry && (
        <button type="button" className="btn btn-outline btn-small" onClick={onRetry}>
          <Icon name="refresh" size={16} />
          {m.retry()}
        </button>
      )}
    </div>
  );
}
