/**
 * Product switches per deployment (DESIGN §1): seconds contracts, leverage and C2C can each be
 * switched off in wrangler.toml (`PRODUCT_SECONDS`, `PRODUCT_LEVER`, `PRODUCT_C2C`: "on" or
 * "off"); the UI hides what is off and the API refuses it. Anything but "on"/"true"/"1" is off,
 * so a typo never switches a regulated product on.
 */
export interface Products {
  seconds: boolean;
  lever: boolean;
  c2c: boolean;
}

const isOn = (v: string | undefined) => v !== undefined && ["on", "true", "1"].includes(v.trim().toLowerCase());

export function productsOf(env: { PRODUCT_SECONDS?: string; PRODUCT_LEVER?: string; PRODUCT_C2C?: string }): Products {
  return { seconds: isOn(env.PRODUCT_SECONDS), lever: isOn(env.PRODUCT_LEVER), c2c: isOn(env.PRODUCT_C2C) };
}

/** Whether a wallet account belongs to a product that is on: spot (change) always is. */
export function accountOn(products: Products, account: "change" | "micro" | "legal" | "lever"): boolean {
  if (account === "change") return true;
  return account === "micro" ? products.seconds : account === "lever" ? products.lever : products.c2c;
}
