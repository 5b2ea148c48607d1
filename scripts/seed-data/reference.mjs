// Reference data of the exchange: currencies (spec §9 ids), USDT pairs, countries, settings,
// and the generated artwork (coin logos, article covers) as inline SVG data URIs — no external URLs.

/** A coloured disc with the symbol: the coin logos. */
export function coinLogo(symbol, color) {
  const size = symbol.length > 3 ? 17 : 21;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">` +
    `<circle cx="32" cy="32" r="32" fill="${color}"/>` +
    `<circle cx="32" cy="32" r="27" fill="none" stroke="#fff" stroke-opacity=".35" stroke-width="2"/>` +
    `<text x="32" y="${32 + Math.round(size * 0.36)}" font-family="Helvetica,Arial,sans-serif" font-size="${size}" ` +
    `font-weight="700" fill="#fff" text-anchor="middle">${symbol}</text></svg>`;
  return svgDataUri(svg);
}

export function svgDataUri(svg) {
  return `data:image/svg+xml;base64,${Buffer.from(svg, "utf8").toString("base64")}`;
}

/** White line-art motifs drawn on the covers (language-neutral: no text on images). */
const MOTIFS = {
  // candles and a trend line
  chart:
    `<path d="M470 230V120M530 250V90M590 210V70M650 190V60" stroke="#fff" stroke-opacity=".5" stroke-width="4"/>` +
    `<rect x="456" y="150" width="28" height="60" rx="3" fill="#fff" fill-opacity=".85"/>` +
    `<rect x="516" y="120" width="28" height="100" rx="3" fill="#fff" fill-opacity=".6"/>` +
    `<rect x="576" y="100" width="28" height="80" rx="3" fill="#fff" fill-opacity=".85"/>` +
    `<rect x="636" y="80" width="28" height="70" rx="3" fill="#fff" fill-opacity=".6"/>`,
  // a shield with a tick
  shield:
    `<path d="M560 60l100 36v64c0 62-44 104-100 124-56-20-100-62-100-124V96z" fill="#fff" fill-opacity=".18" stroke="#fff" stroke-width="6"/>` +
    `<path d="M515 168l32 32 66-72" fill="none" stroke="#fff" stroke-width="12" stroke-linecap="round" stroke-linejoin="round"/>`,
  // stacked coins
  coins:
    `<ellipse cx="560" cy="230" rx="100" ry="28" fill="#fff" fill-opacity=".35"/>` +
    `<ellipse cx="560" cy="195" rx="100" ry="28" fill="#fff" fill-opacity=".55"/>` +
    `<ellipse cx="560" cy="160" rx="100" ry="28" fill="#fff" fill-opacity=".75"/>` +
    `<ellipse cx="560" cy="125" rx="100" ry="28" fill="#fff" fill-opacity=".95"/>`,
  // a document with lines
  doc:
    `<rect x="490" y="50" width="150" height="210" rx="12" fill="#fff" fill-opacity=".9"/>` +
    `<path d="M515 100h100M515 135h100M515 170h100M515 205h60" stroke-opacity=".45" stroke="#000" stroke-width="8" stroke-linecap="round"/>`,
  // a globe
  globe:
    `<circle cx="560" cy="160" r="100" fill="none" stroke="#fff" stroke-width="6"/>` +
    `<ellipse cx="560" cy="160" rx="45" ry="100" fill="none" stroke="#fff" stroke-width="5"/>` +
    `<path d="M460 160h200M475 110h170M475 210h170" stroke="#fff" stroke-width="5"/>`,
  // an arrow into a tray
  deposit:
    `<path d="M560 50v130M510 135l50 50 50-50" fill="none" stroke="#fff" stroke-width="14" stroke-linecap="round" stroke-linejoin="round"/>` +
    `<path d="M470 200v50h180v-50" fill="none" stroke="#fff" stroke-width="12" stroke-linecap="round" stroke-linejoin="round"/>`,
  // an arrow out of a tray
  withdraw:
    `<path d="M560 185V60M510 105l50-50 50 50" fill="none" stroke="#fff" stroke-width="14" stroke-linecap="round" stroke-linejoin="round"/>` +
    `<path d="M470 200v50h180v-50" fill="none" stroke="#fff" stroke-width="12" stroke-linecap="round" stroke-linejoin="round"/>`,
  // an identity card
  id:
    `<rect x="450" y="70" width="220" height="150" rx="14" fill="#fff" fill-opacity=".9"/>` +
    `<circle cx="510" cy="135" r="28" fill="#000" fill-opacity=".25"/>` +
    `<path d="M560 115h80M560 145h80M480 190h160" stroke="#000" stroke-opacity=".3" stroke-width="9" stroke-linecap="round"/>`,
  // a warning triangle
  warning:
    `<path d="M560 55l110 190H450z" fill="#fff" fill-opacity=".2" stroke="#fff" stroke-width="8" stroke-linejoin="round"/>` +
    `<path d="M560 120v60" stroke="#fff" stroke-width="14" stroke-linecap="round"/><circle cx="560" cy="212" r="9" fill="#fff"/>`,
  // a padlock
  lock:
    `<rect x="490" y="140" width="140" height="110" rx="14" fill="#fff" fill-opacity=".9"/>` +
    `<path d="M515 140v-35a45 45 0 0190 0v35" fill="none" stroke="#fff" stroke-width="14"/>` +
    `<circle cx="560" cy="190" r="14" fill="#000" fill-opacity=".35"/>`,
  // a clock
  clock:
    `<circle cx="560" cy="160" r="100" fill="#fff" fill-opacity=".15" stroke="#fff" stroke-width="8"/>` +
    `<path d="M560 95v65l45 30" fill="none" stroke="#fff" stroke-width="12" stroke-linecap="round"/>`,
  // two people (C2C)
  people:
    `<circle cx="510" cy="115" r="35" fill="#fff" fill-opacity=".9"/><circle cx="615" cy="115" r="35" fill="#fff" fill-opacity=".6"/>` +
    `<path d="M450 250c0-55 30-85 60-85s60 30 60 85zM555 250c0-55 30-85 60-85s60 30 60 85z" fill="#fff" fill-opacity=".75"/>`,
};

/** A 750x320 cover: a two-colour gradient, soft circles and one motif on the right. */
export function cover(motif, from, to) {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="750" height="320" viewBox="0 0 750 320">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>` +
    `<rect width="750" height="320" fill="url(#g)"/>` +
    `<circle cx="90" cy="60" r="140" fill="#fff" fill-opacity=".07"/><circle cx="250" cy="300" r="110" fill="#fff" fill-opacity=".06"/>` +
    `<path d="M60 200h260M60 232h190M60 264h120" stroke="#fff" stroke-opacity=".35" stroke-width="12" stroke-linecap="round"/>` +
    (MOTIFS[motif] ?? "") +
    `</svg>`;
  return svgDataUri(svg);
}

/**
 * Currencies with the spec's ids. Scales keep every balance below 2^53 minimal units.
 * is_match: tradable on spot; is_micro: payable for seconds contracts; is_lever: leveraged contracts.
 */
export const currencies = [
  { id: 1, name: "BTC", scale: 8, color: "#F7931A", is_legal: 0, is_lever: 1, is_match: 1, is_micro: 1, sort: 1 },
  { id: 2, name: "ETH", scale: 8, color: "#627EEA", is_legal: 0, is_lever: 1, is_match: 1, is_micro: 1, sort: 2 },
  { id: 3, name: "USDT", scale: 8, color: "#26A17B", is_legal: 1, is_lever: 0, is_match: 0, is_micro: 1, sort: 0 },
  { id: 5, name: "XRP", scale: 6, color: "#23292F", is_legal: 0, is_lever: 1, is_match: 1, is_micro: 0, sort: 5 },
  { id: 6, name: "LTC", scale: 8, color: "#345D9D", is_legal: 0, is_lever: 1, is_match: 1, is_micro: 0, sort: 4 },
  { id: 10, name: "BCH", scale: 8, color: "#0AC18E", is_legal: 0, is_lever: 1, is_match: 1, is_micro: 0, sort: 6 },
  { id: 11, name: "DOGE", scale: 8, color: "#C2A633", is_legal: 0, is_lever: 1, is_match: 1, is_micro: 0, sort: 3 },
];

/**
 * X/USDT pairs, pair id = base currency id. price_decimals + qty_decimals <= 8 (USDT's scale), so
 * price x quantity is always a whole number of USDT minimal units; qty_decimals <= the base scale.
 * Ticks follow the usual market conventions for each coin's price level.
 */
export const USDT_ID = 3;
export const MIN_NOTIONAL_UNITS = 5n * 10n ** 8n; // 5 USDT
export const pairs = [
  { id: 1, currency_id: 1, price_decimals: 2, qty_decimals: 6, sort: 1 }, // BTC: 0.01 USDT tick, 0.000001 BTC lot
  { id: 2, currency_id: 2, price_decimals: 2, qty_decimals: 5, sort: 2 }, // ETH: 0.01 / 0.00001
  { id: 11, currency_id: 11, price_decimals: 5, qty_decimals: 1, sort: 3 }, // DOGE: 0.00001 / 0.1
  { id: 6, currency_id: 6, price_decimals: 2, qty_decimals: 4, sort: 4 }, // LTC: 0.01 / 0.0001
  { id: 5, currency_id: 5, price_decimals: 4, qty_decimals: 2, sort: 5 }, // XRP: 0.0001 / 0.01
  { id: 10, currency_id: 10, price_decimals: 2, qty_decimals: 4, sort: 6 }, // BCH: 0.01 / 0.0001
];
export const FEE_BPS = 10; // 0.10 % maker and taker

/** Countries for the registration form; China (+86, the default) first. */
export const countries = [
  [1, "86", "中国", "China"],
  [2, "852", "中国香港", "Hong Kong"],
  [3, "853", "中国澳门", "Macao"],
  [4, "886", "中国台湾", "Taiwan"],
  [5, "1", "美国", "United States"],
  [6, "1", "加拿大", "Canada"],
  [7, "44", "英国", "United Kingdom"],
  [8, "81", "日本", "Japan"],
  [9, "82", "韩国", "South Korea"],
  [10, "65", "新加坡", "Singapore"],
  [11, "60", "马来西亚", "Malaysia"],
  [12, "66", "泰国", "Thailand"],
  [13, "84", "越南", "Vietnam"],
  [14, "63", "菲律宾", "Philippines"],
  [15, "62", "印度尼西亚", "Indonesia"],
  [16, "91", "印度", "India"],
  [17, "61", "澳大利亚", "Australia"],
  [18, "64", "新西兰", "New Zealand"],
  [19, "49", "德国", "Germany"],
  [20, "33", "法国", "France"],
  [21, "34", "西班牙", "Spain"],
  [22, "39", "意大利", "Italy"],
  [23, "31", "荷兰", "Netherlands"],
  [24, "41", "瑞士", "Switzerland"],
  [25, "351", "葡萄牙", "Portugal"],
  [26, "7", "俄罗斯", "Russia"],
  [27, "90", "土耳其", "Turkey"],
  [28, "971", "阿联酋", "United Arab Emirates"],
  [29, "55", "巴西", "Brazil"],
  [30, "52", "墨西哥", "Mexico"],
  [31, "54", "阿根廷", "Argentina"],
  [32, "57", "哥伦比亚", "Colombia"],
  [33, "56", "智利", "Chile"],
  [34, "51", "秘鲁", "Peru"],
  [35, "27", "南非", "South Africa"],
  [36, "234", "尼日利亚", "Nigeria"],
].map(([country_id, area_code, name_cn, name_en]) => ({ country_id, area_code, name_cn, name_en }));

/** Settings rows. `kefu_link` is what the customer-service page opens (GET /api/cfg/kefu). */
export const settings = [
  { key: "kefu_link", value: "#/help/center" },
  { key: "support_email", value: "support@exchange.test" },
];
