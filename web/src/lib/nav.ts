/**
 * Navigation from outside React (the API client's 997/998/999 rules). The app registers the
 * router's navigate function at start-up; until then the hash is changed directly.
 */
type Navigate = (to: string, opts?: { replace?: boolean }) => void;

let navigateImpl: Navigate = (to) => {
  window.location.hash = `#${to}`;
};

export function registerNavigate(fn: Navigate) {
  navigateImpl = fn;
}

export function navigateTo(to: string, opts?: { replace?: boolean }) {
  navigateImpl(to, opts);
}

/** The current in-app path (hash routing), e.g. "/news/detail?id=3". */
export function currentPath(): string {
  const h = window.location.hash.replace(/^#/, "");
  return h === "" ? "/" : h;
}

/** Accepts only in-app paths as a post-login redirect (no "//host" or absolute URLs). */
export function safeRedirect(value: string | null | undefined): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/login")) return "/";
  return value;
}

/**
 * The login screen that brings the user back here (or to `back`) once logged in: screens open to
 * guests send them there when they act (buy, subscribe, vote), not when they look.
 */
export function loginPath(back: string = currentPath()): string {
  return `/login?redirect=${encodeURIComponent(back)}`;
}
