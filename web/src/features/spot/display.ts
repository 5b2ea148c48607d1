/** Display helpers of the spot screens: decimal strings in, grouped and truncated strings out. */
import { PLACEHOLDER, groupThousands } from "../../lib/format.ts";
import { clampDecimals, toUnits } from "./orderMath.ts";
import { formatUnits } from "../../../../schemas/money.ts";

/** A decimal string with exactly `decimals` places (truncated, never rounded up), grouped. */
export function fixed(value: string | null | undefined, decimals: number): string {
  const u = toUnits(value ?? "");
  if (!u) return PLACEHOLDER;
  return groupThousands(formatUnits(u.units, u.scale, decimals));
}

/** A decimal string as sent, cut to at most `max` decimals, grouped. */
export function upTo(value: string | null | undefined, max: number): string {
  if (!toUnits(value ?? "")) return PLACEHOLDER;
  return groupThousands(clampDecimals(value as string, max));
}

const shanghaiTime = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Asia/Shanghai",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hour12: false,
});

/** Deal times (epoch ms) as HH:mm:ss, Beijing time like every other time on the exchange. */
export function clockTime(ms: number): string {
  return shanghaiTime.format(new Date(ms));
}

/** Random client order id: lets the server recognise a retried submit (replay returns the first result). */
export function newClientOrderId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
