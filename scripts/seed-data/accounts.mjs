// Local demo accounts (never seeded with --remote). Printed by `npm start`.
// Balances are credited through the ledger, one movement per credit (see scripts/seed.mjs).

/**
 * @typedef {{ key: string, account: string, password: string, role: "user"|"operator", reviewStatus: number,
 *   realName: string | null, extensionCode: string, credits: Record<string, string>, fundPassword?: string }} DemoAccount
 */

/** @type {DemoAccount[]} */
export const demoAccounts = [
  {
    key: "demo1",
    account: "demo1@exchange.test",
    password: "Demo1234",
    role: "user",
    reviewStatus: 2,
    realName: "Demo One",
    extensionCode: "DEMO01",
    credits: { USDT: "10000", BTC: "1" },
  },
  {
    key: "demo2",
    account: "demo2@exchange.test",
    password: "Demo1234",
    role: "user",
    reviewStatus: 2,
    realName: "Demo Two",
    extensionCode: "DEMO02",
    credits: { USDT: "10000", BTC: "1" },
  },
  {
    key: "operator",
    account: "operator@exchange.test",
    password: "Operator1234",
    role: "operator",
    reviewStatus: 2,
    realName: "Demo Operator",
    extensionCode: "OPER01",
    credits: {},
  },
  {
    // A second operator: what one operator records (a mining pool's payout, issue #20 §1) another must approve.
    key: "operator2",
    account: "operator2@exchange.test",
    password: "Operator1234",
    role: "operator",
    reviewStatus: 2,
    realName: "Demo Operator Two",
    extensionCode: "OPER02",
    credits: {},
  },
  {
    // An ordinary verified account that the demo market maker trades from (real orders, real funds).
    key: "mm",
    account: "mm@exchange.test",
    password: "MarketMaker1234",
    role: "user",
    reviewStatus: 2,
    realName: "Market Maker",
    extensionCode: "MMAKER",
    credits: { USDT: "1000000", BTC: "20", ETH: "300", XRP: "500000", LTC: "5000", BCH: "1000", DOGE: "2000000" },
  },
  {
    // The market maker's second account: it takes liquidity from the first one now and then, so
    // deals happen (self-trade prevention stops an account from trading with itself).
    key: "mm2",
    account: "mm2@exchange.test",
    password: "MarketMaker1234",
    role: "user",
    reviewStatus: 2,
    realName: "Market Taker",
    extensionCode: "MMAKE2",
    credits: { USDT: "1000000", BTC: "20", ETH: "300", XRP: "500000", LTC: "5000", BCH: "1000", DOGE: "2000000" },
  },
  {
    // The demo C2C merchant (issue #10): approved, deposit paid, USDT in the legal account, a bank
    // card and Alipay, one sell and one buy advert for USDT/CNY on the shelf (scripts/seed.mjs c2cSql).
    key: "merchant",
    account: "merchant@exchange.test",
    password: "Merchant1234",
    role: "user",
    reviewStatus: 2,
    realName: "Demo Merchant",
    extensionCode: "MERCH1",
    // Releasing escrow asks for it (issue #26), as withdrawals do.
    fundPassword: "135790",
    credits: { USDT: "1000" },
  },
];
