/**
 * The app's language. One nanostore holds the current locale (remembered in localStorage under
 * "lang", the spec's session key); paraglide's getLocale/setLocale are pointed at that store, so
 * switching language never reloads the page: components subscribed through useLocale() re-render
 * and every m.*() call reads the new locale.
 *
 * Only the active language's messages are loaded: paraglide compiles one module per locale
 * (`--output-structure locale-modules`), each loaded on demand; `m` calls into the loaded one.
 * The entry waits for `loadLocale` before rendering, and a switch loads the new language before
 * showing it. The error catalogue's texts (errText) live in ./errors.ts, loaded with the screens
 * that check forms.
 */
import { atom } from "nanostores";
import { useStore } from "@nanostores/react";
import { defaultLocale, locales, parseLocale, type Locale } from "../../../schemas/locale.ts";
import type { m as Messages } from "../paraglide/messages.js";
import { overwriteGetLocale, overwriteSetLocale } from "../paraglide/runtime.js";

export { locales, type Locale };

/** One locale's compiled messages: the same functions as `m`, without the locale option. */
type Catalog = { [K in keyof typeof Messages]: (inputs?: Parameters<(typeof Messages)[K]>[0]) => string };

const loaders: Record<Locale, () => Promise<Catalog>> = {
  en: () => import("../paraglide/messages/en.js") as Promise<Catalog>,
  zh: () => import("../paraglide/messages/zh.js") as Promise<Catalog>,
  hk: () => import("../paraglide/messages/hk.js") as Promise<Catalog>,
  kr: () => import("../paraglide/messages/kr.js") as Promise<Catalog>,
  jp: () => import("../paraglide/messages/jp.js") as Promise<Catalog>,
  es: () => import("../paraglide/messages/es.js") as Promise<Catalog>,
};
const loaded = new Map<Locale, Catalog>();
let active: Catalog | null = null;

/** Loads a locale's messages (once); resolves when m.*() can render it. */
export async function loadLocale(locale: Locale): Promise<void> {
  let catalog = loaded.get(locale);
  if (!catalog) {
    catalog = await loaders[locale]();
    loaded.set(locale, catalog);
  }
  if ($locale.get() === locale) active = catalog;
}

const wrappers = new Map<string, (inputs?: unknown) => string>();
/**
 * The messages of the active language. `m.title_home` is a stable function (routes keep it and
 * call it later), which reads whichever language is loaded when it is called.
 */
export const m = new Proxy({} as typeof Messages, {
  get(_, key) {
    if (typeof key !== "string") return undefined;
    let fn = wrappers.get(key);
    if (!fn) {
      fn = (inputs?: unknown) => {
        const message = (active as Record<string, ((i?: unknown) => string) | undefined> | null)?.[key];
        return message ? message(inputs ?? {}) : "";
      };
      wrappers.set(key, fn);
    }
    return fn;
  },
});

const STORAGE_KEY = "lang";

/** Native names, shown on the language page in their own script. */
export const nativeNames: Record<Locale, string> = {
  en: "English",
  zh: "简体中文",
  hk: "繁體中文",
  kr: "한국어",
  jp: "日本語",
  es: "Español",
};

/** BCP 47 tags for <html lang> (so fonts pick the right CJK glyphs) and for Intl formatting. */
export const bcp47: Record<Locale, string> = {
  en: "en",
  zh: "zh-CN",
  hk: "zh-HK",
  kr: "ko",
  jp: "ja",
  es: "es",
};

function initialLocale(): Locale {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored && (locales as readonly string[]).includes(stored)) return stored as Locale;
  } catch {
    // storage blocked: fall through to the browser language
  }
  if (typeof navigator !== "undefined" && navigator.language) return parseLocale(navigator.language);
  return defaultLocale;
}

export const $locale = atom<Locale>(initialLocale());

function applyDocumentLang(locale: Locale) {
  if (typeof document !== "undefined") document.documentElement.lang = bcp47[locale];
}
applyDocumentLang($locale.get());

overwriteGetLocale(() => $locale.get());
overwriteSetLocale((next) => {
  void setAppLocale(next as Locale);
});

/** Switches the language for the whole app and remembers it (once its messages are loaded). */
export async function setAppLocale(next: Locale): Promise<void> {
  if (!(locales as readonly string[]).includes(next)) return;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // not persisted, still switched for this visit
  }
  const catalog = loaded.get(next) ?? (await loaders[next]());
  loaded.set(next, catalog);
  active = catalog;
  applyDocumentLang(next);
  $locale.set(next);
}

export function getAppLocale(): Locale {
  return $locale.get();
}

/** Subscribes a component to the locale so its m.*() texts follow a switch. */
export function useLocale(): Locale {
  return useStore($locale);
}
