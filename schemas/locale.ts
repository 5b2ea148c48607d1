/** The six languages of the product, with the codes the spec uses (not BCP 47 on purpose). */
import { z } from "zod";

export const locales = ["en", "zh", "hk", "kr", "jp", "es"] as const;
// Pure: a bundle that needs only the list (the web app's start-up) leaves zod out.
export const localeSchema = /* @__PURE__ */ z.enum(locales);
export type Locale = z.infer<typeof localeSchema>;
export const defaultLocale: Locale = "en";

/** Reads a `lang` header or query value; anything unknown falls back to English. */
export function parseLocale(value: string | null | undefined): Locale {
  const v = (value ?? "").trim().toLowerCase();
  if ((locales as readonly string[]).includes(v)) return v as Locale;
  if (v.startsWith("zh-tw") || v.startsWith("zh-hk")) return "hk";
  if (v.startsWith("zh")) return "zh";
  if (v.startsWith("ko")) return "kr";
  if (v.startsWith("ja")) return "jp";
  if (v.startsWith("es")) return "es";
  return defaultLocale;
}
