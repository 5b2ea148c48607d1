/**
 * Bank name from a card number (spec: "bank name auto-filled from card number on blur"): a small
 * table of well-known issuer prefixes (BINs) of the large Chinese retail banks. Unknown prefixes
 * return null and the user types the name. The Luhn check lives in schemas/kyc.ts (shared with web).
 */
import type { Locale } from "../../../schemas/locale.ts";
import { luhnValid } from "../../../schemas/kyc.ts";

/** A bank's name in each language (a stored card keeps the name it was saved with; answers re-derive it per request). */
type Bank = Record<Locale, string>;

const ICBC: Bank = {
  zh: "中国工商银行",
  hk: "中國工商銀行",
  en: "Industrial and Commercial Bank of China",
  kr: "중국공상은행",
  jp: "中国工商銀行",
  es: "Banco Industrial y Comercial de China",
};
const ABC: Bank = {
  zh: "中国农业银行",
  hk: "中國農業銀行",
  en: "Agricultural Bank of China",
  kr: "중국농업은행",
  jp: "中国農業銀行",
  es: "Banco Agrícola de China",
};
const BOC: Bank = {
  zh: "中国银行",
  hk: "中國銀行",
  en: "Bank of China",
  kr: "중국은행",
  jp: "中国銀行",
  es: "Banco de China",
};
const CCB: Bank = {
  zh: "中国建设银行",
  hk: "中國建設銀行",
  en: "China Construction Bank",
  kr: "중국건설은행",
  jp: "中国建設銀行",
  es: "Banco de Construcción de China",
};
const BOCOM: Bank = {
  zh: "交通银行",
  hk: "交通銀行",
  en: "Bank of Communications",
  kr: "교통은행",
  jp: "交通銀行",
  es: "Banco de Comunicaciones",
};
const CMB: Bank = {
  zh: "招商银行",
  hk: "招商銀行",
  en: "China Merchants Bank",
  kr: "초상은행",
  jp: "招商銀行",
  es: "China Merchants Bank",
};
const PSBC: Bank = {
  zh: "中国邮政储蓄银行",
  hk: "中國郵政儲蓄銀行",
  en: "Postal Savings Bank of China",
  kr: "중국우정저축은행",
  jp: "中国郵政儲蓄銀行",
  es: "Banco de Ahorro Postal de China",
};

/** Issuer prefix → bank. Longest prefix wins. */
const BINS: [string, Bank][] = [
  ["622202", ICBC],
  ["622208", ICBC],
  ["621226", ICBC],
  ["622848", ABC],
  ["622845", ABC],
  ["601382", BOC],
  ["621661", BOC],
  ["622700", CCB],
  ["621700", CCB],
  ["436742", CCB],
  ["622262", BOCOM],
  ["622588", CMB],
  ["621483", CMB],
  ["621799", PSBC],
  ["622188", PSBC],
];

/** The issuing bank's name in the caller's language, or null when the prefix is not in the table. */
export function bankNameFor(card: string, locale: Locale): string | null {
  const digits = card.replace(/[\s-]/g, "");
  let best: [string, Bank] | undefined;
  for (const entry of BINS) if (digits.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  if (!best) return null;
  return best[1][locale];
}

/** What the bank-card form shows while typing: the issuer when known, and whether the number can be complete. */
export function bankLookup(card: string, locale: Locale): { bank_name: string | null; valid: boolean } {
  return { bank_name: bankNameFor(card, locale), valid: card.length >= 12 && luhnValid(card) };
}
