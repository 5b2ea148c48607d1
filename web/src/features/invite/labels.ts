/** Names of the products whose fees count for rebates, in the current language. */
import { m } from "../../i18n/index.ts";
import type { InviteProduct } from "./api.ts";

const labels: Record<InviteProduct, () => string> = {
  spot: m.invite_product_spot,
  seconds: m.invite_product_seconds,
  lever: m.invite_product_lever,
  conversion: m.invite_product_conversion,
  c2c: m.invite_product_c2c,
};

/** A product's name; its id when the server names one this build does not know yet. */
export function productLabel(product: string): string {
  const label = (labels as Record<string, (() => string) | undefined>)[product];
  return label ? label() : product;
}
