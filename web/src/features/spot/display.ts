/** Small helpers of the spot screens (numbers are shown with lib/format.ts). */

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
