/**
 * Product switches per deployment (DESIGN §1): each switched product of schemas/products.ts names
 * its variable in wrangler.toml (`PRODUCT_SECONDS`, `PRODUCT_LEVER`, `PRODUCT_C2C`: "on" or
 * "off"); the UI hides what is off and the API refuses it. Anything but "on"/"true"/"1" is off,
 * so a typo never switches a regulated product on.
 */
import { switchesOf, type Products, type SwitchName } from "../../schemas/products.ts";

export type { Products };

export function productsOf(env: Partial<Record<SwitchName, string>>): Products {
  return switchesOf(env);
}
