/**
 * The earn products' entry points (issue #19): savings, launches, listing votes, contract
 * cover and mining plans (issue #20), listed on the home screen and in the personal centre. Driven by the product declarations
 * (schemas/products.ts): an entry shows only when its product is declared in this build AND
 * switched on in this deployment, so a product that is not built yet, or is off, is never offered.
 * Adding a product's declaration is all it takes for its entry to appear.
 */
import { m } from "../i18n/index.ts";
import { PRODUCTS, productOn, type Catalogue, type Products } from "../../../schemas/products.ts";
import type { IconName } from "../components/Icon.tsx";

export interface EarnEntry {
  /** The product's id in schemas/products.ts. */
  product: string;
  to: string;
  icon: IconName;
  label: () => string;
  note: () => string;
}

/** Every earn product, in the order they are shown. */
export const EARN_ENTRIES: readonly EarnEntry[] = [
  { product: "earn", to: "/earn", icon: "wallet", label: m.earn_savings, note: m.earn_savings_note },
  { product: "launch", to: "/launch", icon: "send", label: m.earn_launch, note: m.earn_launch_note },
  { product: "vote", to: "/vote", icon: "check", label: m.earn_vote, note: m.earn_vote_note },
  { product: "insurance", to: "/insurance", icon: "shield", label: m.earn_insurance, note: m.earn_insurance_note },
  { product: "mining", to: "/mining", icon: "markets", label: m.earn_mining, note: m.earn_mining_note },
];

/** The earn entries to offer: declared products that are on (none while the switches load). */
export function earnEntries(products: Products | null, catalogue: Catalogue = PRODUCTS): EarnEntry[] {
  return EARN_ENTRIES.filter((e) => {
    const p = catalogue.find((d) => d.id === e.product);
    return p !== undefined && productOn(p, products);
  });
}
