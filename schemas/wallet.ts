/**
 * Wallet contract (spec §3 wallet, deposit, withdrawal, conversion; §5 transfer, conversion and
 * withdrawal rules): request bodies, the amount rule shared by web and worker, and the translated
 * status labels of deposit and withdrawal records. Messages are catalogue keys (schemas/errors.ts).
 */
import { z } from "zod";
import type { Locale } from "./locale.ts";
import { MAX_UNITS } from "./money.ts";
import { decimalInput, idInput, intInput, lineText, PLAIN_SIGNED_DECIMAL_RE, singleLineText, TEXT_CHARS, textInput } from "./strict.ts";
import { ACCOUNT_NAMES, type AccountName } from "./products.ts";
import { authenticationResponseSchema } from "./security.ts";

/** The wallet accounts, as the products declare them (schemas/products.ts). */
export const walletAccounts = ACCOUNT_NAMES;
export type WalletAccountName = AccountName;
export const walletAccountSchema = z.enum(walletAccounts, { message: "invalid_param" });

/** The spec's ids (§9): legal currency USDT 3, default coin BTC 1. */
export const USDT_ID = 3;
export const BTC_ID = 1;

const AMOUNT_RE = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * An amount as typed: a JSON number that prints as a plain decimal (1e-7 or 0.1 + 0.2 are refused
 * rather than silently rounded) or a plain decimal string, signed (schemas/strict.ts); the sign
 * and scale are checked later, per field and currency (checkAmount). A string of more than 100
 * digits, or a JSON number of 10^21 or more, is "too large" rather than malformed.
 */
export const amountInputSchema = z
  .union([z.number({ message: "invalid_amount" }), z.string({ message: "invalid_amount" }).regex(PLAIN_SIGNED_DECIMAL_RE, { message: "invalid_amount" })], { message: "invalid_amount" })
  .transform((v) => ((typeof v === "string" && v.length > 100) || (typeof v === "number" && Math.abs(v) >= 1e21) ? "9".repeat(40) : v))
  .pipe(decimalInput({ signed: true }));

export type AmountCheck =
  | { ok: true; units: bigint }
  | { ok: false; key: "invalid_amount" | "amount_positive" | "too_many_decimals" | "amount_too_large"; params?: Record<string, number> };

/**
 * The money rule for an amount at a currency's scale: ≤ 0 → amount_positive; more decimals than
 * the scale → too_many_decimals; beyond what a balance can hold → amount_too_large.
 * With `signed`, negative amounts are allowed (operator adjustments) but zero is not.
 */
export function checkAmount(value: string, scale: number, opts: { signed?: boolean; max?: bigint } = {}): AmountCheck {
  const m = AMOUNT_RE.exec(value.trim());
  if (!m) return { ok: false, key: "invalid_amount" };
  const negative = m[1] === "-";
  const int = (m[2] ?? "0").replace(/^0+(?=\d)/, "");
  const frac = (m[3] ?? "").replace(/0+$/, "");
  const isZero = /^0*$/.test(int) && frac === "";
  if ((negative && !opts.signed) || isZero) return { ok: false, key: "amount_positive" };
  if (frac.length > scale) return { ok: false, key: "too_many_decimals", params: { decimals: scale } };
  if (int.length > 20) return { ok: false, key: "amount_too_large" };
  const units = BigInt(int) * 10n ** BigInt(scale) + BigInt(frac.padEnd(scale, "0") || "0");
  if (units > (opts.max ?? MAX_UNITS)) return { ok: false, key: "amount_too_large" };
  return { ok: true, units: negative ? -units : units };
}

/** A currency id, as a number or a digit string. */
export const currencyIdSchema = idInput({ max: 1_000_000 });

export const transferSchema = z
  .object({
    number: amountInputSchema,
    from_field: walletAccountSchema,
    to_field: walletAccountSchema,
    currency_id: currencyIdSchema,
  })
  .refine((b) => b.from_field !== b.to_field, { message: "same_account", path: ["to_field"] });
export type TransferInput = z.infer<typeof transferSchema>;

/** POST /api/user/shandui_quote: price a conversion and hold that price for a few seconds. */
export const conversionSchema = z.object({
  from_currency: currencyIdSchema,
  to_currency: currencyIdSchema,
  money: amountInputSchema,
});

/**
 * POST /api/user/shandui_sub: `quote_id` executes exactly that quote (or refuses it once
 * expired); without one, the spec's fields convert at the current price.
 */
export const conversionSubSchema = z
  .object({
    quote_id: z.string().regex(/^[0-9a-f]{32}$/, { message: "invalid_param" }).optional(),
    from_currency: currencyIdSchema.optional(),
    to_currency: currencyIdSchema.optional(),
    money: amountInputSchema.optional(),
  })
  .refine((b) => b.quote_id !== undefined || (b.from_currency !== undefined && b.to_currency !== undefined && b.money !== undefined), { message: "invalid_param" });

export const currencyBodySchema = z.object({ currency: currencyIdSchema, lang: lineText(16, { min: 0 }).optional() });

/** Withdrawal networks for USDT (spec §9): 0 ERC20, 1 TRC20; -1 is every coin's own chain (networkName). */
export const networkNames: Record<number, string> = { [-1]: "", 0: "ERC20", 1: "TRC20" };

/** The chains of the listed coins' own networks; a coin not named here is shown by its symbol. */
const ownChains: Record<string, string> = { BTC: "Bitcoin", ETH: "Ethereum", XRP: "XRP Ledger", LTC: "Litecoin", BCH: "Bitcoin Cash", DOGE: "Dogecoin" };

/**
 * The network a withdrawal of a coin goes out on, as users and operators read it: ERC20 or TRC20
 * for USDT, the coin's own chain for every other coin (-1: "Bitcoin" for BTC). USDT has no chain
 * of its own: its -1 row is only the general fee rate, named "" (the screen says "default").
 */
export function networkName(network: number, currencyName: string): string {
  if (network !== -1) return networkNames[network] ?? "";
  const coin = currencyName.toUpperCase();
  if (coin === "USDT") return "";
  return ownChains[coin] ?? coin;
}
export const networkSchema = intInput().pipe(z.union([z.literal(0), z.literal(1)], { message: "invalid_param" }));

/** An address as pasted: no spaces anywhere (spec §5), printable ASCII, sane length. */
export const addressSchema = z
  .string({ message: "address_invalid" })
  .min(1, { message: "address_invalid" })
  .max(128, { message: "address_invalid" })
  .regex(/^[\x21-\x7e]+$/, { message: "address_invalid" });

/** Labels and memos of the address book: letters and digits only (spec §5). */
export const labelSchema = z.string().max(32, { message: "label_invalid" }).regex(/^[A-Za-z0-9]*$/, { message: "label_invalid" });

/** Reference to an upload: the id, or the url returned by the upload endpoints. */
export const pictureRefSchema = lineText(200, { message: "picture_required" });

export const depositRequestSchema = z.object({
  currency: currencyIdSchema,
  type: lineText(20, { min: 0 }).optional().default(""),
  acc: lineText(128, { message: "address_invalid" }),
  amount: amountInputSchema,
  pic: pictureRefSchema,
  hash: z
    .string()
    .trim()
    .refine(singleLineText, TEXT_CHARS)
    .max(128)
    .regex(/^[A-Za-z0-9]*$/, { message: "invalid_field" })
    .optional()
    .default(""),
});

/**
 * POST /api/wallet/out. `password` is the FUND password (6 digits). `charge` and `rate` are what
 * the client showed; they are only compared with the server's fee, never used.
 */
export const withdrawalSchema = z.object({
  currency: currencyIdSchema,
  address: addressSchema,
  number: amountInputSchema,
  type: networkSchema.optional(),
  password: textInput(z.string().max(64, { message: "fund_password_wrong" })),
  charge: amountInputSchema.optional(),
  rate: amountInputSchema.optional(),
  memo: labelSchema.optional().default(""),
  totp_code: lineText(10, { min: 0 }).optional(),
  /** A passkey's answer to POST /api/security/passkeys/confirm/options, instead of `totp_code`. */
  passkey: authenticationResponseSchema.optional(),
});

export const addressBookAddSchema = z.object({
  currency: currencyIdSchema,
  address: addressSchema,
  label: labelSchema.optional().default(""),
  memo: labelSchema.optional().default(""),
  type: networkSchema.optional(),
});

export const idBodySchema = z.object({ id: idInput() });

export const uploadBase64Schema = z.object({
  file_base64: textInput(z.string({ message: "file_type" }).min(1, { message: "file_type" })),
  scene: lineText(200, { min: 0 }).optional(),
  name: lineText(200, { min: 0 }).optional(),
});
/** The text fields of a multipart upload (POST /api/new/upload): the same rules as the base64 one's. */
export const uploadFormFieldsSchema = uploadBase64Schema.pick({ scene: true, name: true });

/** Deposit statuses: 0 applying, 1 credited, 2 rejected. */
export const depositStatusLabels: Record<Locale, readonly [string, string, string]> = {
  en: ["Applying", "Credited", "Rejected"],
  zh: ["申请中", "已到账", "已驳回"],
  hk: ["申請中", "已到賬", "已駁回"],
  kr: ["신청 중", "입금 완료", "거절됨"],
  jp: ["申請中", "入金済み", "却下"],
  es: ["En solicitud", "Acreditado", "Rechazado"],
};

/** Withdrawal statuses (spec §4): 0 applying … 5 in-site success. */
export const withdrawalStatusLabels: Record<Locale, readonly [string, string, string, string, string, string]> = {
  en: ["Applying", "Approved, awaiting chain", "Chain success", "Chain failure", "Rejected", "In-site success"],
  zh: ["申请中", "已审核，等待上链", "上链成功", "上链失败", "已驳回", "站内转账成功"],
  hk: ["申請中", "已審核，等待上鏈", "上鏈成功", "上鏈失敗", "已駁回", "站內轉賬成功"],
  kr: ["신청 중", "승인됨, 체인 대기", "체인 성공", "체인 실패", "거절됨", "내부 이체 성공"],
  jp: ["申請中", "承認済み・チェーン待ち", "チェーン成功", "チェーン失敗", "却下", "サイト内送金成功"],
  es: ["En solicitud", "Aprobado, esperando la cadena", "Éxito en la cadena", "Fallo en la cadena", "Rechazado", "Éxito interno"],
};

export const addressListQuerySchema = z.object({ currency: currencyIdSchema.optional() });

/**
 * Internal (in-site) addresses: 'HX' + 30 hex characters (worker/domain/wallet/internal-addresses.ts).
 * The web app uses the pattern to announce an in-site transfer before submit; the server decides.
 */
export const INTERNAL_ADDRESS_RE = /^HX[0-9a-f]{30}$/i;

/** The canonical spelling of an internal-looking address ('HX' + lower-case hex), else null. */
export function normalizeInternalAddress(address: string): string | null {
  const a = address.trim();
  return INTERNAL_ADDRESS_RE.test(a) ? `HX${a.slice(2).toLowerCase()}` : null;
}

/**
 * The deposit screen's note (setting `deposit_tips`) as shipped, in every language. An operator's
 * own text replaces it as written; per-language versions go in `deposit_tips_{lang}` settings.
 */
export const depositTipsTexts: Record<Locale, string> = {
  en: "Deposits are credited after 1 network confirmation and a check of your proof.",
  zh: "充值在 1 个网络确认并核对您的凭证后入账。",
  hk: "充值在 1 個網絡確認並核對您的憑證後入賬。",
  kr: "입금은 네트워크 확인 1회와 증빙 확인 후 반영됩니다.",
  jp: "入金は 1 回のネットワーク承認と証明書の確認後に反映されます。",
  es: "Los depósitos se abonan tras 1 confirmación de red y la revisión de su comprobante.",
};

/** The deposit note in `locale`: a per-language setting first, the shipped text translated, else the operator's text. */
export function depositTipsFor(locale: Locale, stored: string, perLocale: string): string {
  if (perLocale) return perLocale;
  return stored === depositTipsTexts.en ? depositTipsTexts[locale] : stored;
}

/** The demo deposit addresses' note as shipped (migrations/0005): "… Send only {coin}[ on {network}]." */
const SHIPPED_ADDRESS_TIP = /^Demo address: do not send real funds\. Send only ([A-Za-z0-9]+)(?: on ([A-Za-z0-9]+))?\.$/;

const addressTipTexts: Record<Locale, (coin: string, network: string | undefined) => string> = {
  en: (c, n) => `Demo address: do not send real funds. Send only ${c}${n ? ` on ${n}` : ""}.`,
  zh: (c, n) => `演示地址：请勿转入真实资金。仅可转入 ${c}${n ? `（${n} 网络）` : ""}。`,
  hk: (c, n) => `演示地址：請勿轉入真實資金。僅可轉入 ${c}${n ? `（${n} 網絡）` : ""}。`,
  kr: (c, n) => `데모 주소: 실제 자금을 보내지 마세요. ${n ? `${n} 네트워크의 ` : ""}${c}만 보내세요.`,
  jp: (c, n) => `デモ用アドレス：実際の資金を送らないでください。${n ? `${n} ネットワークの ` : ""}${c} のみ送金してください。`,
  es: (c, n) => `Dirección de demostración: no envíe fondos reales. Envíe solo ${c}${n ? ` por ${n}` : ""}.`,
};

/** A deposit address's note in `locale`: the shipped demo note translated; an operator's own note as written. */
export function addressTipFor(locale: Locale, stored: string): string {
  const m = SHIPPED_ADDRESS_TIP.exec(stored);
  return m ? addressTipTexts[locale](m[1]!, m[2]) : stored;
}

/** Texts of in-site transfers sent by the server ({sender}: the masked sender account). */
export const inSiteTexts: Record<Locale, { tips: string; note: string; from: string }> = {
  en: {
    tips: "Transfers from other users of this exchange to this address arrive instantly and free of charge",
    note: "In-site transfer: arrives instantly, no fee. The published fee table applies to chain withdrawals only.",
    from: "In-site from {sender}",
  },
  zh: { tips: "本交易所其他用户向此地址转账即时到账，免手续费", note: "站内转账：即时到账，无手续费。公布的手续费表仅适用于链上提币。", from: "站内转入，来自 {sender}" },
  hk: { tips: "本交易所其他用戶向此地址轉賬即時到賬，免手續費", note: "站內轉賬：即時到賬，無手續費。公佈的手續費表僅適用於鏈上提幣。", from: "站內轉入，來自 {sender}" },
  kr: {
    tips: "이 거래소의 다른 사용자가 이 주소로 보내는 이체는 즉시 무료로 도착합니다",
    note: "내부 이체: 즉시 도착하며 수수료가 없습니다. 공시된 수수료표는 체인 출금에만 적용됩니다.",
    from: "{sender} 님의 내부 이체",
  },
  jp: {
    tips: "当取引所の他のユーザーからこのアドレスへの送金は即時・無料で着金します",
    note: "サイト内送金：即時着金、手数料なし。公開の手数料表はチェーン出金にのみ適用されます。",
    from: "{sender} からのサイト内送金",
  },
  es: {
    tips: "Las transferencias de otros usuarios de este exchange a esta dirección llegan al instante y sin comisión",
    note: "Transferencia interna: llega al instante, sin comisión. La tabla de comisiones publicada solo se aplica a retiros en cadena.",
    from: "Interna de {sender}",
  },
};
