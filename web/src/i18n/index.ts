/**
 * The app's language. One nanostore holds the current locale (remembered in localStorage under
 * "lang", the spec's session key); paraglide's getLocale/setLocale are pointed at that store, so
 * switching language never reloads the page: components subscribed through useLocale() re-render
 * and every m.*() call reads the new locale.
 */
import { atom } from "nanostores";
import { useStore } from "@nanostores/react";
import { defaultLocale, locales, parseLocale, type Locale } from "../../../schemas/locale.ts";
import { errorText, isErrorKey, type ErrorKey } from "../../../schemas/errors.ts";
import { overwriteGetLocale, overwriteSetLocale } from "../paraglide/runtime.js";

export { m } from "../paraglide/messages.js";
export { locales, type Locale };

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
  setAppLocale(next as Locale);
});

/** Switches the language for the whole app and remembers it. */
export function setAppLocale(next: Locale) {
  if (!(locales as readonly string[]).includes(next)) return;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // not persisted, still switched for this visit
  }
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

/** A client-side message from the shared error catalogue, in the current language. */
export function errText(key: string, params?: Record<string, string | number>): string {
  const k: ErrorKey = isErrorKey(key) ? key : "invalid_param";
  return errorText($locale.get(), k, params);
}
